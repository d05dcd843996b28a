"""`sniff latency` from the command line: the report, its JSON keys, and user errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import FIRST_SAMPLES, REPO, SAMPLE_LOGS

runner = CliRunner()
WIDE = {"COLUMNS": "160"}
SHARED = Path(os.environ.get("SNIFF_SHARED_SAMPLES") or REPO.parent / "shared" / "samples")


def test_json_has_the_stable_keys() -> None:
    result = runner.invoke(app, ["latency", *FIRST_SAMPLES, "--json", "--slo-ttft", "5"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    for key in ("metric", "count", "percentiles", "peaks", "goodput", "peaks_over_time"):
        assert key in report
    assert report["metric"] == "ttft" and report["count"] > 0
    assert report["exact"] + report["approximate"] == report["count"]
    assert report["goodput"]["slo_s"] == {"ttft": 5.0}
    for key in ("good_per_hour", "good_per_active_day", "active_hours", "active_days"):
        assert key in report["goodput"]
    assert report["not_measurable"] == {}
    assert sum(bucket["count"] for bucket in report["histogram"]) <= report["count"]


def test_goodput_is_per_active_hour_with_significant_figures() -> None:
    result = runner.invoke(app, ["latency", *FIRST_SAMPLES, "--slo-ttft", "2"], env=WIDE)
    assert result.exit_code == 0, result.output
    # eleven good requests over fifteen months once read "0.0 good requests per hour"
    assert "11 of 151 requests (7.3%), 0.52 per active hour (21 hours with requests)" in (
        result.output
    )
    assert "0.0 good requests per hour" not in result.output


def test_tpot_is_not_printed_for_logs_whose_times_cannot_give_it() -> None:
    result = runner.invoke(app, ["latency", *FIRST_SAMPLES, "--metric", "tpot"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "no time per output token for 125 claude-code, 11 codex requests" in result.output
    report = json.loads(
        runner.invoke(app, ["latency", *FIRST_SAMPLES, "--metric", "tpot", "--json"]).stdout
    )
    assert report["not_measurable"] == {"claude-code": 125, "codex": 11}
    assert report["count"] == report["exact"] == 13
    # the transcripts' line stamps once made bins of 15–29 µs
    assert min(bucket["low_s"] for bucket in report["histogram"]) > 1e-4


def test_the_outlier_note_agrees_with_the_maximum() -> None:
    result = runner.invoke(app, ["latency", *FIRST_SAMPLES, "--json"])
    report = json.loads(result.stdout)
    (note,) = [n for n in report["notes"] if "left out of the peak fit" in n]
    assert note == "left out of the peak fit as outliers: 3 above 17.1 s (percentiles keep them)"
    assert report["percentiles"]["max"] == 74.1
    assert report["histogram"][-1]["high_s"] < report["percentiles"]["max"]


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"shared samples not found at {SHARED}")
def test_the_shared_samples_peaks_stand_on_their_tallest_bins() -> None:
    result = runner.invoke(app, ["latency", str(SHARED)], env=WIDE)
    assert result.exit_code == 0, result.output
    rows = {line.split("█")[0].strip(): line for line in result.output.splitlines() if "–" in line}
    # the bins start where each peak stands on its population's tallest bin
    assert "175 ◀ peak 2: 3.0 s" in rows["2.3 s – 3.1 s"]  # the tallest bin, was "5.0 s" on 97
    assert "63 ◀ peak 3: 18 s" in rows["15 s – 20 s"]  # the second hump, was not found
    assert "18 ◀ peak 1: 841 ms" in rows["664 ms – 906 ms"]  # claude-trace's quick calls


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
            ["latency", "--metric", "p99", *FIRST_SAMPLES],
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
