"""`sniff otel`'s receiver answers OTLP/HTTP as the specification says and keeps what it
accepts as whole OTLP/JSON lines in daily files: the real server, run in this process on a free
port (a thread), and the real OpenTelemetry SDK's exporters sending to it. Every call has a
timeout: nothing here can hang. (The command itself: test_command.py.)
"""

from __future__ import annotations

import errno
import gzip
import http.client
import json
import queue
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

from sniff.otel_receiver.bodies import Rejected, inflate
from sniff.otel_receiver.files import DailyFiles
from sniff.otel_receiver.server import Receiver, bind, serve
from tests.otel.otlp import SPAN_ID, TIMEOUT, TRACE_ID, lines, logs_json, logs_protobuf, post

LIMIT = 64 * 1024


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    """The real receiver on a free port, writing to `tmp_path / "otel"`, served by a thread."""
    server = bind("127.0.0.1", 0, DailyFiles.prepare(tmp_path / "otel"), LIMIT)
    thread = threading.Thread(target=serve, args=(server,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    thread.join(TIMEOUT)
    assert not thread.is_alive()


def written(server: Receiver) -> list[Path]:
    return sorted(server.files.folder.iterdir())


def test_a_json_body_is_kept_as_one_compact_line(receiver: Receiver) -> None:
    payload = logs_json()
    code, headers, body = post(receiver, "/v1/logs", json.dumps(payload, indent=2).encode())
    assert (code, body) == (200, b"{}")
    assert headers["Content-Type"] == "application/json"
    kept = lines(receiver.files.folder)
    assert len(kept) == 1
    assert json.loads(kept[0]) == payload
    assert b" " not in kept[0].replace(b"claude-code", b"")  # compact
    assert [path.name[:5] for path in written(receiver)] == ["logs-"]


def test_a_protobuf_body_is_kept_as_the_same_otlp_json_with_hex_ids(receiver: Receiver) -> None:
    code, headers, body = post(
        receiver, "/v1/logs", logs_protobuf(), content_type="application/x-protobuf"
    )
    assert code == 200 and headers["Content-Type"] == "application/x-protobuf"
    logs_service_pb2.ExportLogsServiceResponse.FromString(body)  # the response message
    (kept,) = lines(receiver.files.folder)
    assert json.loads(kept) == logs_json()  # hex ids, 64-bit integers as strings, enum numbers


@pytest.mark.parametrize("media", ["application/json", "application/x-protobuf"])
def test_a_gzipped_body_is_inflated(receiver: Receiver, media: str) -> None:
    raw = json.dumps(logs_json()).encode() if "json" in media else logs_protobuf()
    code, _, _ = post(
        receiver, "/v1/logs", gzip.compress(raw), content_type=media, Content_Encoding="gzip"
    )
    assert code == 200
    assert [json.loads(line) for line in lines(receiver.files.folder)] == [logs_json()]


def test_a_chunked_body_is_read(receiver: Receiver) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", receiver.server_address[1], timeout=10)
    data = gzip.compress(logs_protobuf())
    headers = {"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"}
    connection.request("POST", "/v1/logs", body=iter([data[:10], data[10:]]), headers=headers)
    assert connection.getresponse().status == 200
    connection.close()
    assert len(lines(receiver.files.folder)) == 1


@pytest.mark.parametrize(
    ("body", "media", "encoding"),
    [
        (b'{"resourceLogs": [', "application/json", None),
        (b'{"resourceSpans": []}', "application/json", None),
        (b'{"resourceLogs": {}}', "application/json", None),
        (b"[1, 2]", "application/json", None),
        (b"\xff\xfe not utf-8", "application/json", None),
        (b"\xff\xff\xff\xff", "application/x-protobuf", None),
        (b"not gzip at all", "application/json", "gzip"),
        (gzip.compress(b'{"resourceLogs": []}')[:-9], "application/json", "gzip"),
    ],
    ids=["cut-json", "other-signal", "not-a-list", "top-list", "not-utf8", "bad-protobuf",
         "bad-gzip", "cut-gzip"],
)  # fmt: skip
def test_a_body_that_cannot_be_decoded_is_400_and_writes_nothing(
    receiver: Receiver, body: bytes, media: str, encoding: str | None
) -> None:
    headers = {"Content_Encoding": encoding} if encoding else {}
    code, answered, status = post(receiver, "/v1/logs", body, content_type=media, **headers)
    assert code == 400
    assert answered["Content-Type"] == media
    if media == "application/json":
        assert json.loads(status)["code"] == 3  # google.rpc.Status: INVALID_ARGUMENT
    else:
        assert status.startswith(b"\x08\x03\x12")
    assert written(receiver) == []


def test_an_empty_export_answers_200_and_writes_nothing(receiver: Receiver) -> None:
    assert post(receiver, "/v1/logs", b'{"resourceLogs": []}')[0] == 200
    assert post(receiver, "/v1/logs", b"", content_type="application/x-protobuf")[0] == 200
    assert written(receiver) == []


def test_a_body_over_the_limit_is_413_before_it_is_read(receiver: Receiver) -> None:
    code, headers, _ = post(receiver, "/v1/logs", b" " * (LIMIT + 1))
    assert code == 413 and headers["Connection"] == "close"
    assert written(receiver) == []


def test_a_gzip_bomb_is_413_and_never_inflated_past_the_limit(receiver: Receiver) -> None:
    bomb = gzip.compress(b"{" + b" " * (50 * LIMIT) + b"}")
    assert len(bomb) < LIMIT
    code, _, _ = post(receiver, "/v1/logs", bomb, Content_Encoding="gzip")
    assert code == 413
    assert written(receiver) == []
    with pytest.raises(Rejected) as refused:  # and the inflater stops one byte past the limit
        inflate(gzip.compress(bytes(10**8)), "gzip", 1000)
    assert refused.value.status == 413


def test_other_paths_methods_and_types_are_refused(receiver: Receiver) -> None:
    body = json.dumps(logs_json()).encode()
    assert post(receiver, "/v1/profiles", body)[0] == 404
    assert post(receiver, "/", body, method="GET")[0] == 404
    code, headers, _ = post(receiver, "/v1/logs", b"", method="GET")
    assert code == 405 and headers["Allow"] == "POST"
    assert post(receiver, "/v1/traces", body, method="PUT")[0] == 405
    assert post(receiver, "/v1/logs", body, content_type="text/plain")[0] == 415
    assert post(receiver, "/v1/logs", body, Content_Encoding="br")[0] == 415
    assert written(receiver) == []
    # a content type's parameters and a query string change nothing
    assert (
        post(receiver, "/v1/logs?x=1", body, content_type="application/json; charset=utf-8")[0]
        == 200
    )


def test_every_id_of_spans_links_and_exemplars_is_hex(receiver: Receiver) -> None:
    from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
    from opentelemetry.proto.metrics.v1 import metrics_pb2
    from opentelemetry.proto.trace.v1 import trace_pb2

    link = trace_pb2.Span.Link(trace_id=TRACE_ID, span_id=SPAN_ID)
    span = trace_pb2.Span(
        trace_id=TRACE_ID, span_id=SPAN_ID, parent_span_id=SPAN_ID[::-1], name="s", links=[link]
    )
    traces = trace_service_pb2.ExportTraceServiceRequest(
        resource_spans=[trace_pb2.ResourceSpans(scope_spans=[trace_pb2.ScopeSpans(spans=[span])])]
    )
    exemplar = metrics_pb2.Exemplar(trace_id=TRACE_ID, span_id=SPAN_ID, as_int=7)
    point = metrics_pb2.NumberDataPoint(as_int=2**40, exemplars=[exemplar])
    metric = metrics_pb2.Metric(name="m", sum=metrics_pb2.Sum(data_points=[point]))
    metrics = metrics_service_pb2.ExportMetricsServiceRequest(
        resource_metrics=[
            metrics_pb2.ResourceMetrics(scope_metrics=[metrics_pb2.ScopeMetrics(metrics=[metric])])
        ]
    )
    for path, request in (("/v1/traces", traces), ("/v1/metrics", metrics)):
        body = request.SerializeToString()
        assert post(receiver, path, body, content_type="application/x-protobuf")[0] == 200
    (trace_line,) = lines(receiver.files.folder, "traces")
    kept = json.loads(trace_line)["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    assert (kept["traceId"], kept["spanId"]) == (TRACE_ID.hex(), SPAN_ID.hex())
    assert kept["parentSpanId"] == SPAN_ID[::-1].hex()
    assert kept["links"] == [{"traceId": TRACE_ID.hex(), "spanId": SPAN_ID.hex()}]
    (metric_line,) = lines(receiver.files.folder, "metrics")
    sent = json.loads(metric_line)["resourceMetrics"][0]["scopeMetrics"][0]["metrics"][0]
    (kept_point,) = sent["sum"]["dataPoints"]
    assert kept_point["asInt"] == str(2**40)
    assert kept_point["exemplars"] == [
        {"traceId": TRACE_ID.hex(), "spanId": SPAN_ID.hex(), "asInt": "7"}
    ]


def test_a_body_that_cannot_be_written_is_503_so_the_sender_retries(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(signal_name: str, line: bytes) -> Path:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(receiver.files, "append", full)
    code, _, status = post(receiver, "/v1/logs", json.dumps(logs_json()).encode())
    assert code == 503 and json.loads(status)["code"] == 14  # UNAVAILABLE
    assert written(receiver) == []


def test_sixty_concurrent_posts_give_sixty_whole_lines(receiver: Receiver) -> None:
    answers: queue.Queue[int] = queue.Queue()

    def send(number: int) -> None:
        payload = json.dumps(logs_json(f"body {number} " + "x" * (number * 97))).encode()
        answers.put(post(receiver, "/v1/logs", payload)[0])

    threads = [threading.Thread(target=send, args=(number,)) for number in range(60)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    assert sorted(answers.get_nowait() for _ in range(60)) == [200] * 60
    kept = [json.loads(line) for line in lines(receiver.files.folder)]
    markers = {
        entry["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]["body"]["stringValue"].split()[1]
        for entry in kept
    }
    assert len(kept) == 60 and markers == {str(number) for number in range(60)}


def test_a_line_a_crash_cut_short_is_ended_before_the_next(receiver: Receiver) -> None:
    post(receiver, "/v1/logs", json.dumps(logs_json()).encode())
    (path,) = written(receiver)
    with path.open("ab") as file:
        file.write(b'{"resourceLogs": [{"cut')
    post(receiver, "/v1/logs", json.dumps(logs_json("after")).encode())
    kept = path.read_bytes().splitlines()
    assert len(kept) == 3 and kept[1] == b'{"resourceLogs": [{"cut'
    assert json.loads(kept[2]) == logs_json("after")


def send_through_the_sdk(port: int) -> tuple[int, int]:
    """A span and a log record within it, as Claude Code sends them, through the OpenTelemetry
    SDK's OTLP/HTTP exporters (the span's gzipped); the span's trace and span ids."""
    from opentelemetry._logs import LogRecord, SeverityNumber
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    base = f"http://127.0.0.1:{port}"
    resource = Resource.create({"service.name": "claude-code"})
    spans = OTLPSpanExporter(
        endpoint=f"{base}/v1/traces", timeout=TIMEOUT, compression=Compression.Gzip
    )
    tracing = TracerProvider(resource=resource)
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    logging_ = LoggerProvider(resource=resource)
    logs = OTLPLogExporter(endpoint=f"{base}/v1/logs", timeout=TIMEOUT)
    logging_.add_log_record_processor(SimpleLogRecordProcessor(logs))
    attributes = {"model": "claude-sonnet-4-5", "input_tokens": 1234, "ttft_ms": 812.5}
    try:
        tracer = tracing.get_tracer("com.anthropic.claude_code")
        with tracer.start_as_current_span(
            "claude_code.llm_request", attributes={**attributes, "session.id": "s-1"}
        ) as span:
            logging_.get_logger("com.anthropic.claude_code").emit(
                LogRecord(
                    body="claude_code.api_request",
                    severity_number=SeverityNumber.INFO,
                    attributes={"session.id": "s-1", "input_tokens": 1234},
                )
            )
    finally:
        tracing.shutdown()
        logging_.shutdown()
    context = span.get_span_context()
    return context.trace_id, context.span_id


def test_the_opentelemetry_sdk_exporters_land_as_lines(receiver: Receiver) -> None:
    trace_id, span_id = send_through_the_sdk(receiver.server_address[1])
    (trace_line,) = lines(receiver.files.folder, "traces")
    resource_spans = json.loads(trace_line)["resourceSpans"][0]
    (sent,) = resource_spans["scopeSpans"][0]["spans"]
    assert sent["name"] == "claude_code.llm_request"
    assert sent["traceId"] == format(trace_id, "032x")
    assert sent["spanId"] == format(span_id, "016x")
    values = {item["key"]: item["value"] for item in sent["attributes"]}
    assert values == {
        "model": {"stringValue": "claude-sonnet-4-5"},
        "input_tokens": {"intValue": "1234"},
        "ttft_ms": {"doubleValue": 812.5},
        "session.id": {"stringValue": "s-1"},
    }
    service = {"key": "service.name", "value": {"stringValue": "claude-code"}}
    assert service in resource_spans["resource"]["attributes"]
    (log_line,) = lines(receiver.files.folder, "logs")
    (record,) = json.loads(log_line)["resourceLogs"][0]["scopeLogs"][0]["logRecords"]
    assert record["body"] == {"stringValue": "claude_code.api_request"}
    assert record["traceId"] == sent["traceId"] and record["spanId"] == sent["spanId"]
    assert record["attributes"] == [
        {"key": "session.id", "value": {"stringValue": "s-1"}},
        {"key": "input_tokens", "value": {"intValue": "1234"}},
    ]
