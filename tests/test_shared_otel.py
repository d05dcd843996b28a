"""A real OpenTelemetry capture of Claude Code (../shared/otel-samples/erinn) read beside the
transcript of the same session: 3 requests, not 4; the one both hold is joined by model,
tokens and start (their ids were redacted apart), timed by its span (2.011 s to the first
token, exact, against the 3.044 s its transcript's lines tell) and costed by the agent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SHARED

ERINN = SHARED / "otel-samples" / "erinn"
CAPTURE = ERINN / "observe" / "otel" / "otlp" / "testdata" / "golden_capture"
TRANSCRIPT = ERINN / "core" / "ingest" / "testdata" / "golden_transcript" / "transcript.jsonl"

pytestmark = pytest.mark.skipif(
    not CAPTURE.is_dir(), reason=f"the OpenTelemetry samples are not at {ERINN}"
)


def run(*arguments: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The three capture files and the transcript in one folder."""
    for name in ("logs.json", "traces.json", "metrics.json"):
        shutil.copy(CAPTURE / name, tmp_path / name)
    shutil.copy(TRANSCRIPT, tmp_path / "transcript.jsonl")
    return tmp_path


def test_the_call_in_both_counts_once(folder: Path) -> None:
    report = run("scan", str(folder))
    assert report["totals"]["requests"] == 3
    assert report["source"]["formats"] == {"claude-code": 1, "otel": 3}
    assert report["source"]["telemetry"] == {
        "joined_by_request_id": 0,
        "joined_by_tokens_and_time": 1,
        "telemetry_only": 0,
    }
    (harness,) = report["by_harness"]
    assert harness["reported_requests"] == 1
    assert harness["reported_cost_usd"] == pytest.approx(0.068859)  # beside sniff's price
    assert harness["cost_usd"] > 0


def test_its_time_to_first_token_is_the_spans_counted_exact(folder: Path) -> None:
    report = run("latency", str(folder))
    assert (report["count"], report["exact"]) == (3, 1)
    assert report["percentiles"]["min"] == pytest.approx(2.011)
    assert any("2.011 s" in note and "3.044 s" in note for note in report["notes"])


def test_the_capture_alone_is_one_call(tmp_path: Path) -> None:
    for name in ("logs.json", "traces.json", "metrics.json"):
        shutil.copy(CAPTURE / name, tmp_path / name)
    report = run("scan", str(tmp_path))
    totals = report["totals"]
    assert (totals["requests"], totals["input_tokens"], totals["cache_read_tokens"]) == (
        1,
        2,
        15498,
    )
    assert (totals["cache_write_5m_tokens"], totals["output_tokens"]) == (5790, 128)
    assert report["by_model"][0]["model"] == "claude-opus-5"


def test_the_providers_cache_miss_in_the_transcript_is_listed(tmp_path: Path) -> None:
    """Its second request reads more than the first (no break by usage alone), but Anthropic
    says its tools changed and 20,116 tokens missed the cache: listed with that reason."""
    shutil.copy(TRANSCRIPT, tmp_path / "transcript.jsonl")
    report = run("cache", "--breaks", str(tmp_path))
    (found,) = [item for item in report["breaks"] if item["provider_says"]]
    assert found["request"] == "msg_000000000000000000000002"
    assert (found["cause"], found["inferred_cause"]) == ("tools_changed", "no break")
    assert found["provider_says"] == {
        "provider": "anthropic", "type": "tools_changed", "reason": None,
        "missed_tokens": 20116, "reusable_tokens": None,
    }  # fmt: skip
    assert report["provider_agreement"] == [
        {"sniff": "no break", "provider": "tools_changed", "agree": False, "requests": 1,
         "missed_tokens": 20116}
    ]  # fmt: skip
