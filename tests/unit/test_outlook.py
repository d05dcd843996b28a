"""The month's outlook: month to date against the same point of the month before, and a
projection whose range holds it, made in the report's time zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from sniff.analyses.cost.outlook import outlook
from sniff.model import Request
from tests.unit.test_blocks import req


def daily(start: str, days: int, usd: float = 1.0) -> list[Request]:
    first = datetime.fromisoformat(start)
    return [
        req(f"r{index + 1}", (first + timedelta(days=index)).isoformat(), usd=usd)
        for index in range(days)
    ]


def test_a_steady_month_projects_its_daily_spend_to_its_end() -> None:
    found = outlook(daily("2026-02-01T12:00:00", 10), UTC)
    assert found is not None
    assert found.month == "2026-02" and found.month_to_date == pytest.approx(10.0)
    assert found.days_left == pytest.approx(18.5, abs=0.01)  # from noon on the 10th to March 1st
    assert found.projected == pytest.approx(10.0 + found.days_left)  # $1 a day, every day
    assert found.low == pytest.approx(found.projected) == pytest.approx(found.high)
    assert found.sampled_days == 10  # the logs begin on the 1st: no earlier day counts as $0


def test_the_month_before_is_compared_by_the_same_day_and_in_whole() -> None:
    requests = [*daily("2026-01-01T12:00:00", 31, usd=2.0), *daily("2026-02-01T12:00:00", 5)]
    found = outlook([req(f"x{i}", r.when.isoformat(), usd=r.cost.total_usd) for i, r in
                     enumerate(requests, 1) if r.cost], UTC)  # fmt: skip
    assert found is not None
    assert found.month_to_date == pytest.approx(5.0)
    assert found.same_point_last_month == pytest.approx(2.0 * 5)  # Jan 1st to 5th, by noon
    assert found.previous_month == pytest.approx(2.0 * 31)


def test_quiet_days_widen_the_range_and_the_range_holds_the_projection() -> None:
    busy = [req(f"r{day}", f"2026-03-{day:02d}T10:00:00", usd=float(day)) for day in (2, 9, 16)]
    found = outlook(busy, UTC)
    assert found is not None
    assert found.month_to_date <= found.low < found.projected < found.high
    assert outlook(busy, UTC) == found  # the same logs give the same range


def test_months_are_the_time_zones() -> None:
    """A request at 23:30 UTC on January 31st is February's in Tokyo."""
    late = [req("r1", "2026-01-31T23:30:00")]
    assert outlook(late, UTC).month == "2026-01"  # type: ignore[union-attr]
    assert outlook(late, ZoneInfo("Asia/Tokyo")).month == "2026-02"  # type: ignore[union-attr]


def test_nothing_priced_has_no_outlook() -> None:
    assert outlook([req("r1", "2026-01-05T10:00:00", usd=None)], UTC) is None
    assert outlook([], UTC) is None
