"""`sniff blocks` beside the agents' own limit readings: Codex's from its rollouts (`primary`
beside the blocks, `secondary` beside the weeks), Claude Code's from the history the status
line records; in --json and in tables that keep every number at 80 and 120 columns."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff import limits_history
from sniff.cli import app
from sniff.ingest.files.log_formats import parse_any
from sniff.model import Harness, LimitReading
from tests.conftest import SHARED_SAMPLES, Lines, needs_shared

runner = CliRunner()
NOW = "2026-03-06T16:30:00Z"
RESETS_5H = "2026-03-06T19:00:00Z"
RESETS_WEEK = "2026-03-10T00:00:00Z"


def epoch(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def limits(primary: float, secondary: float) -> dict[str, Any]:
    return {
        "limit_id": "codex",
        "primary": {"used_percent": primary, "window_minutes": 300,
                    "resets_at": int(epoch(RESETS_5H))},
        "secondary": {"used_percent": secondary, "window_minutes": 10080,
                      "resets_at": int(epoch(RESETS_WEEK))},
        "credits": {"has_credits": False, "unlimited": False, "balance": None},
    }  # fmt: skip


def rollout(folder: Path, shares: list[tuple[str, float, float]]) -> Path:
    """A Codex rollout (0.104's shape): a heartbeat, then one response per (time, primary %,
    secondary %), each usage event repeated as Codex repeats it."""
    lines: list[dict[str, Any]] = []

    def add(at: str, kind: str, payload: dict[str, Any]) -> None:
        lines.append({"timestamp": at, "type": kind, "payload": payload})

    first = shares[0][0]
    meta = {"id": "019cc374-b49a-7d28-b41d-cadbc9b26756", "cwd": "/home/dana/src/tilesrv",
            "cli_version": "0.104.0"}  # fmt: skip
    add(first, "session_meta", meta)
    add(first, "turn_context", {"model": "gpt-5.3-codex"})
    add(first, "event_msg", {"type": "token_count", "info": None,
                             "rate_limits": limits(shares[0][1], shares[0][2])})  # fmt: skip
    total = 0
    for at, primary, secondary in shares:
        total += 1000
        usage = {"input_tokens": total, "cached_input_tokens": 0, "output_tokens": 10}
        info = {"total_token_usage": usage, "last_token_usage": usage}
        for _ in range(2):
            add(at, "event_msg", {"type": "token_count", "info": info,
                                  "rate_limits": limits(primary, secondary)})  # fmt: skip
    path = folder / "sessions" / "2026" / "03" / "06" / "rollout-2026-03-06T14-00-00-x.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


SHARES = [
    ("2026-03-06T14:05:00.000Z", 10.0, 3.0),
    ("2026-03-06T14:35:00.000Z", 20.0, 4.0),
    ("2026-03-06T15:05:00.000Z", 30.0, 5.0),
    ("2026-03-06T16:05:00.000Z", 50.0, 7.0),
]


def run(*arguments: str | Path, columns: int = 120) -> Any:
    result = runner.invoke(app, ["blocks", *map(str, arguments)], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in arguments else result.stdout


@pytest.fixture(autouse=True)
def data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private data folder: no test reads the user's limit history."""
    folder = tmp_path / "data"
    monkeypatch.setenv("SNIFF_DATA_DIR", str(folder))
    return folder


def test_codex_blocks_show_the_primary_window_and_its_projection(tmp_path: Path) -> None:
    path = rollout(tmp_path / "codex", SHARES)
    data = run("--harness", "codex", "--json", "--now", NOW, path)
    (block,) = data["blocks"]
    assert block["start"] == "2026-03-06T14:00:00.000Z"
    official = block["official"]
    assert official == {
        "source": "agent",
        "harness": "codex",
        "window": "primary",
        "used_percent": 50.0,
        "read_at": "2026-03-06T16:05:00.000Z",
        "resets_at": RESETS_5H.replace("Z", ".000Z"),
        # 10% at 14:05 to 50% at 16:05: 20% an hour, so the last 50% in 2.5 hours
        "projected_full_at": "2026-03-06T18:35:00.000Z",
    }
    # a second run reads the rollout's records back from the index: the readings with them
    assert run("--harness", "codex", "--json", "--now", NOW, path) == data
    with path.open("a", encoding="utf-8") as appended:  # and read on when it grows
        payload = {"type": "token_count", "info": None, "rate_limits": limits(60, 8)}
        line = {"timestamp": "2026-03-06T16:20:00.000Z", "type": "event_msg", "payload": payload}
        appended.write(json.dumps(line) + "\n")
    grown = run("--harness", "codex", "--json", "--now", NOW, path)["blocks"][0]["official"]
    assert (grown["used_percent"], grown["read_at"]) == (60.0, "2026-03-06T16:20:00.000Z")


def test_codex_weekly_shows_the_secondary_window(tmp_path: Path) -> None:
    path = rollout(tmp_path / "codex", SHARES)
    data = run("--weekly", "--harness", "codex", "--json", "--tz", "UTC",
               "--now", NOW, path)  # fmt: skip
    (week,) = data["weeks"]
    official = week["official"]
    assert (official["window"], official["used_percent"]) == ("secondary", 7.0)
    assert official["read_at"] == "2026-03-06T16:05:00.000Z"
    # 3% to 7% in 2 hours: 2% an hour, the last 93% in 46.5 hours, before the reset
    assert official["projected_full_at"] == "2026-03-08T14:35:00.000Z"


