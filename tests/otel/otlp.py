"""What the receiver's tests send and read: requests, the daily files' lines, and one logs
export built both as OTLP/JSON and as protobuf (the same request, so the two can be compared)."""

from __future__ import annotations

import http.client
from http.server import HTTPServer
from pathlib import Path
from typing import Any

from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.logs.v1 import logs_pb2
from opentelemetry.proto.resource.v1 import resource_pb2

TIMEOUT = 10.0
TRACE_ID = bytes.fromhex("5b8efff798038103d269b633813fc60c")
SPAN_ID = bytes.fromhex("eee19b7ec3c1b174")


def post(
    server: HTTPServer | int,
    path: str,
    body: bytes,
    content_type: str = "application/json",
    method: str = "POST",
    **headers: str,
) -> tuple[int, dict[str, str], bytes]:
    """Send one request; its status, headers and body."""
    port = server if isinstance(server, int) else server.server_address[1]
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        named = {name.replace("_", "-"): value for name, value in headers.items()}
        sent = {"Content-Type": content_type, **named}
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def lines(folder: Path, signal_name: str = "logs") -> list[bytes]:
    """The lines of every daily file of `signal_name` in `folder` (each must end whole)."""
    found: list[bytes] = []
    for path in sorted(folder.glob(f"{signal_name}-*.jsonl")):
        data = path.read_bytes()
        assert data == b"" or data.endswith(b"\n"), f"{path.name} ends with a cut line"
        found += data.splitlines()
    return found


def logs_json(marker: str = "hello") -> dict[str, Any]:
    """An ExportLogsServiceRequest in OTLP/JSON, the same as `logs_protobuf(marker)`."""
    record = {
        "timeUnixNano": "1767225600000000000",
        "severityNumber": 9,
        "severityText": "INFO",
        "body": {"stringValue": marker},
        "attributes": [
            {"key": "event.name", "value": {"stringValue": "claude_code.api_request"}},
            {"key": "input_tokens", "value": {"intValue": "1234"}},
        ],
        "traceId": TRACE_ID.hex(),
        "spanId": SPAN_ID.hex(),
    }
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "claude-code"}}]}
    scope = {"scope": {"name": "com.anthropic.claude_code"}, "logRecords": [record]}
    return {"resourceLogs": [{"resource": resource, "scopeLogs": [scope]}]}


def logs_protobuf(marker: str = "hello") -> bytes:
    """The same request as `logs_json(marker)`, built with opentelemetry-proto's classes."""
    record = logs_pb2.LogRecord(
        time_unix_nano=1767225600000000000,
        severity_number=logs_pb2.SEVERITY_NUMBER_INFO,
        severity_text="INFO",
        body=common_pb2.AnyValue(string_value=marker),
        attributes=[
            common_pb2.KeyValue(
                key="event.name",
                value=common_pb2.AnyValue(string_value="claude_code.api_request"),
            ),
            common_pb2.KeyValue(key="input_tokens", value=common_pb2.AnyValue(int_value=1234)),
        ],
        trace_id=TRACE_ID,
        span_id=SPAN_ID,
    )
    resource = resource_pb2.Resource(
        attributes=[
            common_pb2.KeyValue(
                key="service.name", value=common_pb2.AnyValue(string_value="claude-code")
            )
        ]
    )
    scope = logs_pb2.ScopeLogs(
        scope=common_pb2.InstrumentationScope(name="com.anthropic.claude_code"),
        log_records=[record],
    )
    request = logs_service_pb2.ExportLogsServiceRequest(
        resource_logs=[logs_pb2.ResourceLogs(resource=resource, scope_logs=[scope])]
    )
    return request.SerializeToString()
