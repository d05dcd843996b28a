"""Golden totals of the bundled OpenTelemetry export of Claude Code (`sample_logs/otel/`).

Hand-made in the shape of what `sniff otel` writes: a day's logs, traces and metrics of one
session, four calls each reported by an `api_request` event and a `claude_code.llm_request`
span (one call, not two), an `api_error` before the fourth (a failed request that costs
nothing), a failed tool result, and a cost metric (never counted as requests); and the raw API
bodies of the first call (`bodies/`), joined to its telemetry by its request id.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.record import Prompts
from sniff.logs import load
from sniff.model import Agent, Harness

ROOT = Path(__file__).resolve().parents[2]
OTEL = ROOT / "sample_logs" / "otel"


def run(*arguments: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, [*arguments, "--json", "--tz", "UTC", str(OTEL)])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_each_call_counts_once_from_its_event_and_span():
    report = run("scan")
    totals = report["totals"]
    counted = [totals[key] for key in ("requests", "input_tokens", "cache_read_tokens",
                                       "cache_write_5m_tokens", "output_tokens")]  # fmt: skip
    assert counted == [5, 824, 38000, 22664, 1286]
    assert report["warnings"]["failed_requests"] == 1
    assert report["source"]["formats"] == {"otel": 3, "otel-bodies": 3}
    assert report["source"]["telemetry"] == {
        "joined_by_request_id": 1,
        "joined_by_tokens_and_time": 0,
        "telemetry_only": 4,
    }
    assert report["warnings"]["ttl_assumed_requests"] == 2  # the bodies' usage says its TTL
    (harness,) = report["by_harness"]
    assert harness["harness"] == "claude-code"
    assert harness["reported_cost_usd"] == pytest.approx(0.116218)  # the agent's own


def test_query_source_names_the_part_of_the_agent():
    requests = load([OTEL]).requests
    agents = sorted((str(r.agent), r.agent_id) for r in requests if r.error is None)
    assert agents == [("main", "main"), ("main", "main"), ("other", "auxiliary"),
                      ("subagent", "subagent")]  # fmt: skip
    assert {r.harness for r in requests} == {Harness.CLAUDE_CODE}
    assert all(r.agent is not Agent.COMPACTION for r in requests)


def test_the_bodies_give_the_first_call_its_prompt():
    requests = load([OTEL], with_prompts=Prompts.TEXT).requests
    (first,) = [request for request in requests if request.blocks]
    assert first.source == "otel-bodies" and first.key == "msg_01SampleOtelBody00000001"
    assert [block.role for block in first.blocks] == ["tools", "tools", "system", "system", "user"]
    assert first.first_hand is not None and first.first_hand.ttft


def test_the_spans_time_the_first_token_exactly():
    report = run("latency")
    assert (report["count"], report["exact"]) == (4, 4)
    assert (report["percentiles"]["min"], report["percentiles"]["max"]) == (0.41, 2.21)
