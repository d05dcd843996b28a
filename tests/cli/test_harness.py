"""Every request carries the agent whose log it is: `scan` sums them by harness, `--harness`
keeps one, sessions and exports say it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.model import Harness
from sniff.workspace.choices import HARNESSES
from tests.conftest import SAMPLE_LOGS

runner = CliRunner()


def scan(*arguments: str | Path) -> dict[str, Any]:
    result = runner.invoke(app, ["scan", "--json", "--tz", "UTC", *map(str, arguments)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_harness_choices_are_the_records_harnesses() -> None:
    assert tuple(harness.value for harness in Harness) == HARNESSES


def test_scan_sums_the_bundled_logs_by_harness() -> None:
    report = scan(SAMPLE_LOGS)
    rows = {row["harness"]: row for row in report["by_harness"]}
    assert {name: row["requests"] for name, row in rows.items()} == {
        "claude-code": 146, "api": 25, "codex": 11, "gemini-cli": 11, "qwen-code": 7,
        "opencode": 9, "kilo": 1, "pi": 6, "openclaw": 2, "kimi": 7, "cline": 8, "roo-code": 2,
        "kilo-code": 2, "copilot": 8, "amp": 5, "droid": 0,
    }  # fmt: skip
    assert rows["droid"]["session_totals"] == 2  # Droid logs sessions' totals, no call
    for measure in ("requests", "input_tokens", "cache_read_tokens", "output_tokens"):
        assert sum(row[measure] for row in rows.values()) == report["totals"][measure]
    assert {session["harness"] for session in report["sessions"]} == set(rows)


def test_what_an_agent_logged_its_calls_cost_is_shown_beside_sniffs_cost() -> None:
    """pi logs each call's cost at the same prices: no difference; Claude Code's transcripts
    log none, its telemetry does (`sample_logs/otel`: at the library's prices)."""
    rows = {row["harness"]: row for row in scan(SAMPLE_LOGS)["by_harness"]}
    claude = rows["claude-code"]
    assert claude["reported_requests"] == 4  # the fifth failed: no cost
    assert claude["reported_cost_usd"] == pytest.approx(0.116218)
    assert claude["cost_minus_reported_usd"] == pytest.approx(0, abs=1e-6)
    transcripts = scan(SAMPLE_LOGS / "claude-code")["by_harness"][0]
    assert transcripts["reported_cost_usd"] is None
    assert transcripts["cost_minus_reported_usd"] is None
    pi = rows["pi"]
    assert pi["reported_requests"] == pi["requests"] == 6
    assert pi["reported_cost_usd"] == pytest.approx(pi["cost_usd"], abs=1e-6)
    cline = rows["cline"]  # its sample logs its own prices, a little under the library's
    assert cline["cost_minus_reported_usd"] == pytest.approx(
        cline["cost_usd"] - cline["reported_cost_usd"], abs=2e-6
    )
    assert cline["cost_minus_reported_usd"] > 0


def test_harness_keeps_one_agents_requests() -> None:
    everything = {row["harness"]: row for row in scan(SAMPLE_LOGS)["by_harness"]}
    for name in ("codex", "api", "claude-code"):
        report = scan(SAMPLE_LOGS, "--harness", name)
        assert [row["harness"] for row in report["by_harness"]] == [name]
        assert report["totals"]["requests"] == everything[name]["requests"]
        assert report["totals"]["cost_usd"] == everything[name]["cost_usd"]
    result = runner.invoke(app, ["scan", str(SAMPLE_LOGS), "--harness", "claude"])
    assert result.exit_code == 2
    assert result.output.startswith("sniff: error: --harness must be one of claude-code, codex")


def test_an_export_keeps_each_requests_harness(tmp_path: Path) -> None:
    target = tmp_path / "export"
    result = runner.invoke(app, ["export", str(SAMPLE_LOGS), "-o", str(target), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert scan(target)["by_harness"] == scan(SAMPLE_LOGS)["by_harness"]


def test_the_report_has_a_cost_by_harness_table_with_each_agents_own_figure() -> None:
    result = runner.invoke(app, ["report", str(SAMPLE_LOGS), "-f", "md", "--tz", "UTC"])
    assert result.exit_code == 0, result.output
    section = result.stdout.split("## Cost by harness", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[0]: cells
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| harness")
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    assert rows["claude-code"][-2:] == ["$0.116", "$0.00"]  # its telemetry's, at sniff's prices
    assert rows["droid"][1] == "0 (+2 sessions of totals)"
    assert rows["pi"][-2] == rows["pi"][2]  # pi logged what sniff prices: the same dollars
    harnesses = {row["harness"] for row in scan(SAMPLE_LOGS)["by_harness"]}
    assert set(rows) == harnesses
