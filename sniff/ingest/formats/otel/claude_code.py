"""Provides `claude_code_signal`: what one of Claude Code's OpenTelemetry signals says, as
sniff's records.

Claude Code (`service.name` `claude-code`) exports, per API call, an `api_request` log event
(model, the four token counts, `cost_usd`, `duration_ms`, `request_id`, `query_source`) and,
with `CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1`, a `claude_code.llm_request` span (start, end,
`ttft_ms`, the same tokens). Each becomes a `Response` keyed by the request id, so the two
halves of a call are one call (`ingest.telemetry` combines them). `api_error` is a failed call;
`tool_decision` and `tool_result` are tool calls and their results; `compaction` an event.
Checked against a real capture of Claude Code 2.1.224 (docs/otel.md).
"""

from __future__ import annotations

from typing import Any

from sniff.ingest.formats.otel.signals import Kind, Signal
from sniff.ingest.record import TOP_LEVEL, Response, Tokens
from sniff.model import Agent, AgentEvent, Harness, ToolCall, ToolResult

SOURCE = "otel"
PROVIDER = "anthropic"
SERVICE = "claude-code"
LLM_SPAN = "claude_code.llm_request"
AGENTS = {"main": Agent.MAIN, "subagent": Agent.SUBAGENT, "auxiliary": Agent.OTHER}
"""`query_source` → the part of Claude Code that made the call; any other value (the SDK's
`sdk`, ...) is the main conversation's. The value is kept as the call's agent id."""

Found = Response | ToolCall | ToolResult | AgentEvent


def claude_code_signal(signal: Signal, path: str, project: str) -> Found | None:
    """The record one Claude Code signal stands for; None for one sniff does not read."""
    if signal.kind is Kind.SPAN:
        return _call(signal, path, project) if signal.name == LLM_SPAN else None
    if signal.name in ("api_request", "api_error"):
        return _call(signal, path, project)
    session = _text(signal.attributes.get("session.id"))
    if signal.name == "tool_decision":
        tool_id = _text(signal.attributes.get("tool_use_id"))
        name = _text(signal.attributes.get("tool_name")) or "(unknown)"
        return ToolCall(tool_id, name, "", session, project, signal.end) if tool_id else None
    if signal.name == "tool_result":
        return _tool_result(signal, session)
    if signal.name == "compaction":
        return AgentEvent("compaction", session, project, signal.end)
    return None


def _tool_result(signal: Signal, session: str) -> ToolResult | None:
    attributes = signal.attributes
    tool_id = _text(attributes.get("tool_use_id"))
    if not tool_id:
        return None
    failed = str(attributes.get("success", "true")).lower() == "false"
    error = (_text(attributes.get("error")) or "failed") if failed else None
    return ToolResult(tool_id, session, signal.end, error=error)


def _call(signal: Signal, path: str, project: str) -> Response:
    """One API call, or one half of it (an event's or a span's)."""
    attributes = signal.attributes
    start, end = signal.start, signal.end
    duration = _number(attributes.get("duration_ms"))
    if start is None and end is not None and duration is not None:
        start = end - duration / 1000  # an event is logged when the call ended
    ttft = _number(attributes.get("ttft_ms"))
    first = start + ttft / 1000 if start is not None and ttft is not None else None
    request_id = _text(attributes.get("request_id")) or None
    source = _text(attributes.get("query_source"))
    failed = signal.name == "api_error" or attributes.get("success") is False
    cost = _number(attributes.get("cost_usd"))
    tokens = _tokens(attributes)
    return Response(
        SOURCE, _key(signal, request_id, path), TOP_LEVEL, tokens, tokens.cache_write_5m > 0,
        model_name(_text(attributes.get("model"))), PROVIDER,
        _text(attributes.get("session.id")), AGENTS.get(source, Agent.MAIN),
        source or "main", project,
        first, end, start, _text(signal.resource.get("service.version")) or None, path,
        signal.line, error=_error(attributes) if failed else None,
        harness=Harness.CLAUDE_CODE, reported_cost_usd=cost, request_id=request_id,
    )  # fmt: skip


def _key(signal: Signal, request_id: str | None, path: str) -> str:
    """The call's identity: its request id, shared by its event and its span; else the span's
    id, else the event's place and sequence."""
    if request_id:
        return f"otel:{request_id}"
    if signal.kind is Kind.SPAN and signal.span_id:
        return f"otel:span:{signal.span_id}"
    sequence = signal.attributes.get("event.sequence")
    return f"otel:{path}:{signal.line}:{sequence}:{signal.end}"


def _tokens(attributes: dict[str, Any]) -> Tokens:
    """The four counts, in sniff's disjoint classes: Claude Code's are Anthropic's (input
    excludes the cache); the TTL of cache writes is not said, 5 minutes assumed."""
    counts = [
        int(_number(attributes.get(name)) or 0)
        for name in ("input_tokens", "cache_read_tokens", "cache_creation_tokens", "output_tokens")
    ]
    return Tokens(counts[0], counts[1], counts[2], 0, counts[3], 0)


def _error(attributes: dict[str, Any]) -> str:
    status = attributes.get("status_code")
    text = _text(attributes.get("error")) or "API error"
    return f"{status}: {text}" if status not in (None, "") else text


def model_name(model: str) -> str:
    """A model as Claude Code names it, without the context-window mark its spans add
    (`claude-opus-5[1m]`): the model billed is the same."""
    bracket = model.find("[")
    return (model[:bracket] if bracket > 0 else model) or "(unknown)"


def _text(value: object) -> str:
    """A scalar attribute as text; "" for none, a list or a map (hostile or malformed)."""
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, (int, float, bool)) else ""


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(value) if isinstance(value, str) else None
    except ValueError:
        return None
