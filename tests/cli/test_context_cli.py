"""`sniff context`: the flagged sessions with their computation, the series in JSON, errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app, main
from tests.cli.test_cli import acme_log
from tests.conftest import SAMPLE_LOGS

READ, WRITE = 0.30 / 1e6, 3.75 / 1e6
"""Claude Sonnet 4's cache-read and 5-minute cache-write prices per token."""
GROWN = [10_000, 40_000] + [70_000] * 6
"""Crosses at #2: 30k carried over 6 later requests, 180k tokens, $0.054 against $0.0375."""


def run(*args: str | Path, columns: int = 200) -> Any:
    result = CliRunner().invoke(app, [str(arg) for arg in args], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result


def planted(folder: Path, cc: Any, prompts: list[int], session: str = "c0ffee00") -> Path:
    """A Claude Code session whose main chain's prompts have these sizes, a minute apart."""
    lines, parent = [], None
    for i, prompt in enumerate(prompts):
        stamp = f"2026-01-05T10:{i:02d}:00Z"
        lines.append(cc.user(f"u{i}", parent, stamp, session=session))
        usage = cc.usage(4, prompt - 4, 0, 50, split=(0, 0))
        answer = f"2026-01-05T10:{i:02d}:05Z"
        lines.append(cc.assistant(f"msg_{i}", f"a{i}", f"u{i}", answer, usage, session=session))
        parent = f"a{i}"
    return cc.write(folder / "projects" / "-home-dana-src-webshop" / f"{session}.jsonl", lines)


def test_a_planted_session_is_flagged_with_its_exact_computation(tmp_path, cc):
    planted(tmp_path, cc, GROWN)
    report = json.loads(run("context", tmp_path, "--json").stdout)
    assert (report["flagged"], report["sessions_judged"], report["sessions_unpriced"]) == (1, 1, 0)
    (session,) = report["sessions"]
    assert [point["prompt_tokens"] for point in session["series"]] == GROWN
    crossing = session["crossing"]
    assert (crossing["index"], crossing["request"]) == (1, "msg_1")
    assert (crossing["base_tokens"], crossing["carried_tokens"]) == (10_000, 30_000)
    assert (crossing["later_requests"], crossing["dropped_tokens"]) == (6, 180_000)
    assert crossing["reads_usd"] == round(180_000 * READ, 6)
    assert crossing["rebuild_usd"] == round(10_000 * WRITE, 6)
    assert crossing["saved_usd"] == round(180_000 * READ - 10_000 * WRITE, 6)


def test_the_table_shows_the_numbers_and_the_sentence_in_80_columns(tmp_path, cc):
    planted(tmp_path, cc, GROWN)
    out = run("context", tmp_path, columns=80).stdout
    assert "1 session past the point a fresh one saves $0.010+" in out
    header = next(line for line in out.splitlines() if "session" in line and "saved" in line)
    assert len(header) <= 80
    row = next(line for line in out.splitlines() if line.strip().startswith("c0ffee00"))
    assert row.split()[-7:] == ["#2", "10.0k", "30.0k", "6", "$0.054", "$0.037", "$0.017"]
    assert "the 6 later requests re-read 180,000 carried tokens" in " ".join(out.split())
    assert "would have saved $0.017" in " ".join(out.split())


def test_a_session_that_grew_little_is_listed_only_with_all(tmp_path, cc):
    planted(tmp_path, cc, [10_000, 12_000, 14_000])
    out = run("context", tmp_path).stdout
    assert "none among 1 session" in out
    every = json.loads(run("context", tmp_path, "--json", "--all").stdout)
    (session,) = every["sessions"]
    assert session["flagged"] is False and session["crossing"] is None
    assert json.loads(run("context", tmp_path, "--json").stdout)["sessions"] == []


def test_a_given_base_is_used(tmp_path, cc):
    planted(tmp_path, cc, GROWN)
    report = json.loads(run("context", tmp_path, "--json", "--base", "5000").stdout)
    assert report["base_tokens"] == 5000
    crossing = report["sessions"][0]["crossing"]
    assert (crossing["base_tokens"], crossing["dropped_tokens"]) == (5_000, 210_000)


def test_an_unpriced_model_is_not_judged_and_says_why(tmp_path, cc):
    acme_log(tmp_path, cc)
    report = json.loads(run("context", tmp_path, "--json", "--all").stdout)
    assert report["sessions_unpriced"] == 1 and report["flagged"] == 0
    assert "acme-super-1" in report["sessions"][0]["unpriced"]
    out = " ".join(run("context", tmp_path).stdout.split())
    assert "1 session not judged: no known price for acme-super-1" in out


def test_the_sample_logs_flag_the_long_tilesrv_session():
    """From a 5,000-token base (its own first prompt is larger: it writes 1-hour caches, whose
    rebuild from the first prompt the later reads never pay back)."""
    report = json.loads(
        run("context", SAMPLE_LOGS / "claude-code", "--base", "5000", "--json").stdout
    )
    flagged = {session["session"][:8]: session for session in report["sessions"]}
    tilesrv = flagged["348de662"]
    assert tilesrv["compactions"] == 1 and tilesrv["subagent_requests"] > 0
    # an independent count from the series: the carried tokens re-read by the later requests
    series = [point["prompt_tokens"] for point in tilesrv["series"]]
    crossing = tilesrv["crossing"]
    k, base = crossing["index"], crossing["base_tokens"]
    ends = [i for i, point in enumerate(tilesrv["series"]) if point["compacted"] and i > k]
    later = series[k + 1 : ends[0] if ends else None]
    carried = series[k] - base
    assert base == 5000
    assert crossing["dropped_tokens"] == sum(min(carried, max(p - base, 0)) for p in later)
    assert crossing["saved_usd"] > 0


@pytest.mark.parametrize("value", ["0", "-5", "many"])
def test_a_bad_base_is_one_line_and_exit_2(capsys, value):
    with pytest.raises(SystemExit) as ended:
        main(["context", "--base", value, str(SAMPLE_LOGS / "claude-code")])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("sniff: error: ") and "--base" in err


def test_only_a_material_saving_is_advised_and_the_threshold_is_said() -> None:
    every = json.loads(run("context", SAMPLE_LOGS, "--json", "--min-saving", "0").stdout)
    crossed = [s for s in every["sessions"] if s["crossing"]]
    material = json.loads(run("context", SAMPLE_LOGS, "--json").stdout)
    assert material["min_saving_usd"] == 0.01
    assert material["flagged"] == sum(s["crossing"]["saved_usd"] >= 0.01 for s in crossed)
    assert all(s["flagged"] for s in material["sessions"])
    assert "saves $0.010+" in run("context", SAMPLE_LOGS).stdout
