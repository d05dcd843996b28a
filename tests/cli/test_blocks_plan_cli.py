"""`sniff blocks --plan` (with and without --weekly, --plan-file), the options of `sniff blocks`
the first file leaves out (--until, --tz for display only), and its tables at 80 columns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.cli.test_blocks_cli import NOW, transcript
from tests.conftest import Lines

runner = CliRunner()


def run(*arguments: str | Path, columns: int | None = None) -> Any:
    env = None if columns is None else {"COLUMNS": str(columns)}
    result = runner.invoke(app, [*map(str, arguments)], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout) if "--json" in arguments else result.stdout


def straddling(tmp_path: Path, cc: type[Lines]) -> Path:
    """A request asked at 23:58 on 28 February and answered at 00:03 on 1 March (UTC), and one
    on 1 March."""
    usage = cc.usage(input=10, read=1000, write=200, output=50)
    lines = [
        cc.user("u1", None, "2026-02-28T23:58:00Z"),
        cc.assistant("msg_1", "a1", "u1", "2026-03-01T00:03:00Z", usage),
        cc.user("u2", "a1", "2026-03-01T03:00:00Z"),
        cc.assistant("msg_2", "a2", "u2", "2026-03-01T03:01:00Z", cc.usage(input=99, output=7)),
    ]
    return cc.write(tmp_path / "projects" / "-home-dana-src-shop" / "s.jsonl", lines)


def test_a_request_counts_in_the_month_it_started_as_in_monthly(
    tmp_path: Path, cc: type[Lines]
) -> None:
    path = straddling(tmp_path, cc)
    data = run("blocks", "--json", "--plan", "pro", "--tz", "UTC", "--now", NOW, path)
    february, march = data["plan"]["months"]
    assert (february["month"], march["month"]) == ("2026-02", "2026-03")
    first = data["blocks"][0]  # the 5-hour windows still place it at its end, as ccusage
    assert (first["start"], first["requests"]) == ("2026-03-01T00:00:00.000Z", 2)
    assert february["cost_usd"] + march["cost_usd"] == pytest.approx(first["cost_usd"])
    assert february["cost_usd"] != march["cost_usd"]


@pytest.mark.parametrize("zone", ["UTC", "Pacific/Kiritimati", "America/Los_Angeles"])
@pytest.mark.parametrize("weekly", [False, True])
def test_the_plans_months_are_monthlys(
    tmp_path: Path, cc: type[Lines], zone: str, weekly: bool
) -> None:
    path = straddling(tmp_path, cc)
    flags = ["--weekly"] if weekly else []
    for harness in ("claude-code", "codex"):
        plan = run("blocks", *flags, "--json", "--plan", "max20", "--tz", zone, "--harness",
                   harness, path)["plan"]  # fmt: skip
        monthly = run("monthly", "--json", "--tz", zone, "--harness", harness, path)["monthly"]
        assert [(row["month"], row["cost_usd"]) for row in plan["months"]] == [
            (row["month"], row["cost_usd"]) for row in monthly
        ]
        assert [row["multiple"] for row in plan["months"]] == [
            pytest.approx(row["cost_usd"] / 200, abs=1e-6) for row in monthly
        ]
    assert len(plan["months"]) == 0  # no codex request
    assert [row["month"] for row in monthly] == []


def test_weekly_with_a_plan_gives_each_weeks_value_and_the_months(
    tmp_path: Path, cc: type[Lines]
) -> None:
    path = transcript(tmp_path, cc)
    data = run("blocks", "--weekly", "--json", "--plan", "max5", "--tz", "UTC", "--now", NOW, path)
    assert set(data) == {"weeks", "current", "token_limit", "plan"}
    weekly_price = 100 * 12 / 52
    assert data["plan"]["usd_per_week"] == pytest.approx(weekly_price, abs=1e-6)
    assert data["plan"]["usd_per_week_rule"] == "usd_per_month * 12 / 52"
    for week in data["weeks"]:
        assert week["plan_weekly_multiple"] == pytest.approx(
            week["cost_usd"] / weekly_price, abs=1e-5
        )
    (month,) = data["plan"]["months"]
    assert month["cost_usd"] == pytest.approx(sum(week["cost_usd"] for week in data["weeks"]))
    plain = run("blocks", "--weekly", "--json", "--now", NOW, path)
    assert "plan" not in plain and "plan_weekly_multiple" not in plain["weeks"][0]
    text = run("blocks", "--weekly", "--plan", "max5", "--tz", "UTC", "--now", NOW, path)
    assert "×plan" in text and "$23.08, the weekly share of a $100 monthly price" in text
    assert "this month: API-equivalent $" in text and "for a $100 plan" in text


@pytest.mark.parametrize(("name", "price"), [("pro", 20.0), ("max5", 100.0), ("max20", 200.0)])
def test_each_bundled_plan_and_a_plan_file(
    tmp_path: Path, cc: type[Lines], name: str, price: float
) -> None:
    path = transcript(tmp_path, cc)
    plan = run("blocks", "--json", "--plan", name, "--now", NOW, path)["plan"]
    assert (plan["key"], plan["usd_per_month"]) == (name, price) and plan["since"]
    prices = tmp_path / "plans.toml"
    prices.write_text(f'[{name}]\nusd_per_month = 8.0\n[team]\nname = "Team"\nusd_per_month = 30\n')
    over = run("blocks", "--json", "--plan", name, "--plan-file", prices, "--now", NOW, path)
    assert over["plan"]["usd_per_month"] == 8.0
    team = run("blocks", "--json", "--plan", "team", "--plan-file", prices, "--now", NOW, path)
    assert (team["plan"]["name"], team["plan"]["usd_per_month"]) == ("Team", 30.0)


def test_until_keeps_the_requests_up_to_its_day(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    data = run("blocks", "--json", "--until", "2026-03-01", "--tz", "UTC", "--now", NOW, path)
    assert [(block["start"], block["requests"]) for block in data["blocks"]] == [
        ("2026-03-01T08:00:00.000Z", 2)
    ]
    assert data["active"] is None


def test_tz_changes_only_how_times_are_shown(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    utc = run("blocks", "--json", "--tz", "UTC", "--now", NOW, path)
    for zone in ("Asia/Kolkata", "Pacific/Kiritimati", "America/St_Johns"):
        assert run("blocks", "--json", "--tz", zone, "--now", NOW, path) == utc
    text = run("blocks", "--tz", "America/St_Johns", "--now", NOW, path)  # UTC-3:30
    assert "03-01 04:30" in text and "03-02 05:30*" in text


def test_the_tables_fit_80_columns(tmp_path: Path, cc: type[Lines]) -> None:
    path = transcript(tmp_path, cc)
    for flags in ([], ["--weekly"], ["--plan", "max20"], ["--weekly", "--plan", "max20"]):
        text = run("blocks", *flags, "--now", NOW, "--no-progress", path, columns=80)
        assert "…" not in text
        assert max(len(line) for line in text.splitlines()) <= 80
    text = run("blocks", "--now", NOW, "--no-progress", path, columns=80)
    header = next(line for line in text.splitlines() if "start" in line and "reqs" in line)
    assert header.split() == ["start", "last", "reqs", "in", "out", "wr", "rd", "hit", "cost",
                              "breaks", "sub"]  # fmt: skip
    assert "sonnet-4" in text and "03-02 09:00*" in text
