"""`sniff latency` from the command line: the report, its JSON keys, and user errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SAMPLE_LOGS

runner = CliRunner()


def test_json_has_the_stable_keys() -> None:
    result = runner.invoke(app, ["latency", str(SAMPLE_LOGS), "--json", "--slo-ttft", "5"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    for key in ("metric", "count", "percentiles", "peaks", "goodput", "peaks_over_time"):
        assert key in report
    assert report["metric"] == "ttft" and report["count"] > 0
    assert report["exact"] + report["approximate"] == report["count"]
    assert report["goodput"]["slo_s"] == {"ttft": 5.0}
    assert sum(bucket["count"] for bucket in report["histogram"]) <= report["count"]


def test_request_logs_are_exact_and_the_terminal_report_marks_its_peaks() -> None:
    result = runner.invoke(app, ["latency", str(SAMPLE_LOGS / "request-logs"), "--metric", "e2e"])
    assert result.exit_code == 0, result.output
    assert "end to end" in result.output
    assert "approximate" in result.output and " 0 approximate" in result.output
    claude = runner.invoke(app, ["latency", str(SAMPLE_LOGS / "claude-code")])
    assert "◀ peak 1" in claude.output
    assert "Peaks of the distribution" in claude.output
    assert "approximate" in claude.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["latency", "--metric", "p99", str(SAMPLE_LOGS)],
            "--metric must be one of ttft, tpot, e2e",
        ),
        (["latency", "nowhere/at/all"], "no such file or directory"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_a_folder_without_timings_says_so(tmp_path, cc) -> None:
    # a log with no request (an empty folder is an error: it holds no log)
    cc.write(tmp_path / "quiet.jsonl", [{"type": "summary", "summary": "x", "leafUuid": "u0"}])
    result = runner.invoke(app, ["latency", str(tmp_path)])
    assert result.exit_code == 0
    assert "No request in these logs has this timing." in result.output
