"""Provides `Call`, what the proxy saw of one API call, and `to_line`, the request-log line it
becomes (docs/proxy.md lists the fields), with every credential masked.

Why no headers in the line: they carry the keys (`Authorization`, `x-api-key`, `api-key`,
cookies) and little else sniff uses; only the User-Agent is kept, as `client`, cut short and
masked. Why each string masked on its own (`sniff.redact_secrets`), not the serialized line: a
string's text then reads as it was typed (a key after a newline starts a word), and masking
can never break the line's JSON.

`to_line` runs on the writer's thread: parsing and masking a body of megabytes never holds up
a stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from sniff.ingest.providers.anthropic import anthropic_session
from sniff.proxy.capture import Capture
from sniff.proxy.routes import ANTHROPIC, Route
from sniff.proxy.stream import StreamTiming, gap_summary
from sniff.redact_secrets import redact_excerpt, redact_secrets

COMPLETE, CANCELLED, BROKEN = "complete", "cancelled", "broken"
CLIENT_CHARS = 200


@dataclass
class Call:
    """One call as it passed: what was sent, what came back, when, and how it ended."""

    route: Route
    path: str
    request: Capture
    started_at: float
    client: str | None = None
    session_header: str | None = None
    """OpenAI clients' `session_id` or `conversation_id` header (Codex sends them)."""
    diagnose: bool = False
    status: int | None = None
    response: Capture | None = None
    streamed: bool = False
    timing: StreamTiming = field(default_factory=StreamTiming)
    first_byte_at: float | None = None
    ended_at: float | None = None
    outcome: str = COMPLETE
    error: str | None = None


def to_line(call: Call) -> tuple[float, bytes]:
    """The call's line (ending with a newline) and its `started_at`, whose UTC day names the
    file it goes to."""
    request = _body(call.request, streamed=False)
    response = _body(call.response, call.streamed) if call.response is not None else None
    first_token, first_visible = call.timing.first_token_at, call.timing.first_visible_at
    if not call.streamed:  # a whole answer: its content comes with its first byte
        first_token = first_visible = call.first_byte_at
    line = {
        "request": request,
        "response": response,
        "status": call.status,
        "api": call.route.api,
        "provider": call.route.provider,
        "id": _response_id(call, response),
        "started_at": call.started_at,
        "first_byte_at": call.first_byte_at,
        "first_token_at": first_token,
        "first_visible_at": first_visible,
        "ended_at": call.ended_at,
        "token_gaps": gap_summary(call.timing.delta_times) if call.streamed else None,
        "outcome": call.outcome,
        "session": session_of(call, request),
        "client": _client(call.client),
        "proxy": _proxy_note(call),
    }
    return call.started_at, orjson.dumps(masked(line)) + b"\n"


def _client(user_agent: str | None) -> str | None:
    """The User-Agent, cut to `CLIENT_CHARS`; a key the cut falls inside is masked whole."""
    if not user_agent:
        return None
    return redact_excerpt(user_agent, 0, min(len(user_agent), CLIENT_CHARS))


def _body(capture: Capture, streamed: bool) -> Any:
    """A body for the record: its JSON; its text when it is a stream, not JSON, or was cut;
    None when empty or in an encoding not read."""
    if capture.undecoded is not None or not capture.kept:
        return None
    if not streamed and not capture.cut:
        try:
            return orjson.loads(capture.kept)
        except orjson.JSONDecodeError:
            pass
    return capture.text()


def _response_id(call: Call, response: Any) -> str | None:
    if call.streamed:
        return call.timing.response_id
    found = response.get("id") if isinstance(response, dict) else None
    return found if isinstance(found, str) and found else None


def session_of(call: Call, request: Any) -> str | None:
    """The agent's session: Anthropic's in `metadata.user_id` (Claude Code's session id);
    OpenAI's `session_id`/`conversation_id` header, else the body's `prompt_cache_key`."""
    body = request if isinstance(request, dict) else {}
    if call.route.provider == ANTHROPIC:
        metadata = body.get("metadata")
        user_id = metadata.get("user_id") if isinstance(metadata, dict) else None
        return anthropic_session(user_id) if isinstance(user_id, str) else None
    if call.session_header:
        return call.session_header
    key = body.get("prompt_cache_key")
    return key if isinstance(key, str) and key else None


def _proxy_note(call: Call) -> dict[str, Any]:
    """How the proxy handled the call: the path, the upstream, whether `--diagnose` changed
    it; and, only when they apply, what was cut, not decoded, or failed."""
    note: dict[str, Any] = {
        "path": call.path,
        "upstream": call.route.upstream,
        "diagnose": call.diagnose,
    }
    cut = {
        name: capture.size
        for name, capture in (("request", call.request), ("response", call.response))
        if capture is not None and capture.cut
    }
    if cut:
        note["cut"] = cut  # the body's whole size in bytes; the record kept the first 32 MiB
    undecoded = {
        name: capture.undecoded
        for name, capture in (("request", call.request), ("response", call.response))
        if capture is not None and capture.undecoded is not None
    }
    if undecoded:
        note["undecoded"] = undecoded
    if call.error:
        note["error"] = call.error
    return note


def masked(value: Any) -> Any:
    """`value` with every string in it (keys aside) passed through `redact_secrets`."""
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, dict):
        return {key: masked(item) for key, item in value.items()}
    if isinstance(value, list):
        return [masked(item) for item in value]
    return value
