"""Plan value: the bundled dated prices, overrides, a price given as a number, and months in
the display zone."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from sniff.analyses.cost.plans import choose_plan, load_plans, month_values, week_multiple
from sniff.errors import UserError
from tests.unit.test_blocks import req


def test_the_bundled_plans_are_dated() -> None:
    plans = load_plans()
    assert {key: plan.usd_per_month for key, plan in plans.items()} == {
        "pro": 20.0, "max5": 100.0, "max20": 200.0,
    }  # fmt: skip
    assert all(plan.since for plan in plans.values())


def test_a_plan_file_overrides_a_price_and_adds_plans(tmp_path: Path) -> None:
    path = tmp_path / "plans.toml"
    path.write_text('[pro]\nusd_per_month = 17.0\n[team]\nname = "Team"\nusd_per_month = 30\n')
    plans = load_plans(path)
    assert (plans["pro"].usd_per_month, plans["pro"].name) == (17.0, "Claude Pro")
    assert plans["team"].usd_per_month == 30.0
    path.write_text("[pro]\nusd_per_month = 0\n")
    with pytest.raises(UserError):
        load_plans(path)


def test_a_number_is_a_plan_of_that_price() -> None:
    plans = load_plans()
    assert choose_plan("150", plans).usd_per_month == 150.0
    assert choose_plan("$42.5", plans).usd_per_month == 42.5
    for text in ("lots", "0", "-5", "inf"):
        with pytest.raises(UserError):
            choose_plan(text, plans)


def test_months_follow_the_zone_and_compare_with_the_price() -> None:
    requests = [req("r1", "2026-01-31T23:30", usd=30.0), req("r2", "2026-02-01T10:00", usd=10.0)]
    plan = load_plans()["pro"]
    utc = month_values(requests, ZoneInfo("UTC"), plan)
    assert [(row.month, row.multiple) for row in utc] == [("2026-01", 1.5), ("2026-02", 0.5)]
    tokyo = month_values(requests, ZoneInfo("Asia/Tokyo"), plan)  # 08:30 on 1 February
    assert [(row.month, row.multiple) for row in tokyo] == [("2026-02", 2.0)]
    unpriced = month_values([req("r3", "2026-01-02T00:00", usd=None)], ZoneInfo("UTC"), plan)
    assert unpriced[0].multiple is None


def test_a_request_straddling_midnight_counts_in_the_month_it_started() -> None:
    """Asked at 23:59 on 31 January, answered at 00:01 on 1 February (`req` starts 2 minutes
    before its end): January's, as in `sniff monthly`."""
    requests = [req("r1", "2026-02-01T00:01", usd=3.0), req("r2", "2026-02-01T00:03", usd=5.0)]
    plan = load_plans()["pro"]
    months = month_values(requests, ZoneInfo("UTC"), plan)
    assert [(row.month, row.totals.cost) for row in months] == [("2026-01", 3.0), ("2026-02", 5.0)]
    # 00:01 UTC is 19:01 on 31 January in New York: both requests are January's there
    (january,) = month_values(requests, ZoneInfo("America/New_York"), plan)
    assert (january.month, january.totals.requests) == ("2026-01", 2)


def test_a_weeks_share_of_a_monthly_price_is_twelve_fifty_seconds() -> None:
    plan = load_plans()["max5"]
    assert plan.usd_per_week == pytest.approx(100 * 12 / 52)
    assert week_multiple(46.0, plan) == pytest.approx(46.0 * 52 / 1200)
    assert week_multiple(None, plan) is None
