"""Provides the reading of one OTLP/HTTP request's body: inflated within a size limit, decoded,
checked, and turned into the one OTLP/JSON line that is kept, and the answers the sender expects.

The line has the shape the OpenTelemetry Collector's file exporter writes: one whole
`Export<Signal>ServiceRequest` as OTLP/JSON (lowerCamelCase keys, enums as integers, 64-bit
integers as strings, trace and span ids as lowercase hex). A JSON body is kept as it came
(re-serialised compactly); a protobuf body is converted to that shape.
"""

from __future__ import annotations

import base64
import binascii
import zlib
from dataclasses import dataclass
from typing import Any

import orjson
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

JSON = "application/json"
PROTOBUF = "application/x-protobuf"
MEDIA_TYPES = (JSON, PROTOBUF)
ID_KEYS = frozenset({"traceId", "spanId", "parentSpanId"})
"""The bytes fields OTLP/JSON writes as hex, not base64 (in spans, links, log records and
metric exemplars alike)."""


@dataclass(frozen=True)
class Signal:
    """One kind of telemetry: its name in file names, its top-level list in OTLP/JSON (and
    protobuf field), and its request and response messages."""

    name: str
    key: str
    field: str
    request: type[Message]
    response: type[Message]


SIGNALS = {
    "/v1/logs": Signal(
        "logs",
        "resourceLogs",
        "resource_logs",
        logs_service_pb2.ExportLogsServiceRequest,
        logs_service_pb2.ExportLogsServiceResponse,
    ),
    "/v1/traces": Signal(
        "traces",
        "resourceSpans",
        "resource_spans",
        trace_service_pb2.ExportTraceServiceRequest,
        trace_service_pb2.ExportTraceServiceResponse,
    ),
    "/v1/metrics": Signal(
        "metrics",
        "resourceMetrics",
        "resource_metrics",
        metrics_service_pb2.ExportMetricsServiceRequest,
        metrics_service_pb2.ExportMetricsServiceResponse,
    ),
}
"""The OTLP/HTTP paths and the signal each receives."""

GRPC_CODES = {400: 3, 404: 5, 405: 12, 411: 3, 413: 8, 415: 12, 503: 14}
"""The google.rpc code a refusal's `Status` carries: INVALID_ARGUMENT, NOT_FOUND,
UNIMPLEMENTED, RESOURCE_EXHAUSTED, UNAVAILABLE (2, UNKNOWN, for any other)."""


class Rejected(Exception):
    """A request refused: the HTTP status to answer and why (never a part of the body)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def media_type(header: str | None) -> str:
    """The media type of a Content-Type header, without parameters, in lower case."""
    return (header or "").split(";", 1)[0].strip().lower()


def inflate(raw: bytes, encoding: str | None, limit: int) -> bytes:
    """The body as sent, after its Content-Encoding (none, identity or gzip).

    Raises:
        Rejected: 415 for another encoding, 400 for broken gzip, 413 when the inflated body
            would pass `limit` bytes (it is never inflated further than that).
    """
    coding = (encoding or "identity").strip().lower()
    if coding == "identity":
        return raw
    if coding not in ("gzip", "x-gzip"):
        raise Rejected(415, f"unsupported Content-Encoding {coding!r}: send gzip or none")
    inflated = bytearray()
    rest = raw
    while True:  # a gzip stream may hold several members, one after another
        inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        try:  # at most one byte past the limit: enough to know it is passed
            inflated += inflater.decompress(rest, limit + 1 - len(inflated))
        except zlib.error as error:
            raise Rejected(400, "the body is not valid gzip") from error
        if len(inflated) > limit:
            raise Rejected(413, f"the inflated body is over the limit of {limit} bytes")
        if not inflater.eof:  # all the input was read and the member did not end
            raise Rejected(400, "the gzip body is truncated")
        rest = inflater.unused_data
        if not rest:
            return bytes(inflated)


def to_line(signal: Signal, media: str, body: bytes) -> bytes | None:
    """The OTLP/JSON line (ending with a newline) to keep for `body`, or None for an export
    that holds nothing (an empty list: nothing was received).

    Raises:
        Rejected: 400, the body cannot be decoded, or is JSON without the signal's list.
    """
    if media == JSON:
        return _from_json(signal, body)
    return _from_protobuf(signal, body)


def _from_json(signal: Signal, body: bytes) -> bytes | None:
    try:
        tree = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise Rejected(400, "the body is not valid JSON") from error
    if not isinstance(tree, dict) or not isinstance(tree.get(signal.key), list):
        raise Rejected(400, f"the JSON body has no {signal.key} list at its top")
    if not tree[signal.key]:
        return None
    return orjson.dumps(tree) + b"\n"


def _from_protobuf(signal: Signal, body: bytes) -> bytes | None:
    message = signal.request()
    try:
        message.ParseFromString(body)
    # Why so wide: what a parser raises on hostile bytes differs between protobuf's backends
    # (upb, C++, pure Python), and every such body is the sender's fault
    except Exception as error:
        raise Rejected(400, f"the body is not a protobuf {signal.request.__name__}") from error
    if not getattr(message, signal.field):
        return None
    tree = MessageToDict(message, use_integers_for_enums=True)
    _hex_ids(tree)
    return orjson.dumps(tree) + b"\n"


def _hex_ids(node: Any) -> None:
    """Turn every trace and span id in `node` from proto3 JSON's base64 into OTLP/JSON's hex.

    Why a walk over all of it: ids sit at several depths (spans, their links, log records,
    metric exemplars), and no other key of an OTLP message bears those names (attributes are
    `{"key": ..., "value": ...}` lists, so a user's attribute cannot be mistaken for one).
    """
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ID_KEYS and isinstance(value, str):
                try:
                    node[key] = base64.b64decode(value, validate=True).hex()
                except binascii.Error:  # MessageToDict writes base64: kept as it is otherwise
                    continue
            else:
                _hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            _hex_ids(item)


def accepted(signal: Signal, media: str) -> bytes:
    """The body of a 200: an empty `Export<Signal>ServiceResponse` (a full success, no partial
    success to report) in the request's encoding."""
    if media == JSON:
        return b"{}"
    return signal.response().SerializeToString()


def status(media: str, code: int, reason: str) -> bytes:
    """The body of a refusal as the OTLP/HTTP specification asks: a `google.rpc.Status` with
    the gRPC code matching HTTP status `code` and `reason`, in the request's encoding (JSON
    for a request in neither).

    Why by hand: the message has two scalar fields, and its generated class lives in a package
    (googleapis-common-protos) the receiver would need for nothing else.
    """
    grpc_code = GRPC_CODES.get(code, 2)
    if media != PROTOBUF:
        return orjson.dumps({"code": grpc_code, "message": reason})
    text = reason.encode()
    return b"\x08" + _varint(grpc_code) + b"\x12" + _varint(len(text)) + text


def _varint(number: int) -> bytes:
    """`number` (not negative) as a protobuf base-128 varint."""
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)
