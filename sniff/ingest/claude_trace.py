"""Provides the parser of claude-trace logs (`.claude-trace/log-*.jsonl`): one HTTP pair a line.

Each line holds the request Claude Code sent (the full body: tools, system prompt, messages,
with their cache-control marks) and the response (a JSON body, or the raw SSE text with
`body: null`). Only `/v1/messages` calls are requests to a model; other traffic is ignored.
A request without a response, or answered with an error status, is kept as a failed call that
costs nothing.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

import msgspec

from sniff.ingest import anthropic_api
from sniff.ingest.lines import decode_lines
from sniff.ingest.record import NO_TOKENS, TOP_LEVEL, FileResult, Prompts, Response, epoch
from sniff.model import Agent, Block, LineIssue

SOURCE = "claude-trace"
PROVIDER = "anthropic"
MESSAGES_PATH = re.compile(r"/v1/messages(?:\?|$)")
SESSION_IN_USER_ID = re.compile(r"session_([0-9a-fA-F-]{36})")
CLIENT_VERSION = re.compile(r"claude-cli/([0-9][^ ]*)")


class TraceBody(msgspec.Struct):
    """The request body. The prompt stays raw bytes until a report asks for blocks."""

    model: str | None = None
    metadata: dict[str, Any] | None = None
    tools: msgspec.Raw = msgspec.Raw()
    """Raw JSON, empty when absent (msgspec keeps raw values out of unions)."""
    system: msgspec.Raw = msgspec.Raw()
    messages: msgspec.Raw = msgspec.Raw()


class TraceRequest(msgspec.Struct):
    timestamp: float | None = None
    url: str | None = None
    headers: dict[str, Any] | None = None
    body: TraceBody | None = None


class TraceResponse(msgspec.Struct):
    timestamp: float | None = None
    status_code: int | None = None
    headers: dict[str, Any] | None = None
    body: Any = None
    body_raw: str | None = None


class TracePair(msgspec.Struct):
    request: TraceRequest | None = None
    response: TraceResponse | None = None
    logged_at: str | None = None
    note: str | None = None


DECODER = msgspec.json.Decoder(TracePair)
NO_TOOLS = frozenset({b"", b"[]", b"null"})


def parse_data(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = False
) -> FileResult:
    """Read one claude-trace log; `with_prompts` also turns request bodies into blocks."""
    issues: list[LineIssue] = []
    responses = []
    for number, pair in decode_lines(path, data, TracePair, DECODER, issues):
        found = _pair(path, number, pair, project_hint, with_prompts)
        if found is not None:
            responses.append(found)
    return FileResult(responses, issues, 0, SOURCE)


def _pair(
    path: str, number: int, pair: TracePair, project: str, with_prompts: Prompts
) -> Response | None:
    request = pair.request
    if request is None or not request.url or not MESSAGES_PATH.search(request.url):
        return None
    body = request.body or TraceBody()
    response = pair.response
    message, error = _message(response, pair.note)
    tokens, assumed = (
        anthropic_api.tokens(message.get("usage")) if not error else (NO_TOKENS, False)
    )
    model = message.get("model") if isinstance(message.get("model"), str) else body.model
    first, ended = _times(request, response, pair.logged_at)
    key = message.get("id") or _header(response, "request-id") or f"{path}:{number}"
    prompt = _prompt(body, with_prompts is True) if with_prompts else ()
    # Claude Code's own agents send tools; its background calls (quota probes, titles) do not.
    has_tools = bytes(body.tools).strip() not in NO_TOOLS
    return Response(
        SOURCE,
        str(key),
        TOP_LEVEL,
        tokens,
        assumed,
        model or "(unknown)",
        PROVIDER,
        _session(body) or PurePath(path).stem,
        Agent.MAIN.value if has_tools else Agent.OTHER.value,
        Agent.MAIN.value if has_tools else Agent.OTHER.value,
        project,
        first,
        ended,
        request.timestamp,
        _version(request.headers),
        path,
        number,
        prompt,
        error,
    )


def _message(response: TraceResponse | None, note: str | None) -> tuple[dict[str, Any], str | None]:
    """The response message (id, model, usage) and why the call failed, if it did."""
    if response is None:
        return {}, note or "no response"
    status = response.status_code or 0
    body = response.body
    if status >= 400:
        if body is None and response.body_raw:
            try:
                body = msgspec.json.decode(response.body_raw)
            except msgspec.DecodeError:
                body = None
        return {}, f"HTTP {status}: {anthropic_api.error_text(body)}"
    if isinstance(body, dict):
        return body, None
    if response.body_raw:
        message, error = anthropic_api.from_sse(response.body_raw)
        if error and not message.get("usage"):
            return {}, error
        return message, None
    return {}, "empty response"


def _times(
    request: TraceRequest, response: TraceResponse | None, logged_at: str | None
) -> tuple[float | None, float | None]:
    """(first content, end) of a call.

    The response's timestamp is when its headers arrived: for a stream, the start of the
    stream; for a JSON body, the whole answer. A streamed pair is written when the stream
    ends, so `logged_at` is its end, but only when it names its zone: early writers logged
    local time without one.
    """
    if response is None:
        return None, _aware_epoch(logged_at) or request.timestamp
    if response.body is None and response.body_raw:
        logged = _aware_epoch(logged_at)
        heard = response.timestamp
        ended = logged if logged is not None and (heard is None or logged >= heard) else heard
        return heard, ended
    return response.timestamp, response.timestamp


def _aware_epoch(text: str | None) -> float | None:
    """An ISO time as epoch seconds, only if it says its offset from UTC."""
    if not text or not (text.endswith("Z") or "+" in text[10:] or "-" in text[10:]):
        return None
    return epoch(text)


def _session(body: TraceBody) -> str | None:
    user = (body.metadata or {}).get("user_id")
    if isinstance(user, str):
        found = SESSION_IN_USER_ID.search(user)
        if found:
            return found.group(1)
    return None


def _prompt(body: TraceBody, count_tokens: bool) -> tuple[Block, ...]:
    return anthropic_api.blocks_from_raw(
        bytes(body.tools), bytes(body.system), bytes(body.messages), count_tokens
    )


def _header(response: TraceResponse | None, name: str) -> str | None:
    headers = response.headers if response is not None else None
    for key, value in (headers or {}).items():
        if key.lower() == name and isinstance(value, str):
            return value
    return None


def _version(headers: dict[str, Any] | None) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == "user-agent" and isinstance(value, str):
            found = CLIENT_VERSION.search(value)
            return found.group(1) if found else None
    return None
