"""Provides the msgspec schema of GitHub Copilot CLI's `events.jsonl` lines.

Each line is an event `{type, data, id, timestamp, parentId}`; only the fields sniff reads are
declared, and `data` is kept raw until the event's type says which schema it has (most events
are neither usage nor activity). Token counts are `Count`s inside `UsageFields`, so a count
that is no count makes its line implausible instead of counting as 0.
"""

# ruff: noqa: N815 (fields keep the log's camelCase names)

from __future__ import annotations

from typing import TypeVar

import msgspec
import orjson

from sniff.ingest.files.lines import lenient
from sniff.ingest.plausible import IMPLAUSIBLE_USAGE, Count, Implausible, UsageFields, check_depth

AROUND_DATA = 1
"""The objects around an event's `data`: the line's own."""


class Event(msgspec.Struct, gc=False):
    """One line: the event's type, identity and time; its data raw."""

    type: str = ""
    data: msgspec.Raw = msgspec.Raw()
    id: str | None = None
    timestamp: str | None = None


class Context(msgspec.Struct, gc=False):
    cwd: str | None = None


class Start(msgspec.Struct, gc=False):
    """`session.start` and `session.resume`."""

    sessionId: str | None = None
    copilotVersion: str | None = None
    selectedModel: str | None = None
    context: Context | None = None


class ModelChange(msgspec.Struct, gc=False):
    newModel: str | None = None


class TurnStart(msgspec.Struct, gc=False):
    model: str | None = None


class ToolRequest(msgspec.Struct, gc=False):
    toolCallId: str | None = None
    name: str | None = None


class Message(UsageFields, gc=False):
    """`assistant.message`: one model response; of its usage, its output tokens only."""

    messageId: str | None = None
    model: str | None = None
    outputTokens: Count = None
    toolRequests: list[ToolRequest] = []
    parentToolCallId: str | None = None


class CallUsage(UsageFields, gc=False):
    """`assistant.usage`: one call's usage, where a version persists it (it is ephemeral)."""

    model: str | None = None
    apiCallId: str | None = None
    inputTokens: Count = None
    outputTokens: Count = None
    cacheReadTokens: Count = None
    cacheWriteTokens: Count = None
    reasoningTokens: Count = None
    parentToolCallId: str | None = None


class ModelUsage(UsageFields, gc=False):
    """`modelMetrics[model].usage` of a shutdown."""

    inputTokens: Count = None
    outputTokens: Count = None
    cacheReadTokens: Count = None
    cacheWriteTokens: Count = None
    reasoningTokens: Count = None


class Requests(UsageFields, gc=False):
    count: Count = None


class ModelMetric(UsageFields, gc=False):
    """One model's line of a shutdown: its calls (a number, or `{count, cost}`) and usage."""

    requests: Requests | Count = None
    usage: ModelUsage | None = None


class TokenCount(UsageFields, gc=False):
    tokenCount: Count = None


class TokenDetails(UsageFields, gc=False):
    """A shutdown's session-level split, in the shape that gives no usage per model."""

    input: TokenCount | None = None
    output: TokenCount | None = None
    cache_read: TokenCount | None = None
    cache_write: TokenCount | None = None
    reasoning: TokenCount | None = None


class Shutdown(msgspec.Struct, gc=False):
    """`session.shutdown`: the segment's usage per model, and its billing totals."""

    modelMetrics: dict[str, ModelMetric] = {}
    tokenDetails: TokenDetails | None = None
    totalNanoAiu: float | None = None
    currentModel: str | None = None


class ToolStart(msgspec.Struct, gc=False):
    toolCallId: str | None = None
    toolName: str | None = None


class Outcome(msgspec.Struct, gc=False):
    content: str | None = None


class ToolComplete(msgspec.Struct, gc=False):
    toolCallId: str | None = None
    success: bool | None = None
    result: Outcome | None = None


class UserMessage(msgspec.Struct, gc=False):
    content: str | None = None
    parentAgentTaskId: str | None = None


class SessionError(msgspec.Struct, gc=False):
    message: str | None = None
    statusCode: int | None = None


Data = TypeVar("Data", bound=msgspec.Struct)

_DECODERS: dict[type[msgspec.Struct], msgspec.json.Decoder[msgspec.Struct]] = {}


def data_of(event: Event, schema: type[Data]) -> Data:
    """An event's `data` in `schema`; a field of an unexpected type is dropped (`lenient`).

    Raises:
        Implausible: it nests its line too deep, or holds a count that is no count.
    """
    raw = event.data
    if not raw:
        return schema()
    check_depth(raw, AROUND_DATA)
    decoder = _DECODERS.get(schema)
    if decoder is None:
        decoder = _DECODERS[schema] = msgspec.json.Decoder(schema)
    try:
        found: Data = decoder.decode(raw)  # type: ignore[assignment]
        return found
    except msgspec.ValidationError:
        value = orjson.loads(bytes(raw))
    if not isinstance(value, dict):
        raise Implausible("`data` is not an object")
    metrics = value.pop("modelMetrics", None) if schema is Shutdown else None
    read = lenient(schema, value)
    if metrics is None:
        return read
    try:  # a mapping of counts, which `lenient` does not take apart
        by_model = msgspec.convert(metrics, dict[str, ModelMetric])
    except msgspec.ValidationError:
        raise Implausible(IMPLAUSIBLE_USAGE) from None
    return msgspec.structs.replace(read, modelMetrics=by_model)
