"""Provides `StreamTiming`: a server-sent event stream read as it passes, for when its content
began and how it flowed: the response id, the first content delta, the first visible one, and
the gaps between successive deltas.

Why incremental: the proxy forwards each chunk the moment it arrives and reads it after, so a
chunk may end anywhere (mid-line, mid-character, between `\\r` and `\\n`); events are split on
blank lines as the bytes come, and an event's time is when its last byte arrived.

What counts as content, by the shape of each event's JSON (one parser serves every API):
Anthropic's `content_block_delta` of any kind (text, thinking, tool input); OpenAI Chat's
`choices[].delta` with `content`, `tool_calls` or `reasoning_content`; OpenAI Responses'
`response.output_text.delta`, `response.reasoning*.delta`, tool-argument deltas. Visible: the
first text (after any thinking); else the first tool input.
"""

from __future__ import annotations

from array import array
from typing import Any

import orjson

TEXT, THINKING, TOOL, OTHER = "text", "thinking", "tool", "other"
"""The kinds of content delta."""
MAX_EVENT = 32 * 1024 * 1024
"""The most of one event's data held while it is incomplete; a larger one is skipped."""

ANTHROPIC_DELTAS = {
    "text_delta": TEXT,
    "citations_delta": TEXT,
    "thinking_delta": THINKING,
    "signature_delta": THINKING,
    "input_json_delta": TOOL,
}
RESPONSES_DELTAS = {
    "response.output_text.delta": TEXT,
    "response.refusal.delta": TEXT,
    "response.function_call_arguments.delta": TOOL,
    "response.custom_tool_call_input.delta": TOOL,  # Codex's freeform tools (apply_patch)
    "response.mcp_call_arguments.delta": TOOL,
}
LAST_EVENTS = frozenset(
    {"message_stop", "response.completed", "response.incomplete", "response.failed"}
)
"""The events that end an Anthropic or OpenAI Responses stream (Chat's ends with `[DONE]`)."""


class StreamTiming:
    """What one stream's events told so far: `response_id`, `first_token_at`,
    `first_visible_at`, and `delta_times` (when each content delta arrived)."""

    def __init__(self) -> None:
        self.response_id: str | None = None
        self.done_at: float | None = None
        """When the stream's last event came (`message_stop`, `[DONE]`, `response.completed`):
        a client that leaves after it (the SDKs close at once) had the whole answer."""
        self.first_token_at: float | None = None
        self.first_text_at: float | None = None
        self.first_tool_at: float | None = None
        self.delta_times = array("d")  # 8 bytes a delta: a long stream stays small
        self._partial: list[bytes] = []
        self._partial_size = 0
        self._data: list[bytes] = []
        self._data_size = 0

    @property
    def first_visible_at(self) -> float | None:
        """The first text delta; else, for an answer of tool calls only, the first tool input."""
        return self.first_text_at if self.first_text_at is not None else self.first_tool_at

    def feed(self, chunk: bytes, at: float) -> None:
        """Read a chunk of the stream (decoded) that arrived at `at` (epoch seconds)."""
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._hold(chunk[start:])
                return
            line = chunk[start:end]
            if self._partial_size:
                overlong = self._partial_size + len(line) > MAX_EVENT
                line = b"".join([*self._partial, line])
                self._partial.clear()
                self._partial_size = 0
                if overlong:  # its event is skipped whole: a cut payload parses to nothing
                    self._data_size = MAX_EVENT + 1
                    line = b"data:"
            self._line(line[:-1] if line.endswith(b"\r") else line, at)
            start = end + 1

    def finish(self, at: float) -> None:
        """The stream ended: an event not followed by a blank line still counts."""
        if self._partial_size:
            self.feed(b"\n", at)
        self._line(b"", at)

    def _hold(self, rest: bytes) -> None:
        """Keep the start of a line the next chunk ends (dropped past `MAX_EVENT`)."""
        if not rest:
            return
        self._partial_size += len(rest)
        if self._partial_size <= MAX_EVENT:
            self._partial.append(rest)

    def _line(self, line: bytes, at: float) -> None:
        if not line:  # a blank line ends the event
            if self._data or self._data_size:
                data = b"\n".join(self._data) if self._data_size <= MAX_EVENT else b""
                self._data.clear()
                self._data_size = 0
                self._event(data, at)
            return
        if line.startswith(b"data:"):
            value = line[5:]
            value = value[1:] if value.startswith(b" ") else value
            self._data_size += len(value)
            if self._data_size <= MAX_EVENT:
                self._data.append(value)
        # `event:`, `id:`, `retry:` and comments add nothing: each payload says its own type

    def _event(self, data: bytes, at: float) -> None:
        if data == b"[DONE]":
            self.done_at = at
        if not data or data == b"[DONE]":
            return
        try:
            payload = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        if not isinstance(payload, dict):
            return
        if self.response_id is None:
            self.response_id = event_id(payload)
        if payload.get("type") in LAST_EVENTS:
            self.done_at = at
        for kind in delta_kinds(payload):
            self._delta(kind, at)

    def _delta(self, kind: str, at: float) -> None:
        self.delta_times.append(at)
        if self.first_token_at is None:
            self.first_token_at = at
        if kind == TEXT and self.first_text_at is None:
            self.first_text_at = at
        elif kind == TOOL and self.first_tool_at is None:
            self.first_tool_at = at


