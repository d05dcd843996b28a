"""The `sniff` command line: help, JSON contract, errors, filters, time zones and pricing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from sniff.cli import app
from sniff.workspace.choices import FORMATS

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs" / "claude-code"
PROJECTS = SAMPLES / "projects"
MIDNIGHT = PROJECTS / "-home-dana-src-webshop" / "3f175670-a6da-4e73-a054-90af6fc21c6d.jsonl"
EXPECTED = json.loads((ROOT / "tests" / "golden" / "sample_logs_expected.json").read_text())
REQUEST_LOGS_EXPECTED = json.loads(
    (ROOT / "tests" / "golden" / "request_logs_expected.json").read_text()
)
OTHER_AGENTS = ("amp", "cline", "copilot", "droid", "gemini-cli", "kimi", "opencode", "openclaw",
                "pi", "qwen-code", "otel")  # fmt: skip
"""The folders of sample_logs of the other agents, each pinned by its golden test."""
WIDE = {"COLUMNS": "200"}


def run(*args: str, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(app, list(args), env=env)


def scan_json(*args: str) -> dict[str, Any]:
    result = run("scan", "--json", *args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def acme_log(folder: Path, cc, model: str = "acme-super-1", key: str = "msg_acme") -> Path:
    """A tiny transcript of one response from a model no price list knows."""
    return cc.write(
        folder / "projects" / "-home-dana-src-acme" / "a1b2c3d4.jsonl",
        [
            cc.user("u1", None, "2026-01-05T10:00:00Z", session="a1b2c3d4"),
            cc.assistant(
                key,
                "a1",
                "u1",
                "2026-01-05T10:00:04Z",
                cc.usage(100, 20_000, 3_000, 500, split=(3_000, 0)),
                model=model,
                session="a1b2c3d4",
            ),
        ],
    )


# --- help and the JSON contract ----------------------------------------------------------------


def _commands() -> list[str]:
    group = typer.main.get_command(app)
    return sorted(group.commands)  # type: ignore[attr-defined]


def test_the_commands_include_scan_and_sessions():
    assert {"scan", "sessions"} <= set(_commands())


@pytest.mark.parametrize("args", [["--help"], ["-h"], *([c, "--help"] for c in _commands())])
def test_every_command_has_help(args):
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "usage" in result.stdout.lower()  # argparse (statusline) writes it lower-case


def test_version():
    from sniff import __version__

    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"sniff {__version__}"


TOTAL_KEYS = {
    "requests",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_5m_tokens",
    "cache_write_1h_tokens",
    "output_tokens",
    "prompt_tokens",
    "cost_usd",
    "hit_rate",
    "savings_usd",
}


def test_scan_json_has_the_stable_keys():
    report = scan_json("--tz", "UTC", str(SAMPLES))
    assert {"totals", "by_model", "by_project", "by_day", "sessions", "warnings"} <= set(report)
    assert set(report["totals"]) >= TOTAL_KEYS
    for section, key in [("by_model", "model"), ("by_project", "project"), ("by_day", "day")]:
        assert report[section], section
        for row in report[section]:
            assert {key, *TOTAL_KEYS} <= set(row)
    for row in report["sessions"]:
        assert {"session", "project", "start", *TOTAL_KEYS} <= set(row)
    assert {"skipped_lines", "unpriced_models"} <= set(report["warnings"])


def test_sessions_json_has_sessions_and_warnings():
    result = run("sessions", "--json", str(SAMPLES))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert len(report["sessions"]) == len(EXPECTED["sessions"])
    assert report["warnings"]["skipped_lines"] == 1


# --- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["scan", "sessions"])
def test_missing_path_is_one_line_and_exit_2(tmp_path, command):
    missing = tmp_path / "no-such-folder"
    result = run(command, str(missing))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert str(missing) in lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["scan", "--since", "yesterday"], "yesterday"),
        (["scan", "--until", "2026-13-01"], "2026-13-01"),
        (["scan", "--tz", "Mars/Olympus_Mons"], "Mars/Olympus_Mons"),
        (["scan", "--agent", "robot"], "robot"),
        (["sessions", "--sort", "mood"], "mood"),
    ],
    ids=["since", "until", "tz", "agent", "sort"],
)
def test_bad_option_values_exit_2_naming_the_value(args, named):
    result = run(*args, str(SAMPLES))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert named in lines[0]


def test_bad_pricing_file_exits_2(tmp_path):
    prices = tmp_path / "p.toml"
    prices.write_text("[models.m]\ninput_mtok = -3\n")
    result = run("scan", "--pricing", str(prices), str(SAMPLES))
    assert result.exit_code == 2
    assert "non-negative" in result.stderr


# --- filters -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "requests"),
    [
        (["--since", "2026-01-01"], 16 + 9 + 4 + 29 + 32),  # the four projects of 2026
        (["--until", "2025-09-09"], 5 + 11 + 3),  # --until includes the day: 3 before midnight
        (["--since", "2025-09-10T00:00:00+00:00", "--until", "2025-09-11"], 4),
        (["--since", "2025-11-26", "--until", "2025-11-26"], 3),  # the resume replays not twice
        (["--project", "ledger"], 9 + 3 + 4),
        (["--project", "TILESRV"], 16 + 9),
        (["--project", "tilesrv", "--agent", "subagent"], 3 + 2),
        (["--model", "haiku"], 8 + 4 + 2),  # 4 in breaks-demo's subagent, 2 in agent-habits
        (["--model", "nothing-like-this"], 0),
    ],
)
def test_filters_select_the_expected_requests(args, requests):
    report = scan_json("--tz", "UTC", *args, str(SAMPLES))
    assert report["totals"]["requests"] == requests
    assert sum(row["requests"] for row in report["sessions"]) == requests


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--model", "opus-4-6"], EXPECTED["by_model"]["claude-opus-4-6"]),
        (["--agent", "main"], EXPECTED["by_agent"]["main"]),
        (["--agent", "subagent"], EXPECTED["by_agent"]["subagent"]),
        (["--agent", "compaction"], EXPECTED["by_agent"]["compaction"]),
    ],
)
def test_model_and_agent_filters_give_exact_tokens(args, expected):
    totals = scan_json("--tz", "UTC", *args, str(SAMPLES))["totals"]
    assert {key: totals[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("zone", "days"),
    [
        ("UTC", {"2025-09-09": 3, "2025-09-10": 4}),
        ("America/New_York", {"2025-09-09": 7}),
        ("Asia/Tokyo", {"2025-09-10": 7}),
    ],
)
def test_tz_moves_requests_across_midnight(zone, days):
    """The session runs 23:38-00:06 UTC; days are calendar days in --tz."""
    report = scan_json("--tz", zone, str(MIDNIGHT))
    assert {row["day"]: row["requests"] for row in report["by_day"]} == days


@pytest.mark.parametrize(("zone", "requests"), [("UTC", 4), ("America/New_York", 0)])
def test_since_date_is_midnight_in_tz(zone, requests):
    report = scan_json("--tz", zone, "--since", "2025-09-10", str(MIDNIGHT))
    assert report["totals"]["requests"] == requests


def test_sessions_sort_by_start_is_oldest_first():
    result = run("sessions", "--json", "--sort", "start", str(SAMPLES))
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["sessions"]
    starts = [row["start"] for row in rows]
    assert starts == sorted(starts)
    assert rows[0]["session"].startswith("515c8333")
    assert rows[-1]["session"].startswith("894af375")


def test_sessions_sort_by_cost_is_dearest_first_and_limit_cuts():
    result = run("sessions", "--json", "--limit", "3", str(SAMPLES))
    assert result.exit_code == 0, result.output
    costs = [row["cost_usd"] for row in json.loads(result.stdout)["sessions"]]
    assert len(costs) == 3
    assert costs == sorted(costs, reverse=True)
    everything = scan_json(str(SAMPLES))["sessions"]
    assert costs[0] == max(row["cost_usd"] for row in everything)


# --- skipped lines -----------------------------------------------------------------------------


def _log_with_bad_lines(folder: Path, cc) -> Path:
    return cc.write(
        folder / "s.jsonl",
        [
            cc.user("u1", None, "2026-01-05T10:00:00Z"),
            "[1, 2, 3]",
            cc.assistant("msg_A", "a1", "u1", "2026-01-05T10:00:04Z", cc.usage(4, 900, 30, 12)),
            '{"type": "assistant", "message": {',
        ],
    )


def test_verbose_lists_skipped_lines_as_file_line_reason(tmp_path, cc):
    path = _log_with_bad_lines(tmp_path, cc)
    result = run("scan", "--verbose", str(path), env={"COLUMNS": "500"})
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert f"{path}:2: a JSON array, not an object" in lines
    assert any(line.startswith(f"{path}:4: invalid JSON") for line in lines), lines
    quiet = run("scan", str(path), env=WIDE)
    assert f"{path}:2" not in quiet.output
    assert "2 lines skipped" in quiet.stdout
    as_json = run("scan", "--json", "--verbose", str(path), env={"COLUMNS": "500"})
    assert json.loads(as_json.stdout)["warnings"]["skipped_lines"] == 2  # the list is on stderr
    assert f"{path}:2: a JSON array, not an object" in as_json.stderr.splitlines()


def test_verbose_lines_stay_whole_at_80_columns(tmp_path, cc):
    deep = tmp_path / ".claude" / "projects" / "-home-dana-src-a-rather-long-project-name"
    path = _log_with_bad_lines(deep / "9f8e7d6c-5b4a-4321-8fed-cba987654321", cc)
    assert len(str(path)) > 80
    result = run("scan", "--verbose", str(path), env={"COLUMNS": "80"})
    assert f"{path}:2: a JSON array, not an object" in result.stderr.splitlines()


def test_unreadable_file_is_a_warning_not_an_error(tmp_path, cc):
    folder = tmp_path / "projects" / "-home-dana-src-x"
    cc.write(
        folder / "good.jsonl",
        [cc.assistant("msg_A", "a1", None, "2026-01-05T10:00:04Z", cc.usage())],
    )
    (folder / "gone.jsonl").symlink_to(folder / "deleted.jsonl")  # unreadable, even for root
    report = scan_json(str(tmp_path))
    assert report["totals"]["requests"] == 1
    assert report["warnings"]["unreadable_files"] == [str(folder / "gone.jsonl")]


# --- unpriced models and --pricing -------------------------------------------------------------


def test_unpriced_model_has_null_cost_and_is_listed(tmp_path, cc):
    acme_log(tmp_path, cc)
    report = scan_json(str(tmp_path))
    assert report["totals"]["cost_usd"] is None
    assert report["totals"]["input_tokens"] == 100
    assert report["totals"]["cache_read_tokens"] == 20_000
    [row] = report["by_model"]
    assert (row["model"], row["cost_usd"], row["requests"]) == ("acme-super-1", None, 1)
    assert report["warnings"]["unpriced_models"] == ["acme-super-1"]


def test_unpriced_model_reads_unpriced_never_zero_dollars(tmp_path, cc):
    acme_log(tmp_path, cc)
    result = run("scan", str(tmp_path), env=WIDE)
    assert result.exit_code == 0, result.output
    assert "unpriced" in result.stdout
    assert "$0" not in result.stdout
    assert "acme-super-1" in result.stdout


def test_unpriced_requests_are_kept_apart_from_a_priced_total(tmp_path, cc):
    acme_log(tmp_path, cc)
    acme_log(tmp_path / "other", cc, model="claude-sonnet-4-20250514", key="msg_sonnet")
    report = scan_json(str(tmp_path))
    totals = report["totals"]
    assert (totals["requests"], totals["unpriced_requests"]) == (2, 1)
    sonnet = (100 * 3.00 + 20_000 * 0.30 + 3_000 * 3.75 + 500 * 15.00) / 1e6
    assert totals["cost_usd"] == pytest.approx(sonnet, abs=1e-6)
    assert report["warnings"]["unpriced_models"] == ["acme-super-1"]
    text = run("scan", str(tmp_path), env=WIDE).stdout
    assert "unpriced" in text


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_pricing_file_prices_the_unknown_model(tmp_path, cc, suffix):
    acme_log(tmp_path / "logs", cc)
    prices = tmp_path / f"prices{suffix}"
    table = {"input_mtok": 2, "cache_read_mtok": 0.2, "cache_write_mtok": 2.5, "output_mtok": 10}
    if suffix == ".toml":
        body = "\n".join(f"{key} = {value}" for key, value in table.items())
        prices.write_text(f'[models."acme-super-1"]\n{body}\n')
    else:
        prices.write_text(json.dumps({"models": {"acme-super-1": table}}))
    report = scan_json("--pricing", str(prices), str(tmp_path / "logs"))
    cost = (100 * 2 + 20_000 * 0.2 + 3_000 * 2.5 + 500 * 10) / 1e6
    assert report["totals"]["cost_usd"] == pytest.approx(cost, abs=1e-6)
    assert report["warnings"]["unpriced_models"] == []


# --- where logs are found ----------------------------------------------------------------------


def test_no_arguments_and_no_logs_falls_back_to_the_bundled_samples():
    result = run(env=WIDE)
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "bundled sample logs" in text
    bundled = (
        EXPECTED["totals"]["requests"]
        + sum(log["requests"] for log in REQUEST_LOGS_EXPECTED.values())
        + sum(scan_json(str(ROOT / "sample_logs" / a))["totals"]["requests"] for a in OTHER_AGENTS)
    )
    assert f"{bundled} requests" in text
    report = json.loads(run("--json").stdout)
    assert report["source"]["sample_logs"] is True
    assert report["totals"]["requests"] == bundled
    assert set(report["source"]["formats"]) == set(FORMATS) - {"goose"}  # Goose's is built


def test_no_arguments_reads_the_logs_under_home(cc):
    acme_log(Path.home() / ".claude", cc, model="claude-haiku-4-5-20251001")
    report = json.loads(run("--json").stdout)
    assert report["source"]["sample_logs"] is False
    assert report["totals"]["requests"] == 1
    assert report["by_model"][0]["model"] == "claude-haiku-4-5-20251001"


def test_claude_config_dir_is_searched(tmp_path, cc, monkeypatch):
    acme_log(tmp_path / "cfg", cc, model="claude-haiku-4-5-20251001")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cfg"))
    report = json.loads(run("--json").stdout)
    assert (report["source"]["sample_logs"], report["totals"]["requests"]) == (False, 1)


# --- the console script ------------------------------------------------------------------------


def _console(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sniff", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    ("args", "named"),
    [(["--no-such-option"], "--no-such-option"), (["/no/such/logs"], "/no/such/logs")],
    ids=["unknown-option", "missing-path"],
)
def test_console_script_errors_are_one_line_exit_2(args, named):
    result = _console(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("sniff: error:")
    assert named in lines[0]
    assert result.stdout == ""
