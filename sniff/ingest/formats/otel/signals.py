"""Provides `signals`: the log records and spans of one OTLP/JSON export request, flattened.

OTLP/JSON nests each record under its resource and scope, and wraps every attribute value in a
typed object (`{"intValue": "7"}`). A `Signal` holds one log record or span with its attributes
and its resource's as plain Python values, its times in epoch seconds and its ids in hex. Ids
are hex by the OTLP/JSON specification; exporters built on protobuf's own JSON mapping write
them in base64 (the Claude Code capture sniff was checked against does): both are read.
Metrics are not flattened: they are sums of the same calls, never counted as requests.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sniff.ingest.plausible import in_range

HEX_ID = re.compile(r"[0-9a-fA-F]{16}(?:[0-9a-fA-F]{16})?")
NANOS = 1e-9
MAX_NANOS = 10**20
"""Far past any date: a longer count is hostile (and its float would overflow)."""


class Kind(StrEnum):
    """What a signal is."""

    LOG = "log"
    SPAN = "span"


@dataclass(frozen=True, slots=True)
class Signal:
    """One log record or span of an OTLP export, flattened."""

    kind: Kind
    name: str
    """A log's event name (`event.name`, else its body), a span's name."""
    attributes: dict[str, Any]
    resource: dict[str, Any]
    """Its resource's attributes (`service.name`, `service.version`, ...)."""
    start: float | None
    """A span's start (epoch seconds); None for a log record."""
    end: float | None
    """A span's end, a log record's time (its observed time where it has none)."""
    trace_id: str
    """Hex; "" when absent."""
    span_id: str
    line: int
    """The line of the file the export request was read from."""


def signals(export: dict[str, Any], line: int) -> Iterator[Signal]:
    """The log records and spans of one `ExportLogsServiceRequest` or
    `ExportTraceServiceRequest` (an `ExportMetricsServiceRequest` yields nothing)."""
    for resource_logs in _list(export.get("resourceLogs")):
        resource = _resource(resource_logs)
        for scope in _list(resource_logs.get("scopeLogs")):
            for record in _list(scope.get("logRecords")):
                yield _log(record, resource, line)
    for resource_spans in _list(export.get("resourceSpans")):
        resource = _resource(resource_spans)
        for scope in _list(resource_spans.get("scopeSpans")):
            for span in _list(scope.get("spans")):
                yield _span(span, resource, line)


def is_export(value: object) -> bool:
    """Whether a decoded JSON value is an OTLP export request of some signal."""
    return isinstance(value, dict) and any(
        isinstance(value.get(key), list)
        for key in ("resourceLogs", "resourceSpans", "resourceMetrics")
    )


def _log(record: dict[str, Any], resource: dict[str, Any], line: int) -> Signal:
    attributes = attribute_map(record.get("attributes"))
    name = attributes.get("event.name") or record.get("eventName") or value_of(record.get("body"))
    when = _seconds(record.get("timeUnixNano")) or _seconds(record.get("observedTimeUnixNano"))
    return Signal(
        Kind.LOG, _short(name), attributes, resource, None, when,
        hex_id(record.get("traceId")), hex_id(record.get("spanId")), line,
    )  # fmt: skip


def _span(span: dict[str, Any], resource: dict[str, Any], line: int) -> Signal:
    return Signal(
        Kind.SPAN, str(span.get("name") or ""), attribute_map(span.get("attributes")), resource,
        _seconds(span.get("startTimeUnixNano")), _seconds(span.get("endTimeUnixNano")),
        hex_id(span.get("traceId")), hex_id(span.get("spanId")), line,
    )  # fmt: skip


def _short(name: object) -> str:
    """An event's name without Claude Code's `claude_code.` prefix (its bodies carry it)."""
    text = name if isinstance(name, str) else ""
    return text.removeprefix("claude_code.")


def _resource(resource_signals: dict[str, Any]) -> dict[str, Any]:
    resource = resource_signals.get("resource")
    return attribute_map(resource.get("attributes")) if isinstance(resource, dict) else {}


def _list(value: object) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def attribute_map(attributes: object) -> dict[str, Any]:
    """OTLP attributes as a dict of plain values: a list of `{key, value}` (the standard), or
    a map of key to value (as some captures write spans' attributes)."""
    if isinstance(attributes, dict):
        return {str(key): value_of(value) for key, value in attributes.items()}
    return {
        item["key"]: value_of(item.get("value"))
        for item in _list(attributes)
        if isinstance(item.get("key"), str)
    }


def value_of(value: object) -> Any:
    """An OTLP `AnyValue` as a plain value (64-bit integers arrive as strings)."""
    if not isinstance(value, dict):
        return value
    for key, item in value.items():
        if key == "stringValue" or key == "boolValue" or key == "doubleValue":
            return item
        if key == "intValue":
            return _integer(item)
        if key == "arrayValue" and isinstance(item, dict):
            return [value_of(element) for element in _list_any(item.get("values"))]
        if key == "kvlistValue" and isinstance(item, dict):
            return attribute_map(item.get("values"))
        if key == "bytesValue":
            return item
    return None


def _list_any(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _integer(value: object) -> int | None:
    try:
        return int(value) if isinstance(value, (int, str)) and not isinstance(value, bool) else None
    except ValueError:
        return None


def _seconds(nanos: object) -> float | None:
    """Epoch seconds from a count of nanoseconds (a string or a number); None for 0, none, or
    a time no log can hold (a hostile count far past any date, or before sniff's)."""
    if isinstance(nanos, float):
        nanos = int(nanos) if math.isfinite(nanos) else None
    count = _integer(nanos)
    if not count or not -MAX_NANOS < count < MAX_NANOS:
        return None
    seconds = count * NANOS
    return seconds if in_range(seconds) else None


def hex_id(value: object) -> str:
    """A trace or span id in lowercase hex, from hex (the specification) or base64."""
    if not isinstance(value, str) or not value:
        return ""
    if HEX_ID.fullmatch(value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return ""
