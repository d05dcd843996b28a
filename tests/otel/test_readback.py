"""What `sniff otel` receives, a plain `sniff scan` with the same home reads back exactly: the
real Claude Code capture posted as JSON and, re-encoded, as protobuf (the numbers of the capture's
own files); calls sent by the OpenTelemetry SDK's exporters; 60 calls posted at once."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from typer.testing import CliRunner

from sniff.cli import app
from sniff.otel_receiver.files import DailyFiles
from sniff.otel_receiver.server import Receiver, bind, serve
from sniff.paths import otel_folder
from tests.conftest import SHARED
from tests.otel.otlp import TIMEOUT, post

CAPTURE = SHARED / "otel-samples" / "erinn" / "observe" / "otel" / "otlp" / "testdata"
CAPTURE = CAPTURE / "golden_capture"
SIGNALS = {"logs": logs_service_pb2.ExportLogsServiceRequest,
           "traces": trace_service_pb2.ExportTraceServiceRequest,
           "metrics": metrics_service_pb2.ExportMetricsServiceRequest}  # fmt: skip
needs_capture = pytest.mark.skipif(not CAPTURE.is_dir(), reason=f"no capture at {CAPTURE}")


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """The real receiver on a free port, writing where every command reads by default."""
    server = bind("127.0.0.1", 0, DailyFiles.prepare(otel_folder()), 16 << 20)
    thread = threading.Thread(target=serve, args=(server,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    thread.join(TIMEOUT)


def sniff_json(*arguments: str) -> dict[str, Any]:
    """A plain command: no path, so the usual folders, the received files among them."""
    result = CliRunner().invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    if "source" in found:  # what was received, not the bundled samples shown when none is
        assert found["source"]["sample_logs"] is False
    return found


def numbers(report: dict[str, Any]) -> tuple[Any, ...]:
    return report["totals"], report["by_model"], report["by_harness"], report["source"]["telemetry"]


@needs_capture
@pytest.mark.parametrize("encoding", ["json", "protobuf"])
def test_the_capture_posted_reads_back_as_its_files_do(
    receiver: Receiver, tmp_path: Path, encoding: str
) -> None:
    for name, message in SIGNALS.items():
        text = (CAPTURE / f"{name}.json").read_text()
        if encoding == "json":
            status = post(receiver, f"/v1/{name}", text.encode())[0]
        else:  # the capture's ids are base64, as protobuf's JSON mapping reads them
            body = json_format.Parse(text, message()).SerializeToString()
            status = post(receiver, f"/v1/{name}", body, "application/x-protobuf")[0]
        assert status == 200
    received = sniff_json("scan")
    direct = CliRunner().invoke(app, ["scan", "--json", str(CAPTURE)])
    assert numbers(received) == numbers(json.loads(direct.stdout))
    assert received["totals"]["requests"] == 1
    timed = sniff_json("latency")
    assert (timed["exact"], timed["percentiles"]["min"]) == (1, pytest.approx(2.011))


def send_through_the_sdk(port: int, calls: int) -> None:
    """`calls` calls as Claude Code reports them (a span and an event each, one request id),
    through the OpenTelemetry SDK's OTLP/HTTP exporters."""
    from opentelemetry._logs import LogRecord
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    base = f"http://127.0.0.1:{port}"
    resource = Resource.create({"service.name": "claude-code", "service.version": "2.1.224"})
    tracing = TracerProvider(resource=resource)
    tracing.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{base}/v1/traces", timeout=TIMEOUT))
    )
    logging_ = LoggerProvider(resource=resource)
    logging_.add_log_record_processor(
        SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"{base}/v1/logs", timeout=TIMEOUT))
    )
    try:
        for number in range(calls):
            tokens = {"session.id": "s-1", "model": "claude-sonnet-4-5-20250929",
                      "input_tokens": 10 + number, "output_tokens": 100, "cache_read_tokens": 2000,
                      "cache_creation_tokens": 300, "request_id": f"req_sdk{number}"}  # fmt: skip
            span = tracing.get_tracer("com.anthropic.claude_code.tracing").start_span(
                "claude_code.llm_request", attributes={**tokens, "ttft_ms": 900}
            )
            span.end()
            logging_.get_logger("com.anthropic.claude_code.events").emit(
                LogRecord(
                    body="claude_code.api_request",
                    attributes={
                        **tokens,
                        "event.name": "api_request",
                        "cost_usd": 0.01,
                        "duration_ms": 1200,
                    },
                )  # fmt: skip
            )
    finally:
        tracing.shutdown()
        logging_.shutdown()


def test_calls_sent_by_the_sdk_read_back_one_each(receiver: Receiver) -> None:
    send_through_the_sdk(receiver.server_address[1], 3)
    report = sniff_json("scan")
    totals = report["totals"]
    assert (totals["requests"], totals["input_tokens"], totals["output_tokens"]) == (3, 33, 300)
    assert report["by_harness"][0]["reported_cost_usd"] == pytest.approx(0.03)
    assert sniff_json("latency")["exact"] == 3


def api_request(number: int) -> bytes:
    """One distinct `api_request` event, as OTLP/JSON."""
    attributes = [{"key": key, "value": value} for key, value in {
        "event.name": {"stringValue": "api_request"}, "session.id": {"stringValue": "s-60"},
        "model": {"stringValue": "claude-haiku-4-5-20251001"},
        "input_tokens": {"intValue": str(number + 1)}, "output_tokens": {"intValue": "7"},
        "request_id": {"stringValue": f"req_burst{number}"},
        "duration_ms": {"intValue": "300"}}.items()]  # fmt: skip
    record = {"timeUnixNano": str(1_790_000_000_000_000_000 + number * 10**9),
              "attributes": attributes}  # fmt: skip
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": "claude-code"}}]}
    export = {"resourceLogs": [{"resource": resource, "scopeLogs": [{"logRecords": [record]}]}]}
    return json.dumps(export).encode()


def test_sixty_calls_posted_at_once_are_sixty_more_requests(receiver: Receiver) -> None:
    send_through_the_sdk(receiver.server_address[1], 1)
    before = sniff_json("scan")["totals"]["requests"]
    with ThreadPoolExecutor(max_workers=12) as pool:
        sent = pool.map(lambda number: post(receiver, "/v1/logs", api_request(number)), range(60))
        statuses = [status for status, _, _ in sent]
    assert statuses == [200] * 60
    after = sniff_json("scan")["totals"]
    assert after["requests"] == before + 60
    assert after["input_tokens"] == 10 + sum(range(1, 61))
