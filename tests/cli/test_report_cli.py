"""`sniff report`: its totals equal `sniff scan`'s, in every format and grouping."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.present.report_data import CSV_COLUMNS
from tests.conftest import SAMPLE_LOGS

runner = CliRunner()
SUMMED = ("requests", "input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
          "cache_write_1h_tokens", "output_tokens", "reasoning_tokens")  # fmt: skip


@pytest.fixture(scope="module")
def scanned() -> dict[str, Any]:
    result = runner.invoke(app, ["scan", str(SAMPLE_LOGS), "--json", "--tz", "UTC"])
    assert result.exit_code == 0
    totals: dict[str, Any] = json.loads(result.stdout)["totals"]
    return totals


def report(*options: str) -> str:
    result = runner.invoke(app, ["report", str(SAMPLE_LOGS), "--tz", "UTC", *options])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("by", ["day", "week", "month", "project", "model", "session", "agent"])
def test_csv_rows_add_up_to_the_scan(by: str, scanned: dict[str, Any]) -> None:
    rows = list(csv.DictReader(io.StringIO(report("-f", "csv", "--by", by))))
    assert list(rows[0]) == [by, *CSV_COLUMNS]
    for column in SUMMED:
        assert sum(int(row[column]) for row in rows) == scanned[column], column
    cost = sum(float(row["cost_usd"]) for row in rows)
    assert cost == pytest.approx(scanned["cost_usd"], abs=1e-5)


def test_json_totals_are_the_scans(scanned: dict[str, Any]) -> None:
    data = json.loads(report("-f", "json", "--by", "model"))
    assert data["totals"] == scanned
    assert data["by"] == "model" and len(data["groups"]) > 1
    for key in ("breaks", "what_if", "lint", "latency", "assumptions", "source", "warnings"):
        assert key in data
    assert data["breaks"]["count"] > 0 and data["latency"][0]["metric"] == "ttft"


def test_markdown_holds_every_section() -> None:
    text = report("-f", "md", "--by", "week")
    for heading in (
        "# LLM cost report",
        "## Cost by week",
        "## Cache breaks by cause",
        "## What another cache policy would have cost",
        "## Prompt findings (sniff lint)",
        "## Latency peaks: time to first token",
        "## Assumptions",
    ):
        assert heading in text


def test_html_is_one_file_with_its_charts_inline(tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(SAMPLE_LOGS), "-o", str(target)])
    assert result.exit_code == 0
    page = target.read_text()
    assert page.count("<svg") >= 4
    assert "<link" not in page and "src=" not in page  # nothing to fetch


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["-f", "pdf"], "--output-format must be one of html, md, csv, json"),
        (["--by", "year"], "--by must be one of day, week, month"),
    ],
)
def test_user_errors_are_one_line(options: list[str], message: str) -> None:
    result = runner.invoke(app, ["report", str(SAMPLE_LOGS), *options])
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1


def test_lint_findings_come_only_from_the_selected_projects_logs() -> None:
    trace = json.loads(report("-f", "json", "--project", "claude-trace"))["lint"]
    assert trace and all("/claude-trace/" in finding["file"] for finding in trace)
    others = json.loads(report("-f", "json", "--project", "agent-habits"))["lint"]
    assert not any("/claude-trace/" in finding["file"] for finding in others)


def test_model_and_agent_filters_narrow_the_agents_section() -> None:
    whole = json.loads(report("-f", "json"))["agents"]["tools"]["calls"]
    models = [row["model"] for row in json.loads(report("-f", "json"))["by_model"]]
    per_model = [json.loads(report("-f", "json", "--model", name))["agents"] for name in models]
    calls = [section["tools"]["calls"] if section else 0 for section in per_model]
    assert sum(calls) == whole and max(calls) < whole  # each call belongs to one model's request
    assert json.loads(report("-f", "json", "--model", "no-such-model"))["agents"] is None
    main_only = json.loads(report("-f", "json", "--agent", "main"))["agents"]["tools"]["calls"]
    assert 0 < main_only < whole