def test_a_window_that_resets_first_or_has_reset_has_no_projection(tmp_path: Path) -> None:
    path = rollout(tmp_path / "codex", SHARES)
    later = run("--harness", "codex", "--json", "--now", "2026-03-06T19:30:00Z", path)
    assert later["blocks"][0]["official"]["used_percent"] == 50.0
    assert later["blocks"][0]["official"]["projected_full_at"] is None


def test_claude_code_blocks_show_the_recorded_five_hour_share(
    tmp_path: Path, cc: type[Lines], data_folder: Path
) -> None:
    lines = []
    for number, when in enumerate(["2026-03-06T14:10:00Z", "2026-03-06T15:50:00Z"]):
        lines.append(cc.user(f"u{number}", None, when))
        usage = cc.usage(input=10, read=1000, write=200, output=50)
        lines.append(cc.assistant(f"msg_{number}", f"a{number}", f"u{number}", when, usage))
    path = cc.write(tmp_path / "projects" / "-home-dana-src-webshop" / "s.jsonl", lines)
    resets = epoch(RESETS_5H)
    readings = [
        LimitReading(Harness.CLAUDE_CODE, "five_hour", share, epoch(at), resets)
        for at, share in (("2026-03-06T14:10:00Z", 12.0), ("2026-03-06T15:50:00Z", 37.5))
    ] + [LimitReading(Harness.CLAUDE_CODE, "seven_day", 41.0, epoch("2026-03-06T15:50:00Z"))]
    assert len(limits_history.record(readings, data_folder)) == 3
    data = run("--json", "--now", NOW, path)
    official = data["blocks"][0]["official"]
    assert (official["harness"], official["window"]) == ("claude-code", "five_hour")
    assert (official["used_percent"], official["read_at"]) == (37.5, "2026-03-06T15:50:00.000Z")
    # 12% to 37.5% in 100 minutes reaches 100% at 19:55, after the reset at 19:00
    assert official["projected_full_at"] is None
    weekly = run("--weekly", "--json", "--tz", "UTC", "--now", NOW, path)
    assert weekly["weeks"][0]["official"]["used_percent"] == 41.0
    # Codex's readings are Codex's subscription's: never beside Claude Code's blocks
    text = run("--now", NOW, "--tz", "UTC", path, columns=80)
    assert "37.5%" in text and "Claude Code's own figures" in text


@pytest.mark.parametrize("columns", [80, 120])
def test_tables_keep_every_number_and_the_cost(tmp_path: Path, columns: int) -> None:
    path = rollout(tmp_path / "codex", SHARES)
    text = run("--harness", "codex", "--tz", "UTC", "--now", NOW, path, columns=columns)
    assert max(len(line) for line in text.splitlines()) <= columns
    lines = [line.strip() for line in text.splitlines()]
    header = next(line for line in lines if line.startswith("start"))
    assert header.split()[-3:] == ["cost", "breaks", "sub"]
    row = lines.index(next(line for line in lines if line.startswith("2026-03-06 14:00")))
    assert "$0.0071" in lines[row] and lines[row + 1] == "own 50% 16:05"
    assert "Codex's own figures, its 5-hour limit (primary)" in text
    assert "100% at 2026-03-06 18:35" in text
    weekly = run("--weekly", "--harness", "codex", "--tz", "UTC", "--now", NOW, path,
                 columns=columns)  # fmt: skip
    assert max(len(line) for line in weekly.splitlines()) <= columns
    header = next(line for line in weekly.splitlines() if "week from" in line)
    assert header.split()[-2:] == ["cost", "own"]
    week = next(line for line in weekly.splitlines() if line.strip().startswith("2026-03-02 00:00"))
    assert week.split()[-2:] == ["$0.0071", "7%"]


def test_claude_code_without_history_says_where_readings_come_from(
    tmp_path: Path, cc: type[Lines]
) -> None:
    when = "2026-03-06T14:10:00Z"
    usage = cc.usage(input=10, read=1000, write=200, output=50)
    lines = [cc.user("u0", None, when), cc.assistant("msg_0", "a0", "u0", when, usage)]
    path = cc.write(tmp_path / "projects" / "-home-dana-src-webshop" / "s.jsonl", lines)
    data = run("--json", "--now", NOW, path)
    assert data["blocks"][0]["official"] is None
    assert "sniff statusline" in run("--now", NOW, path, columns=80)


@needs_shared
def test_the_real_codex_rollouts_official_shares() -> None:
    """localpush's redacted rollouts (Codex 0.104, 2026-02-23): each `token_count` carries
    `rate_limits` with `limit_id` codex; the series rises in whole percents."""
    folder = SHARED_SAMPLES / "localpush/src-tauri/tests/fixtures/codex/2026-02-23/raw/sessions"
    name = "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    result = parse_any(str(folder / name), "x")
    primary = [r for r in result.limits if r.window == "primary"]
    secondary = [r for r in result.limits if r.window == "secondary"]
    assert {r.window_minutes for r in primary} == {300}
    assert {r.window_minutes for r in secondary} == {10_080}
    assert (primary[0].used_percent, primary[-1].used_percent) == (13.0, 25.0)
    assert all(a.at <= b.at for a, b in zip(result.limits, result.limits[1:], strict=False))
    data = run("--harness", "codex", "--json", "--tz", "UTC",
               "--now", "2026-02-23T14:30:00Z", folder)  # fmt: skip
    shown = [block["official"] for block in data["blocks"] if block["official"]]
    assert shown and all(each["window"] == "primary" for each in shown)
    assert shown[0]["read_at"].startswith("2026-02-23")
