"""`sniff latency` from the command line: the report, its JSON keys, and user errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import FIRST_SAMPLES, SAMPLE_LOGS, needs_shared
from tests.conftest import SHARED_SAMPLES as SHARED

runner = CliRunner()
WIDE = {"COLUMNS": "160"}


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


@needs_shared
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
            "--metric must be one of ttft, visible, tpot, e2e",
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


AGTRACE_CLAUDE = SHARED / "agtrace/crates/agtrace-providers/tests/samples"


@needs_shared
def test_visible_metric_sits_beside_ttft_per_model_with_its_goodput_target() -> None:
    from tests.test_visible_token import FILES, independent_count

    counted: dict[str, tuple[int, int]] = {}
    for name in FILES:
        counted |= independent_count(AGTRACE_CLAUDE / name)
    paths = [str(AGTRACE_CLAUDE / name) for name in FILES]
    arguments = ["latency", *paths, "--metric", "visible", "--slo-visible", "6", "--json"]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    visible = sorted(v / 1000 for _, v in counted.values())
    ttft = sorted(t / 1000 for t, _ in counted.values())
    assert report["metric"] == "visible" and report["count"] == 7
    assert report["percentiles"]["min"] == pytest.approx(visible[0], abs=1e-6)
    assert report["percentiles"]["p50"] == pytest.approx(visible[3], abs=1e-6)
    [row] = report["beside_ttft"]
    assert row["model"] == "claude-sonnet-4-5-20250929" and row["requests"] == 7
    assert row["ttft_median_s"] == pytest.approx(ttft[3], abs=1e-6)
    assert row["visible_median_s"] == pytest.approx(visible[3], abs=1e-6)
    assert row["visible_after_first_token"] == sum(v > t for t, v in counted.values()) == 6
    gaps = sorted(v - t for t, v in counted.values() if v > t)
    assert row["later_by_median_s"] == pytest.approx((gaps[2] + gaps[3]) / 2000, abs=1e-6)
    assert row["ttft_peaks_s"] == row["visible_peaks_s"] == []  # seven values: too few
    good = sum(v <= 6000 for _, v in counted.values())
    assert report["goodput"]["slo_s"] == {"visible": 6.0}
    assert (report["goodput"]["measured"], report["goodput"]["good"]) == (7, good)
    assert any("not thinking time" in note for note in report["notes"])
    both = runner.invoke(app, [*arguments, "--slo-ttft", "5"])
    goodput = json.loads(both.stdout)["goodput"]
    assert goodput["slo_s"] == {"ttft": 5.0, "visible": 6.0}
    within = sum(t <= 5000 and v <= 6000 for t, v in counted.values())
    assert goodput["good"] == within < good


def test_visible_metric_in_the_terminal_says_what_the_difference_is_not() -> None:
    result = runner.invoke(app, ["latency", *FIRST_SAMPLES, "--metric", "visible"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "Latency: time to first visible token" in result.output
    assert "Time to first visible token beside time to first token" in result.output
    assert "not thinking time: it also holds the text block's own streaming" in result.output
    report = json.loads(
        runner.invoke(app, ["latency", *FIRST_SAMPLES, "--metric", "visible", "--json"]).stdout
    )
    # the formats whose logs do not stamp the first text apart are counted, not guessed; the
    # one Claude Code request is a response whose text line is cut short (unreadable)
    assert report["not_measurable"] == {
        "claude-code": 1, "claude-trace": 10, "request-log": 17, "codex": 11
    }  # fmt: skip
    assert report["count"] == 124
    everything = report["beside_ttft"][0]
    assert everything["model"] == "all models" and everything["requests"] == 124
    assert everything["visible_after_first_token"] == 13


def test_slo_visible_must_be_a_number_of_seconds() -> None:
    result = runner.invoke(app, ["latency", *FIRST_SAMPLES, "--slo-visible", "-1"])
    assert result.exit_code == 2


def test_visible_metric_gives_the_thinking_share_of_a_claude_trace_stream(tmp_path: Path) -> None:
    from sniff.tokens import count
    from tests.unit.test_claude_trace import SAID, THOUGHT, _block, _delta, pair, streamed

    stream = (
        _block("thinking", 0)
        + _delta("thinking_delta", "thinking", THOUGHT, 0)
        + _block("text", 1)
        + _delta("text_delta", "text", SAID, 1)
    )
    plain = pair("m2", 1_760_000_100.0, [{"role": "user", "content": "Hi."}])
    lines = [streamed("m1", 1_760_000_000.0, stream), plain]
    log = tmp_path / ".claude-trace" / "log-2025-10-09-08-53-20.jsonl"
    log.parent.mkdir()
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = runner.invoke(app, ["latency", str(log), "--metric", "visible", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    share = count(THOUGHT) / (count(THOUGHT) + count(SAID))
    assert report["thinking_share"] == [
        {
            "model": "claude-sonnet-4-20250514",
            "responses": 1,
            "output_tokens": 90,
            "share": pytest.approx(share),
            "estimated_thinking_tokens": round(share * 90),
        }
    ]
    assert report["count"] == 0  # claude-trace stamps no block: no first visible token
    assert report["not_measurable"] == {"claude-trace": 2}
    shown = runner.invoke(app, ["latency", str(log), "--metric", "visible"], env=WIDE)
    assert "Thinking's share of output tokens" in shown.output
    assert "no time is given" in shown.output


@needs_shared  # the agtrace sample: a thinking model's visible-token columns
def test_the_visible_table_fits_80_columns() -> None:
    from tests.test_visible_token import FILES

    paths = [str(AGTRACE_CLAUDE / name) for name in FILES]
    result = runner.invoke(app, ["latency", *paths, "--metric", "visible"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    [header] = [line for line in lines if "TTFT p50" in line]
    # the model keeps its name: the visible peaks, a detail of the peaks table, go instead
    assert header.split() == [
        "model", "reqs", "TTFT", "p50", "TTFT", "peaks", "vis.", "p50", "later", "by", "p50",
    ]  # fmt: skip
    assert "claude-sonnet-4-5" in result.stdout
    assert "not shown at this width: vis. peaks" in result.stdout
