"""Provides the Anthropic Messages API shapes: a request body as blocks, usage as tokens, SSE.

Anthropic reports `input_tokens` *excluding* cache reads and writes, so its usage maps onto
sniff's disjoint classes as is; the 1-hour share of writes comes from `cache_creation`.
"""

from __future__ import annotations

from typing import Any

import orjson

from sniff.ingest.prompt_blocks import make_block
from sniff.ingest.record import Tokens
from sniff.model import Block

API = "anthropic-messages"


def blocks(body: dict[str, Any], count_tokens: bool = True) -> tuple[Block, ...]:
    """The prompt in cache order: tools, then system blocks, then each message's content."""
    found: list[Block] = []
    for tool in _list(body.get("tools")):
        found.append(make_block("tool", "tools", tool, count_tokens))
    system = body.get("system")
    if isinstance(system, str):
        found.append(make_block("text", "system", {"type": "text", "text": system}, count_tokens))
    else:
        for part in _list(system):
            found.append(make_block(_kind(part), "system", part, count_tokens))
    for message in _list(body.get("messages")):
        if not isinstance(message, dict):
            continue
        role = str(message.get("role") or "user")
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else _list(content)
        for part in parts:
            found.append(make_block(_kind(part), role, part, count_tokens))
    return tuple(found)


def tokens(usage: Any) -> tuple[Tokens, bool]:
    """Usage → (input, read, 5m write, 1h write, output, reasoning), and whether TTL was assumed."""
    if not isinstance(usage, dict):
        return (0, 0, 0, 0, 0, 0), False
    written = count(usage.get("cache_creation_input_tokens"))
    split = usage.get("cache_creation")
    if isinstance(split, dict):
        one_hour = count(split.get("ephemeral_1h_input_tokens"))
        if "cache_creation_input_tokens" not in usage:
            written = one_hour + count(split.get("ephemeral_5m_input_tokens"))
        one_hour = min(one_hour, written)
        assumed = False
    else:
        one_hour, assumed = 0, written > 0
    details = usage.get("output_tokens_details")
    reasoning = count(details.get("thinking_tokens")) if isinstance(details, dict) else 0
    return (
        count(usage.get("input_tokens")),
        count(usage.get("cache_read_input_tokens")),
        written - one_hour,
        one_hour,
        count(usage.get("output_tokens")),
        reasoning,
    ), assumed


def from_sse(text: str) -> tuple[dict[str, Any], str | None]:
    """A streamed response's message (id, model, usage) and the stream's error, if any.

    Usage is `message_start`'s, updated by the last `message_delta` (whose output count is the
    final, cumulative one; newer streams repeat input and cache counts there too).
    """
    message: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    error: str | None = None
    for event in sse_events(text, ("message_start", "message_delta", '"error"')):
        kind = event.get("type")
        if kind == "message_start" and isinstance(event.get("message"), dict):
            message = dict(event["message"])
            usage.update(message.get("usage") or {})
        elif kind == "message_delta" and isinstance(event.get("usage"), dict):
            usage.update({k: v for k, v in event["usage"].items() if v is not None})
        elif kind == "error":
            error = error_text(event)
    if usage:
        message["usage"] = usage
    return message, error


def sse_events(text: str, wanted: tuple[str, ...]) -> list[dict[str, Any]]:
    """The JSON `data:` payloads of an SSE text that mention one of `wanted`, in order."""
    events: list[dict[str, Any]] = []
    for line in text.splitlines():
        if not line.startswith("data:") or not any(word in line for word in wanted):
            continue
        try:
            value = orjson.loads(line[5:])
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            events.append(value)
    return events


def error_text(body: Any) -> str:
    """A short reason from an API error body."""
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):
            kind, message = inner.get("type"), inner.get("message")
            return ": ".join(str(part) for part in (kind, message) if part) or "error"
        if isinstance(inner, str):
            return inner
    return "error"


def count(value: Any) -> int:
    """A token count as logged; anything that is not a non-negative number counts as 0."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return 0
    return int(value)


def _kind(part: Any) -> str:
    if isinstance(part, dict):
        kind = part.get("type")
        if isinstance(kind, str):
            return kind
    return "text"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