def event_id(payload: dict[str, Any]) -> str | None:
    """The response id an event carries: Anthropic's `message_start`, OpenAI Responses'
    `response.created` (or any event holding the response), an OpenAI Chat chunk's `id`."""
    kind = payload.get("type")
    holder: Any = None
    if kind == "message_start":
        holder = payload.get("message")
    elif isinstance(kind, str) and kind.startswith("response."):
        holder = payload.get("response")
    elif isinstance(payload.get("choices"), list):
        holder = payload
    found = holder.get("id") if isinstance(holder, dict) else None
    return found if isinstance(found, str) and found else None


def delta_kinds(payload: dict[str, Any]) -> list[str]:
    """The content deltas one event holds (a Chat chunk may hold several choices')."""
    kind = payload.get("type")
    if kind == "content_block_delta":
        delta = payload.get("delta")
        delta_type = delta.get("type") if isinstance(delta, dict) else None
        return [ANTHROPIC_DELTAS.get(str(delta_type), OTHER)]
    if isinstance(kind, str):
        if kind in RESPONSES_DELTAS:
            return [RESPONSES_DELTAS[kind]]
        if kind.startswith("response.reasoning") and kind.endswith(".delta"):
            return [THINKING]
        return []
    choices = payload.get("choices")
    if not isinstance(choices, list):
        return []
    return [kind for choice in choices if (kind := _chat_delta(choice)) is not None]


def _chat_delta(choice: Any) -> str | None:
    """The kind of one Chat choice's delta; None when it holds no content (a role, a finish)."""
    delta = choice.get("delta") if isinstance(choice, dict) else None
    if not isinstance(delta, dict):
        return None
    if delta.get("content"):
        return TEXT
    if delta.get("tool_calls"):
        return TOOL
    if delta.get("reasoning_content") or delta.get("reasoning"):
        return THINKING
    return None


def gap_summary(times: array[float] | list[float]) -> dict[str, float | int] | None:
    """The gaps between successive deltas, in seconds: count, mean, median, 90th percentile
    and largest (None for fewer than two deltas)."""
    if len(times) < 2:
        return None
    gaps = sorted(max(b - a, 0.0) for a, b in zip(times, times[1:], strict=False))
    return {
        "count": len(gaps),
        "mean_s": round(sum(gaps) / len(gaps), 6),
        "p50_s": round(_percentile(gaps, 0.5), 6),
        "p90_s": round(_percentile(gaps, 0.9), 6),
        "max_s": round(gaps[-1], 6),
    }


def _percentile(ordered: list[float], share: float) -> float:
    """The `share` quantile of sorted values, interpolated between the two nearest ranks."""
    position = share * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
