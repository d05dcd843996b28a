"""Provides the activity of a Gemini CLI session: its tool calls and their outcomes, the user's
requests and the API errors it recorded, into the `ActivityLog` every reader fills.

A `gemini` record carries its tool calls whole (`toolCalls`: id, name, status, the responses
sent back), so a call and its outcome are read from the same record: `success` is a success,
`error` and `cancelled` are failures with their displayed text. A user request is a `user`
record of a main session (a sub-agent's `user` records come from the agent that spawned it);
an `error` record is a failed API call the CLI showed.
"""

from __future__ import annotations

from typing import Any

import msgspec

from sniff.ingest.activity import EXCERPT, ActivityLog, typed_text
from sniff.ingest.gemini_wire import GeminiMessage, GeminiToolCall
from sniff.ingest.plausible import Implausible, decoded

OUTCOMES = frozenset({"success", "error", "cancelled"})
"""The statuses of a call that has ended; a call in any other state has no outcome yet."""
AROUND_CONTENT = 1
"""The objects around a message's content in its line: the line's own."""


def tool_calls(
    log: ActivityLog, message: GeminiMessage, key: str, session: str, prefix: str
) -> None:
    """The calls a `gemini` record asked for, and their outcomes; `key`: the response that
    asked ("" when it carries no usage). Ids get `prefix` (the session's): Gemini CLI names a
    call after its tool and the time, which another session can repeat."""
    for call in message.toolCalls or ():
        if not call.id:
            continue
        tool_id = f"{prefix}{call.id}"
        at = call.timestamp or message.timestamp
        name = call.name or "(unnamed)"
        if tool_id not in log.calls:
            log.calls[tool_id] = (name, key, session, message.timestamp)
        if call.status in OUTCOMES:
            error = None if call.status == "success" else (_failure(call) or call.status)
            log.results[tool_id] = (session, at, error)


def user_request(log: ActivityLog, message: GeminiMessage, session: str, identity: str) -> None:
    """A `user` record of a main session: the user's request, as typed where the record
    keeps both (`displayContent`)."""
    raw = message.displayContent if bytes(message.displayContent).strip() else message.content
    text = typed_text(_text(raw))
    if text:
        log.events.append(
            ("instruction", session, message.timestamp, text[:EXCERPT], None, identity)
        )


def api_error(log: ActivityLog, message: GeminiMessage, session: str, identity: str) -> None:
    """An `error` record: a call that failed, as the CLI showed it."""
    text = _text(message.content)[:EXCERPT]
    log.events.append(("api_error", session, message.timestamp, text, None, identity))


def _failure(call: GeminiToolCall) -> str:
    """What a failed call showed: its display text, else the error its response sent back."""
    shown = _text(call.resultDisplay)
    if shown:
        return shown[:EXCERPT]
    for response in _responses(call.result):
        for field in ("error", "output"):
            value = response.get(field)
            if isinstance(value, str) and value.strip():
                return value.strip()[:EXCERPT]
    return ""


def _responses(raw: msgspec.Raw) -> list[dict[str, Any]]:
    """The `response` objects of a call's `functionResponse` parts."""
    value = _decoded(raw)
    found: list[dict[str, Any]] = []
    for part in value if isinstance(value, list) else ():
        reply = part.get("functionResponse") if isinstance(part, dict) else None
        response = reply.get("response") if isinstance(reply, dict) else None
        if isinstance(response, dict):
            found.append(response)
    return found


def _text(raw: msgspec.Raw) -> str:
    """A content value's text: a string, or the `text` of a list of parts."""
    value = _decoded(raw)
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        texts = (part.get("text") for part in value if isinstance(part, dict))
        return "\n".join(text for text in texts if isinstance(text, str)).strip()
    return ""


def _decoded(raw: msgspec.Raw) -> Any:
    """A raw value decoded; None when absent, nested too deep or not JSON (content is never
    worth losing the line's usage over)."""
    try:
        return decoded(raw, AROUND_CONTENT)
    except (Implausible, msgspec.DecodeError):
        return None
