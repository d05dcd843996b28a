"""The weekly windows: a user-given start read in the zone, DST and a far zone, families, and
the current week's projection."""

from __future__ import annotations

from datetime import time, timedelta
from zoneinfo import ZoneInfo

import pytest

from sniff.analyses.cost.weekly import (
    WeekStart,
    build_weeks,
    current_week,
    family,
    parse_week_start,
    week_burn,
    week_of,
)
from sniff.errors import UserError
from tests.unit.test_blocks import at, req

PARIS = ZoneInfo("Europe/Paris")


def test_week_start_reads_a_weekday_and_a_time() -> None:
    assert parse_week_start(None) == WeekStart(0, time())
    assert parse_week_start("mon 09:00") == WeekStart(0, time(9))
    assert parse_week_start("Friday 17:30") == WeekStart(4, time(17, 30))
    for text in ("someday 09:00", "mon 25:00", "mon nine"):
        with pytest.raises(UserError):
            parse_week_start(text)


def test_a_week_spanning_the_spring_clock_change_is_167_hours() -> None:
    begin, end = week_of(at("2026-03-26T12:00"), PARIS, WeekStart())
    assert (begin, end) == (at("2026-03-22T23:00"), at("2026-03-29T22:00"))  # local midnights
    assert end - begin == timedelta(hours=167)


def test_a_request_at_the_week_start_opens_the_week_and_one_before_is_in_the_last() -> None:
    start = parse_week_start("mon 09:00")  # 08:00 UTC in Paris in winter
    assert week_of(at("2026-01-05T08:00"), PARIS, start)[0] == at("2026-01-05T08:00")
    assert week_of(at("2026-01-05T07:59:59"), PARIS, start)[0] == at("2025-12-29T08:00")


def test_in_a_zone_far_from_utc_a_utc_sunday_is_the_local_monday() -> None:
    kiritimati = ZoneInfo("Pacific/Kiritimati")  # UTC+14
    begin, end = week_of(at("2026-01-04T12:00"), kiritimati, WeekStart())
    assert (begin, end) == (at("2026-01-04T10:00"), at("2026-01-11T10:00"))


def test_families() -> None:
    names = ["claude-opus-4-5", "claude-sonnet-4-20250514", "claude-3-5-haiku", "gpt-5"]
    assert [family(name) for name in names] == ["opus", "sonnet", "haiku", "other"]


def test_weeks_sum_by_family_and_project_the_current_week() -> None:
    requests = [
        req("r1", "2026-01-05T10:00", tokens=1000, usd=1.0, model="claude-haiku-4-5"),
        req("r2", "2026-01-06T10:00", tokens=2000, usd=2.0, model="claude-opus-4-5"),
        req("r3", "2025-12-30T10:00", tokens=500, usd=0.5),
    ]
    weeks = build_weeks(requests, ZoneInfo("UTC"), WeekStart())
    assert [f"{week.start:%Y-%m-%d}" for week in weeks] == ["2025-12-29", "2026-01-05"]
    assert list(weeks[1].families) == ["opus", "haiku"]
    assert weeks[1].families["opus"].cost == pytest.approx(2.0)
    now = at("2026-01-07T00:00")  # two days in, five left
    week = current_week(weeks, now)
    assert week is weeks[1]
    burn = week_burn(week, now)
    assert burn.rate.tokens_per_minute == pytest.approx(3000 / (2 * 24 * 60))
    assert burn.hours_left == pytest.approx(5 * 24)
    assert burn.projected_tokens == 3000 * 7 // 2
    assert burn.projected_usd == pytest.approx(3.0 * 7 / 2)
    assert current_week(weeks, at("2026-01-12T00:00")) is None


def test_a_request_straddling_the_week_start_is_in_the_week_it_started_as_in_weekly() -> None:
    """Started Sunday 23:59 in Paris, ended Monday 00:01: the week `sniff weekly` puts it in."""
    from sniff.analyses.cost.periods import period_table

    straddling = req("r1", "2026-01-04T23:01")  # started 22:59 UTC: 23:59 in Paris
    [week] = build_weeks([straddling], PARIS, WeekStart())
    assert week.start == at("2025-12-28T23:00")  # Monday 29 December, local midnight
    [row] = period_table([straddling], PARIS, "week").rows
    assert row.start == week.start.astimezone(PARIS).date()
