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
from sniff.model_names import table_names
from sniff.present.report.data import CSV_COLUMNS
from sniff.shown import markdown_text
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
        "## Top sessions",
        "## Top projects",
        "## Top models",
        "## Subscription or API",
        "## What wasted money, and how to stop it",
        "## What another cache policy would have cost",
        "## Latency by model",
        "## Prompt findings by rule (sniff lint)",
        "## Cost by week",
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
        if tag in ("h2", "h3", "details"):
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
    section = text.split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    return [
        [cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[:1] + lines[2:]
    ]


def test_every_report_shows_the_top_projects_and_models_as_the_scan_counts_them() -> None:
    result = runner.invoke(app, ["scan", *FIRST_SAMPLES, "--json", "--tz", "UTC"])
    scan = json.loads(result.stdout)
    tables = html_tables()
    markdown = report("-f", "md")
    for anchor, key in (("cost-by-project", "project"), ("cost-by-model", "model")):
        keys = [row[key] for row in scan[f"by_{key}"]]
        names = table_names(keys) if key == "model" else keys  # tables drop a model's date
        expected = dict(zip(names, scan[f"by_{key}"], strict=True))
        header, *rows = tables[anchor]
        assert [text for text, _ in header][:3] == [key, "requests", "cost"]
        assert len(rows) == min(10, len(expected))
        for row in rows:
            assert float(row[2][1] or 0) == pytest.approx(expected[row[0][0]]["cost_usd"], abs=1e-6)
            assert int(row[1][1] or 0) == expected[row[0][0]]["requests"]
        _, *md_rows = md_table(markdown, f"## Top {key}s")
        unescaped = [row[0].replace("\\", "") for row in md_rows]  # Markdown escapes `_`
        assert unescaped == [row[0][0] for row in rows]
    assert "cost-by-day" in tables  # --by's grouping (day by default) is still shown


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
    header, *rules = md_table(result.stdout, "## Prompt findings by rule (sniff lint)")
    assert header[:3] == ["rule", "what", "findings"] and rules
    for rule, _, count, _ in rules:
        heading = next(
            line for line in result.stdout.splitlines() if line.startswith(f"### {rule}")
        )
        found_header, *found = md_table(result.stdout, heading)
        assert found_header[0] == "where" and len(found) == int(count)
        for row in found:
            assert row[0].startswith("claude-trace/"), row[0]  # the folder inside sample_logs
    assert markdown_text(f"Locations are relative to {root}.") in result.stdout
    tables = html_tables("--project", "claude-trace")
    where = [row[0][0] for anchor, rows in tables.items() if anchor.startswith("lint-SN")
             for row in rows[1:]]  # fmt: skip
    assert where and all(not place.startswith(("/", "sample_logs")) for place in where)


def test_lint_findings_are_grouped_by_rule_with_their_counts_folded_away() -> None:
    data = json.loads(report("-f", "json"))
    counted = {row["rule"]: row["findings"] for row in data["lint_by_rule"]}
    page = report("-f", "html")
    for rule, count in counted.items():
        assert f"<details id='lint-{rule}'><summary><b>{rule}</b>" in page
        assert len(html_tables()[f"lint-{rule}"]) == count + 1  # the header, then each finding
    assert sum(counted.values()) >= len(data["lint"])


def test_a_redacted_report_does_not_claim_its_pseudonyms_are_relative() -> None:
    text = report("-f", "md", "--redact")
    headings = [line for line in text.splitlines() if line.startswith("### SN")]
    assert headings
    for heading in headings:
        _, *rows = md_table(text, heading)
        assert rows and all(row[0].startswith("file-") for row in rows)
    assert "Locations are relative to" not in text


def test_the_report_shows_the_first_visible_token_beside_ttft_and_says_what_it_means() -> None:
    data = json.loads(report("-f", "json"))
    assert [item["metric"] for item in data["latency"]] == ["ttft", "visible", "e2e"]
    assert data["latency"][1]["count"] == 124
    assert data["latency_by_model"][0]["model_group"] == "all models"
    markdown = report("-f", "md")
    header, *rows = md_table(markdown, "## Latency by model")
    assert header[3] == "TTFT p50" and header[5] == "visible p50"
    assert rows[0][0] == "all models"
    assert "their difference is how much later the user saw anything, not thinking time" in (
        markdown
    )
    page = report("-f", "html")
    assert (
        "id='chart-latency-" in page and "not thinking time (it also holds the text block" in page
    )


def cli_json(*arguments: str) -> Any:
    result = runner.invoke(app, [*arguments, str(SAMPLE_LOGS), "--tz", "UTC", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_the_month_and_its_projection_are_monthlys_figures() -> None:
    data = cli_json("report")
    outlook = data["outlook"]
    months = {row["month"]: row["cost_usd"] for row in cli_json("monthly")["monthly"]}
    assert outlook["month"] == max(months)
    assert outlook["month_to_date_usd"] == pytest.approx(months[outlook["month"]], abs=1e-5)
    year, month = (int(part) for part in outlook["month"].split("-"))
    before = f"{year - (month == 1)}-{(month - 2) % 12 + 1:02d}"
    assert outlook["previous_month_usd"] == pytest.approx(months.get(before, 0.0), abs=1e-5)
    assert outlook["month_to_date_usd"] <= outlook["projected_low_usd"] <= outlook["projected_usd"]
    assert outlook["projected_usd"] <= outlook["projected_high_usd"]
    assert outlook["days_left"] > 0 and outlook["sampled_days"] == 28
    assert data == cli_json("report")  # the resampled range is the same on every run


def test_the_plans_are_blocks_figures_and_plan_chooses_one() -> None:
    months = cli_json("blocks", "--plan", "max5")["plan"]["months"]
    plans = cli_json("report", "--plan", "max5")["plans"]
    assert [plan["key"] for plan in plans] == ["max5"] and plans[0]["months"] == months
    assert [plan["key"] for plan in cli_json("report")["plans"]] == ["pro", "max5", "max20"]
    page = runner.invoke(app, ["report", str(SAMPLE_LOGS), "--tz", "UTC", "-f", "md"]).stdout
    header, *rows = md_table(page, "## Subscription or API")
    assert header[:3] == ["month", "requests", "at API prices"] and len(rows) == 3
    assert [row[0] for row in rows] == [row["month"] for row in months[::-1][:3]]
    assert [row[4] for row in rows] == [f"{row['multiple']:.2f}×" for row in months[::-1][:3]]
