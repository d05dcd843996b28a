"""`sniff report`: its totals equal `sniff scan`'s, in every format and grouping."""

from __future__ import annotations

import csv
import io
import json
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.present.report.data import CSV_COLUMNS
from tests.conftest import FIRST_SAMPLES, SAMPLE_LOGS

runner = CliRunner()
SUMMED = ("requests", "input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
          "cache_write_1h_tokens", "output_tokens", "reasoning_tokens")  # fmt: skip


@pytest.fixture(scope="module")
def scanned() -> dict[str, Any]:
    result = runner.invoke(app, ["scan", *FIRST_SAMPLES, "--json", "--tz", "UTC"])
    assert result.exit_code == 0
    totals: dict[str, Any] = json.loads(result.stdout)["totals"]
    return totals


def report(*options: str) -> str:
    result = runner.invoke(app, ["report", *FIRST_SAMPLES, "--tz", "UTC", *options])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize(
    "by", ["day", "week", "month", "project", "model", "session", "agent", "harness"]
)
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


class Tables(HTMLParser):
    """Each table of the report page by its heading's id: rows of (text, data-sort) cells."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[tuple[str, str | None]]]] = {}
        self.heading = ""
        self.cell: list[str] | None = None
        self.sort: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "h2":
            self.heading = found.get("id") or ""
        elif tag == "tr" and self.heading:
            self.tables.setdefault(self.heading, []).append([])
        elif tag in ("td", "th"):
            self.cell, self.sort = [], found.get("data-sort")

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None:
            self.tables[self.heading][-1].append(("".join(self.cell).strip(), self.sort))
            self.cell = None


def html_tables(*options: str) -> dict[str, list[list[tuple[str, str | None]]]]:
    parser = Tables()
    parser.feed(report("-f", "html", *options))
    return parser.tables


def md_table(text: str, heading: str) -> list[list[str]]:
    """The rows (header first) of the Markdown table under `heading`."""
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[:1] + lines[2:]
    ]


def test_every_report_shows_cost_by_project_and_by_model(scanned: dict[str, Any]) -> None:
    tables = html_tables()
    for anchor, key in (("cost-by-project", "project"), ("cost-by-model", "model")):
        header, *rows = tables[anchor]
        assert [text for text, _ in header][:3] == [key, "requests", "cost"]
        assert sum(float(row[2][1] or 0) for row in rows) == pytest.approx(
            scanned["cost_usd"], abs=1e-6
        )
        assert sum(int(row[1][1] or 0) for row in rows) == scanned["requests"]
    assert "cost-by-day" in tables  # --by's grouping (day by default) is still shown
    text = report("-f", "md")
    for heading, column in (("## Cost by project", "project"), ("## Cost by model", "model")):
        header, *rows = md_table(text, heading)
        assert header[0] == column and len(rows) > 1
        assert sum(int(row[1].replace(",", "")) for row in rows) == scanned["requests"]


def test_by_adds_a_grouping_without_repeating_one() -> None:
    text = report("-f", "md", "--by", "project")
    assert text.count("## Cost by project") == 1 and text.count("## Cost by model") == 1
    assert "## Cost by day" not in text
    assert "## Cost by week" in report("-f", "md", "--by", "week")


def test_what_ifs_start_with_what_was_paid_and_match_sniff_cache(scanned: dict[str, Any]) -> None:
    result = runner.invoke(app, ["cache", *FIRST_SAMPLES, "--json", "--tz", "UTC"])
    assert result.exit_code == 0, result.output
    cached = json.loads(result.stdout)["what_if"]
    assert "engine" in [row["policy"] for row in cached]
    assert json.loads(report("-f", "json"))["what_if"] == cached
    header, paid, *policies = html_tables()["what-if"]
    assert paid[0][0] == "what you paid"
    assert float(paid[2][1] or 0) == pytest.approx(scanned["cost_usd"], abs=1e-6)
    assert [row[0][0] for row in policies] == [row["policy"] for row in cached]
    for row, expected in zip(policies, cached, strict=True):
        assert float(row[2][1] or 0) == pytest.approx(expected["cost_usd"], abs=1e-6)
        assert float(row[3][1] or 0) == pytest.approx(expected["delta_usd"], abs=1e-6)
    _, *rows = md_table(report("-f", "md"), "## What another cache policy would have cost")
    assert [row[0] for row in rows] == ["what you paid", *(row["policy"] for row in cached)]


@pytest.mark.parametrize("root", [SAMPLE_LOGS, Path(os.path.relpath(SAMPLE_LOGS))])
def test_lint_locations_read_from_the_scanned_root(root: Path) -> None:
    result = runner.invoke(app, ["report", str(root), "--tz", "UTC", "-f", "md"])
    assert result.exit_code == 0, result.output
    header, *rows = md_table(result.stdout, "## Prompt findings (sniff lint)")
    assert header[1] == "where" and rows
    for row in rows:
        assert row[1].startswith("claude-trace/"), row[1]  # the folder inside sample_logs
    assert f"Locations are relative to {root}." in result.stdout
    where = [row[1][0] for row in html_tables("--project", "claude-trace")["lint"][1:]]
    assert where and all(not place.startswith(("/", "sample_logs")) for place in where)


def test_a_redacted_report_does_not_claim_its_pseudonyms_are_relative() -> None:
    text = report("-f", "md", "--redact")
    _, *rows = md_table(text, "## Prompt findings (sniff lint)")
    assert rows and all(row[1].startswith("file-") for row in rows)
    assert "Locations are relative to" not in text


def test_the_report_shows_the_first_visible_token_beside_ttft_and_says_what_it_means() -> None:
    data = json.loads(report("-f", "json"))
    assert [item["metric"] for item in data["latency"]] == ["ttft", "visible", "e2e"]
    visible = data["latency"][1]
    assert visible["count"] == 124 and visible["beside_ttft"][0]["model"] == "all models"
    markdown = report("-f", "md")
    assert "## Time to first visible token beside time to first token" in markdown
    assert "Their difference is how much later the user saw anything, not thinking time" in (
        markdown
    )
    page = report("-f", "html")
    assert "id='chart-latency-visible'" in page and "latency-visible-beside" in page
    assert "not thinking time: it also holds the text block" in page
