"""`sniff blocks`: the 5-hour windows of Claude Code transcripts, as JSON and a table, with
--active, --token-limit, --harness and user errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SAMPLE_LOGS, Lines

runner = CliRunner()
NOW = "2026-03-02T11:20:00Z"


def transcript(tmp_path: Path, cc: type[Lines]) -> Path:
    """Two working spells: 2026-03-01 08:10–08:40 (one block), 2026-03-02 09:05–11:10 (the
    active block at NOW)."""
    lines: list[dict[str, Any]] = []
    times = ["2026-03-01T08:10:00Z", "2026-03-01T08:40:00Z", "2026-03-02T09:05:00Z",
             "2026-03-02T10:59:00Z", "2026-03-02T11:10:00Z"]  # fmt: skip
    parent = None
    for number, when in enumerate(times):
        lines.append(cc.user(f"u{number}", parent, when))
        usage = cc.usage(input=10, read=1000 * number, write=200, output=50)
        lines.append(cc.assistant(f"msg_{number}", f"a{number}", f"u{number}", when, usage))
        parent = f"a{number}"
    return cc.write(tmp_path / "projects" / "-home-dana-src-webshop" / "s.jsonl", lines)


def blocks(*arguments: str | Path, code: int = 0) -> Any:
    result = runner.invoke(app, ["blocks", *map(str, arguments)])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout) if "--json" in arguments and code == 0 else result


def test_json_blocks_have_stable_keys_and_exact_sums(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    data = blocks("--json", "--tz", "UTC", "--now", NOW, path)
    assert set(data) == {"blocks", "active", "token_limit"}
    first, gap, last = data["blocks"]
    assert first["start"] == "2026-03-01T08:00:00.000Z"
    assert first["end"] == "2026-03-01T13:00:00.000Z"
    assert first["last_activity"] == "2026-03-01T08:40:00.000Z"
    assert (gap["gap"], gap["start"], gap["end"]) == (
        True, "2026-03-01T13:40:00.000Z", "2026-03-02T09:05:00.000Z",
    )  # fmt: skip
    assert last["start"] == "2026-03-02T09:00:00.000Z"
    assert (last["active"], last["requests"]) == (True, 3)
    assert (last["input_tokens"], last["cache_read_tokens"], last["output_tokens"]) == (
        30, 2000 + 3000 + 4000, 150,
    )  # fmt: skip
    assert last["cache_write_5m_tokens"] + last["cache_write_1h_tokens"] == 600
    assert last["models"] == ["claude-sonnet-4-20250514"] and last["cost_usd"] > 0
    assert set(last) >= {"breaks", "subagent_share", "compaction_share", "hit_rate", "gap"}
    assert set(data["active"]) == {
        "now", "last_30m", "whole_block", "minutes_left", "projected_tokens",
        "projected_cost_usd", "token_limit", "over_limit", "burners",
    }  # fmt: skip
    assert data["active"]["minutes_left"] == 160.0  # to 14:00 UTC


def test_active_shows_only_the_current_block(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    data = blocks("--json", "--active", "--now", NOW, path)
    assert [block["start"] for block in data["blocks"]] == ["2026-03-02T09:00:00.000Z"]
    none = blocks("--json", "--active", "--now", "2026-03-05T00:00:00Z", path)
    assert (none["blocks"], none["active"]) == ([], None)


def test_token_limit_max_warns_past_the_largest_finished_block(
    tmp_path: Path, cc: type[Lines]
) -> None:
    path = transcript(tmp_path, cc)
    data = blocks("--json", "--token-limit", "max", "--now", NOW, path)
    first = data["blocks"][0]
    assert data["token_limit"] == first["total_tokens"] == 2 * (10 + 200 + 50) + 1000
    assert data["active"]["over_limit"] is True
    high = blocks("--json", "--token-limit", "10000000", "--now", NOW, path)
    assert high["active"]["over_limit"] is False
    text = blocks("--token-limit", "max", "--now", NOW, "--tz", "Asia/Kolkata", path).stdout
    assert "⚠ projected" in text and "cache reads 9,000" in text
    assert "Active block 2026-03-02 14:30 → 19:30 (Asia/Kolkata)" in text


def test_since_until_and_project_select_the_requests_blocks_are_drawn_from(
    tmp_path: Path, cc: type[Lines]
) -> None:
    path = transcript(tmp_path, cc)
    data = blocks("--json", "--since", "2026-03-02", "--tz", "UTC", "--now", NOW, path)
    assert [block["requests"] for block in data["blocks"]] == [3]
    assert blocks("--json", "--project", "nowhere", "--now", NOW, path)["blocks"] == []


def test_only_claude_codes_requests_count_unless_harness_says(tmp_path: Path) -> None:
    claude = blocks("--json", SAMPLE_LOGS)
    assert sum(block["requests"] for block in claude["blocks"]) == 146  # 5 from its telemetry
    codex = blocks("--json", "--harness", "codex", SAMPLE_LOGS)
    assert sum(block["requests"] for block in codex["blocks"]) == 11


def test_user_errors_are_one_line_and_exit_2(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    for arguments in (["--token-limit", "lots"], ["--token-limit", "0"], ["--now", "soon"],
                      ["--tz", "Mars/Base"]):  # fmt: skip
        result = runner.invoke(app, ["blocks", *arguments, str(path)])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output


def test_the_table_shows_blocks_and_gaps(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    text = blocks("--tz", "UTC", "--now", NOW, path, "--no-progress").stdout
    assert "03-01 08:00" in text and "gap 19h 25m" in text and "03-02 09:00*" in text
    assert "Active block 2026-03-02 09:00 → 14:00 (UTC): 2h 40m left" in text


def test_lines_the_peer_drops_still_count(tmp_path: Path, cc: type[Lines]) -> None:
    """ccusage drops a line whose `version` is not x.y.z, or that has none; sniff counts it."""
    when = "2026-03-02T10:00:00Z"
    odd = cc.assistant("msg_odd", "a1", "u1", when, cc.usage(input=7, output=3), version="dev")
    bare = cc.assistant("msg_bare", "a2", "a1", when, cc.usage(input=5, output=2))
    del bare["version"]
    path = cc.write(tmp_path / "p" / "s.jsonl", [cc.user("u1", None, when), odd, bare])
    (block,) = blocks("--json", "--now", NOW, path)["blocks"]
    assert (block["requests"], block["input_tokens"], block["output_tokens"]) == (2, 12, 5)


def test_weekly_gives_weeks_by_family_from_the_week_start(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    data = blocks("--json", "--weekly", "--week-start", "mon 09:00", "--tz", "Europe/Paris",
                  "--now", NOW, path)  # fmt: skip
    assert set(data) == {"weeks", "current", "token_limit"}
    last, this = data["weeks"]  # Monday 09:00 in Paris is 08:00 UTC
    assert (last["start"], last["end"]) == ("2026-02-23T08:00:00.000Z", "2026-03-02T08:00:00.000Z")
    assert (last["requests"], this["requests"]) == (2, 3)
    assert list(this["by_family"]) == ["sonnet"]
    assert this["by_family"]["sonnet"]["cost_usd"] == this["cost_usd"]
    assert data["current"]["hours_left"] == pytest.approx(168 - 3 - 20 / 60, abs=0.01)
    iso = blocks("--json", "--weekly", "--tz", "UTC", "--now", NOW, path)
    assert [row["requests"] for row in iso["weeks"]] == [2, 3]
    assert iso["current"]["hours_left"] == pytest.approx(6 * 24 + 12 + 40 / 60, abs=0.01)
    bad = blocks("--weekly", "--week-start", "someday", path, code=2)
    assert "--week-start" in bad.output and "Traceback" not in bad.output


def test_weekly_active_shows_this_week_and_the_limit_judges_its_projection(
    tmp_path: Path, cc: type[Lines]
) -> None:
    path = transcript(tmp_path, cc)
    common = ("--json", "--weekly", "--tz", "UTC", "--now", NOW, path)
    weeks = blocks(*common)["weeks"]
    (this,) = blocks("--active", *common)["weeks"]
    assert this == weeks[-1]
    tight = blocks("--token-limit", "1000", *common)
    assert (tight["token_limit"], tight["current"]["over_limit"]) == (1000, True)
    largest = blocks("--token-limit", "max", *common)  # the finished week: the first
    first = weeks[0]
    assert largest["token_limit"] == first["input_tokens"] + first["output_tokens"] + sum(
        first[name] for name in first if name.startswith("cache_") and name.endswith("_tokens")
    )
    text = blocks("--weekly", "--token-limit", "1000", "--now", NOW, path).stdout
    assert "pass the limit of" in text


def test_plan_adds_each_months_value_and_each_blocks_share(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    data = blocks("--json", "--plan", "max5", "--now", NOW, "--tz", "UTC", path)
    (month,) = data["plan"]["months"]
    assert (data["plan"]["key"], data["plan"]["usd_per_month"], month["month"]) == (
        "max5", 100.0, "2026-03",
    )  # fmt: skip
    cost = sum(row["cost_usd"] for row in data["blocks"] if not row["gap"])
    assert month["cost_usd"] == pytest.approx(cost)
    assert month["multiple"] == pytest.approx(cost / 100, abs=1e-6)
    first = data["blocks"][0]
    assert first["plan_share"] == pytest.approx(first["cost_usd"] / 100, abs=1e-6)
    text = blocks("--plan", "25", "--now", NOW, path).stdout
    assert "this month: API-equivalent $" in text and "for a $25.00 plan" in text
    for arguments in (["--plan", "lots"], ["--plan-file", str(path)]):
        result = blocks(*arguments, path, code=2)
        assert "Traceback" not in result.output


def test_logs_without_claude_code_say_whose_blocks_to_ask_for() -> None:
    result = CliRunner().invoke(app, ["blocks", str(SAMPLE_LOGS / "codex"), "--no-index"])
    assert result.exit_code == 0, result.output
    assert "none but 11 of codex: --harness codex shows theirs" in result.stderr
    chosen = CliRunner().invoke(
        app, ["blocks", str(SAMPLE_LOGS / "codex"), "--harness", "codex", "--no-index"]
    )
    assert chosen.exit_code == 0 and "--harness" not in chosen.stderr
