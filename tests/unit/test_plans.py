"""Plan value: the bundled dated prices, overrides, a price given as a number, and months in
the display zone."""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from sniff.analyses.plans import choose_plan, load_plans, month_values
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
