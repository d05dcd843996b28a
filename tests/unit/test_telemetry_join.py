"""Claude Code's OpenTelemetry read beside its transcripts: each call counted once, joined by
request id or by model, tokens and start within 2 s; the agent's times (time to first token
from its span, counted exact) and cost; telemetry alone; hostile lines skipped and counted;
what an index extends equal to a whole scan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import Lines
from tests.unit.test_otel_genai import attributes as otlp_attributes

runner = CliRunner()
START = 1_775_000_000.0  # 2026-03-31T23:33:20Z
SESSION = Lines.SESSION


def attributes(**values: Any) -> list[dict[str, Any]]:
    """OTLP attributes, named with `__` for `.` (`session__id`: `session.id`)."""
    return otlp_attributes({key.replace("__", "."): item for key, item in values.items()})


RESOURCE = {"attributes": attributes(service__name="claude-code", service__version="2.1.224")}
TOKENS = {"input_tokens": 10, "output_tokens": 50, "cache_read_tokens": 5000,
          "cache_creation_tokens": 300}  # fmt: skip


def event(at: float, request_id: str, cost: float = 0.0123, **extra: Any) -> dict[str, Any]:
    """An `api_request` log export of Claude Code, logged at `at` (the call's end)."""
    values = {"event__name": "api_request", "session__id": SESSION, "model": Lines.SONNET_4,
              **TOKENS, "cost_usd": cost, "duration_ms": 4000, "request_id": request_id,
              "query_source": "main", **extra}  # fmt: skip
    body = {"stringValue": "claude_code.api_request"}
    record = {"timeUnixNano": str(int(at * 1e9)), "body": body, "attributes": attributes(**values)}
    return {"resourceLogs": [{"resource": RESOURCE, "scopeLogs": [{"logRecords": [record]}]}]}


def span(start: float, request_id: str, ttft_ms: int = 1500) -> dict[str, Any]:
    """A `claude_code.llm_request` span export (ids in base64, as protobuf's JSON writes them)."""
    values = {"session__id": SESSION, "model": Lines.SONNET_4 + "[1m]", **TOKENS,
              "ttft_ms": ttft_ms, "duration_ms": 4000, "request_id": request_id}  # fmt: skip
    item = {
        "traceId": "qqqqqqqqqqqqqqqqqqqqqg==",
        "spanId": "BAQEBAQEBAQ=",
        "name": "claude_code.llm_request",
        "startTimeUnixNano": str(int(start * 1e9)),
        "endTimeUnixNano": str(int((start + 4) * 1e9)),
        "attributes": attributes(**values),
    }
    return {"resourceSpans": [{"resource": RESOURCE, "scopeSpans": [{"spans": [item]}]}]}


def iso(at: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def transcript(folder: Path, cc: type[Lines], request_id: str = "req_t1") -> Path:
    """One call: asked at START, its one line written 3 s later."""
    usage = cc.usage(input=10, read=5000, write=300, output=50, split=(0, 300))
    return cc.write(folder / "session.jsonl", [
        cc.user("u1", None, iso(START)),
        cc.assistant("msg_1", "a1", "u1", iso(START + 3), usage, request_id=request_id),
    ])  # fmt: skip


def scan(folder: Path, *extra: str) -> dict[str, Any]:
    result = runner.invoke(app, ["scan", "--json", *extra, str(folder)])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def latency(folder: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["latency", "--json", str(folder)])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def write_lines(path: Path, exports: list[dict[str, Any] | str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((json.dumps(e) if isinstance(e, dict) else e) + "\n" for e in exports)
    path.write_text(text)
    return path


def test_a_call_in_both_is_one_request_joined_by_request_id(
    tmp_path: Path, cc: type[Lines]
) -> None:
    transcript(tmp_path, cc, request_id="req_same")
    # logged 9 s after the transcript's start: too far for the second rule; the id joins them
    write_lines(tmp_path / "otel" / "logs.jsonl", [event(START + 9, "req_same")])
    found = scan(tmp_path)
    assert found["totals"]["requests"] == 1
    assert found["source"]["telemetry"] == {
        "joined_by_request_id": 1,
        "joined_by_tokens_and_time": 0,
        "telemetry_only": 0,
    }
    (harness,) = found["by_harness"]
    assert harness["reported_cost_usd"] == pytest.approx(0.0123)
    # the transcript's own tokens stay (its cache writes say their TTL; telemetry's do not)
    assert found["warnings"]["ttl_assumed_requests"] == 0


def test_without_a_shared_id_model_tokens_and_start_within_2s_join(
    tmp_path: Path, cc: type[Lines]
) -> None:
    transcript(tmp_path, cc)
    write_lines(tmp_path / "t" / "traces.jsonl", [span(START + 0.4, "req_other")])
    write_lines(tmp_path / "t" / "logs.jsonl", [event(START + 4.4, "req_other", cost=0.02)])
    found = scan(tmp_path)
    assert found["totals"]["requests"] == 1
    assert found["source"]["telemetry"]["joined_by_tokens_and_time"] == 1
    timed = latency(tmp_path)
    assert (timed["count"], timed["exact"]) == (1, 1)
    assert timed["percentiles"]["p50"] == pytest.approx(1.5)  # the span's, not the line's 3 s
    assert any("sniff's estimate" in note and "3.000 s" in note for note in timed["notes"])


@pytest.mark.parametrize(("apart", "tokens", "joined"), [
    (1.9, TOKENS, True),
    (2.5, TOKENS, False),  # too late: another call
    (0.5, {**TOKENS, "output_tokens": 51}, False),  # other counts: another call
])  # fmt: skip
def test_the_second_rule_is_strict(
    tmp_path: Path, cc: type[Lines], apart: float, tokens: dict[str, int], joined: bool
) -> None:
    transcript(tmp_path, cc)
    write_lines(tmp_path / "logs.jsonl", [event(START + apart + 4, "req_x", **tokens)])
    found = scan(tmp_path)
    assert found["totals"]["requests"] == (1 if joined else 2)
    assert found["source"]["telemetry"]["telemetry_only"] == (0 if joined else 1)


def test_telemetry_alone_counts_each_call_once_from_its_event_and_span(tmp_path: Path) -> None:
    write_lines(tmp_path / "traces.jsonl", [span(START, "req_1")])
    write_lines(tmp_path / "logs.jsonl", [event(START + 4, "req_1", cost=0.05)])
    write_lines(tmp_path / "metrics.jsonl", [{"resourceMetrics": [{"resource": RESOURCE}]}])
    found = scan(tmp_path)
    totals = found["totals"]
    assert (totals["requests"], totals["cache_read_tokens"], totals["output_tokens"]) == (
        1,
        5000,
        50,
    )
    assert found["source"]["telemetry"]["telemetry_only"] == 1
    assert found["by_harness"][0]["reported_cost_usd"] == pytest.approx(0.05)
    assert found["by_model"][0]["model"] == Lines.SONNET_4  # the span's `[1m]` mark dropped
    assert latency(tmp_path)["exact"] == 1


def test_hostile_lines_are_skipped_counted_and_named(tmp_path: Path) -> None:
    bad = [
        "not json",
        json.dumps({"resourceLogs": "not a list", "x": 1}),
        json.dumps({"something": "else"}),
        json.dumps(
            {
                "resourceLogs": [
                    {
                        "resource": RESOURCE,
                        "scopeLogs": [
                            {
                                "logRecords": [
                                    {
                                        "attributes": [
                                            {
                                                "key": "event.name",
                                                "value": {"stringValue": "api_request"},
                                            },
                                            {"key": "input_tokens", "value": {"intValue": "lots"}},
                                            {
                                                "key": "model",
                                                "value": {"kvlistValue": {"values": "no"}},
                                            },
                                        ]
                                    }
                                ]
                            }
                        ],
                    }
                ]
            }
        ),
    ]
    path = write_lines(
        tmp_path / "logs.jsonl", [event(START, "req_1"), *bad, event(START + 9, "req_2")]
    )
    result = runner.invoke(app, ["scan", "--json", "--verbose", str(tmp_path)])
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert found["warnings"]["skipped_lines"] == 3  # the hostile export read, its call unpriced
    assert f"{path}:2:" in result.stderr and f"{path}:4:" in result.stderr
    assert found["totals"]["requests"] == 3
    assert found["warnings"]["unpriced_models"] == ["(unknown)"]


def test_an_index_extending_a_growing_telemetry_file_gives_the_whole_scan(
    tmp_path: Path, cc: type[Lines]
) -> None:
    transcript(tmp_path, cc)
    logs = write_lines(tmp_path / "logs.jsonl", [event(START + 30, "req_late")])
    scan(tmp_path)
    with logs.open("a") as handle:  # its transcript's call reported after
        handle.write(json.dumps(event(START + 4.2, "req_now")) + "\n")
    assert scan(tmp_path) == scan(tmp_path, "--no-index")
    assert scan(tmp_path)["source"]["telemetry"]["joined_by_tokens_and_time"] == 1
