"""`sniff drift` on a planted archive: one version reads 95 % of its prompt from cache, the next
70 %; the command must find that one change, at the version change, and nothing on a control."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.drift_archive import NEW, OLD, plant

runner = CliRunner()


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plant(tmp_path_factory.mktemp("planted"))


@pytest.fixture(scope="module")
def control(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plant(tmp_path_factory.mktemp("control"), after=0.95)


def drift(*arguments: str | Path) -> dict[str, Any]:
    result = runner.invoke(app, ["drift", "--json", *map(str, arguments)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_the_planted_change_is_one_event_at_the_version_change(planted: Path) -> None:
    data = drift(planted, "--tz", "UTC")
    assert len(data["events"]) == 1
    event = data["events"][0]
    assert event["at"] == "2026-03-11"  # the first day of the new version
    hit = next(
        p for p in event["series"] if p["measure"] == "hit_rate" and p["dimension"] == "overall"
    )
    assert abs(hit["before"]["level"] - 0.95) < 0.02
    assert abs(hit["after"]["level"] - 0.70) < 0.02
    assert hit["change_low"] <= hit["change"] <= hit["change_high"] < 0
    attributed = event["attributed_to"]
    assert (attributed["kind"], attributed["from"], attributed["to"]) == ("version", OLD, NEW)
    assert attributed["first_seen"].startswith("2026-03-11T09:00:00")
    assert attributed["share_after"] == 1.0
    assert attributed["evidence"]["requests_before"] == hit["before"]["requests"] == 960
    assert event["sentence"].startswith("hit rate fell from 95.0 % to 70.0 % and ")
    assert "on 2026-03-11, when Claude Code went from 2.1.38 to 2.1.39" in event["sentence"]
    # every series that moved is in the one event, none elsewhere
    assert len(data["change_points"]) == len(event["series"])


def test_no_event_without_the_change(control: Path) -> None:
    data = drift(control, "--tz", "UTC")
    assert data["events"] == [] and data["change_points"] == []
    overall = data["summary"][0]
    assert overall["dimension"] == "overall" and overall["requests"] == 2016


def test_days_are_in_the_zone_asked_for(planted: Path) -> None:
    # the new version's first session starts at 09:00 UTC: 23:00 the day before in Honolulu,
    # a day that holds two sessions of the old version too; the next day is all new
    data = drift(planted, "--tz", "Pacific/Honolulu")
    assert data["zone"] == "Pacific/Honolulu"
    [event] = data["events"]
    assert event["at"] == "2026-03-11"
    assert event["attributed_to"]["first_seen"] == "2026-03-10T23:00:00-10:00"
    overall = data["series"][0]["points"]
    mixed = next(p for p in overall if p["period"] == "2026-03-10")
    assert mixed["requests"] == 3 * 32 and mixed["hit_rate"] == pytest.approx((2 * 0.95 + 0.70) / 3)


def test_weeks_are_those_of_report(planted: Path) -> None:
    data = drift(planted, "--tz", "UTC", "--by", "week")
    overall = data["series"][0]
    assert [p["period"] for p in overall["points"]] == ["2026-W09", "2026-W10", "2026-W11",
                                                         "2026-W12"]  # fmt: skip
    result = runner.invoke(app, ["report", "-f", "json", "--by", "week", "--tz", "UTC",
                                 str(planted)])  # fmt: skip
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    keys = [group["week"] for group in report["groups"]]
    assert keys == [p["period"] for p in overall["points"]]
    assert sum(p["requests"] for p in overall["points"]) == 2016


def test_version_compare(planted: Path) -> None:
    data = drift(planted, "--tz", "UTC", "--version-compare", OLD, f"claude-code {NEW}")
    old, new = data["version_compare"]
    assert (old["version"], old["requests"], new["requests"]) == (OLD, 960, 1056)
    assert old["matched"] == [f"claude-code {OLD}"]
    assert old["measures"]["hit_rate"]["level"] == pytest.approx(0.95)
    assert new["measures"]["hit_rate"]["level"] == pytest.approx(0.70)
    low, high = new["measures"]["hit_rate"]["low"], new["measures"]["hit_rate"]["high"]
    assert low <= 0.70 <= high


def test_version_compare_on_the_terminal(planted: Path) -> None:
    result = runner.invoke(app, ["drift", "--tz", "UTC", "--version-compare", OLD, NEW,
                                 str(planted)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Versions compared" in result.stdout and "70.0%" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--version-compare", OLD, "9.9.9"], "version '9.9.9' is not in the logs read"),
        (["--by", "month"], "--by must be one of day, week, not 'month'"),
        (["--tz", "Mars/Olympus"], "Mars/Olympus"),
    ],
)
def test_user_errors_are_one_line(planted: Path, arguments: list[str], message: str) -> None:
    result = runner.invoke(app, ["drift", *arguments, str(planted)])
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_the_table_says_the_event(planted: Path) -> None:
    result = runner.invoke(app, ["drift", "--tz", "UTC", str(planted)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "hit rate fell from 95.0 % to 70.0 %" in result.stdout
    assert "Claude Code went from 2.1.38 to 2.1.39" in result.stdout


def test_filters_narrow_the_series(planted: Path) -> None:
    data = drift(planted, "--tz", "UTC", "--since", "2026-03-12")  # only the new version
    assert data["events"] == []
    assert data["summary"][0]["measures"]["hit_rate"]["level"] == pytest.approx(0.70)
    data = drift(planted, "--tz", "UTC", "--agent", "subagent")
    assert {s["value"] for s in data["series"] if s["dimension"] == "model"} == {
        "claude-haiku-4-5-20251001"
    }


def test_json_keys_are_stable(planted: Path) -> None:
    data = drift(planted, "--tz", "UTC")
    assert list(data) == ["by", "zone", "requests", "left_out", "rules", "interval", "notes",
                          "measures", "summary", "series", "change_points", "events",
                          "version_compare"]  # fmt: skip
    assert list(data["events"][0]) == ["at", "last", "sentence", "series", "context",
                                       "attributed_to"]  # fmt: skip


def test_the_report_has_a_drift_section(planted: Path, tmp_path: Path) -> None:
    data = json.loads(runner.invoke(app, ["report", "--json", "--tz", "UTC", str(planted)]).stdout)
    [event] = data["drift"]["events"]
    assert event == drift(planted, "--tz", "UTC")["events"][0]
    weeks = data["drift"]["weekly_hit_rate"]
    assert [w["week"] for w in weeks] == ["2026-W09", "2026-W10", "2026-W11", "2026-W12"]
    assert weeks[0]["hit_rate"] == pytest.approx(0.95)
    markdown = runner.invoke(app, ["report", "-f", "md", "--tz", "UTC", str(planted)]).stdout
    assert "## Changes over time" in markdown and event["sentence"] in markdown
    page = tmp_path / "r.html"
    result = runner.invoke(app, ["report", "--tz", "UTC", "-o", str(page), str(planted)])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert (
        "id='chart-hit-rate'" in html and "dashed: the changes numbered under More detail" in html
    )
    chart = html.split("id='chart-hit-rate'", 1)[1].split("</figure>", 1)[0]
    assert chart.count("stroke-dasharray") == 2  # the change, marked in the wide and narrow drawing
    assert "id='drift'" in html
