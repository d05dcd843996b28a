"""Provides the weekly windows (`sniff blocks --weekly`): 7-day totals by model family.

Why a user-given start: a subscription's weekly limit resets at a time of its own, which the
logs do not say. A week starts at `--week-start` (a weekday and a time, read in the display
zone; by default Monday 00:00, the ISO week) and ends at the same local time seven days later,
so a week that spans a clock change is 167 or 169 hours long. The current week's burn rate is
over the week so far, and its projection carries that rate to the week's end.

A request is placed in the week of its start (`Request.when`), as `sniff weekly` and
`sniff monthly` place it: only the 5-hour blocks place it by its end, as the peer does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from sniff.analyses.cost.block_burn import Rate
from sniff.analyses.cost.summary import Totals
from sniff.errors import UserError
from sniff.model import Request

FAMILIES = ("opus", "sonnet", "haiku", "other")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
MINUTE = 60.0


@dataclass(frozen=True, slots=True)
class WeekStart:
    """When weeks start: a weekday (0 = Monday) at a local time."""

    weekday: int = 0
    at: time = time()


@dataclass(frozen=True, slots=True)
class Week:
    """One week's totals, in all and by model family."""

    start: datetime
    end: datetime
    totals: Totals = field(default_factory=Totals)
    families: dict[str, Totals] = field(default_factory=dict)
    """The families that made requests, in `FAMILIES` order."""


@dataclass(frozen=True, slots=True)
class WeekBurn:
    """The current week's rate so far and where it is heading."""

    rate: Rate
    hours_left: float
    projected_tokens: int
    projected_usd: float | None


def parse_week_start(text: str | None) -> WeekStart:
    """`--week-start "mon 09:00"`: a weekday's first three letters and an HH:MM time.

    Raises:
        UserError: anything else.
    """
    if text is None:
        return WeekStart()
    day, _, clock = text.strip().lower().partition(" ")
    try:
        return WeekStart(DAYS.index(day[:3]), time.fromisoformat(clock.strip() or "00:00"))
    except ValueError as error:
        raise UserError(
            f"--week-start must be a weekday and a time, e.g. 'mon 09:00', not {text!r}"
        ) from error


def family(model: str) -> str:
    """`opus`, `sonnet`, `haiku` or `other`: the model family a weekly limit counts by."""
    name = model.lower()
    return next((kind for kind in FAMILIES[:3] if kind in name), "other")


def week_of(when: datetime, zone: tzinfo, start: WeekStart) -> tuple[datetime, datetime]:
    """The week `when` falls in: its start and end, in `zone`."""
    local = when.astimezone(zone)
    day = local.date() - timedelta(days=(local.weekday() - start.weekday) % 7)
    begin = _local(day, start.at, zone)
    if begin > when:
        day -= timedelta(days=7)
        begin = _local(day, start.at, zone)
    return begin, _local(day + timedelta(days=7), start.at, zone)


def _local(day: date, at: time, zone: tzinfo) -> datetime:
    """`at` on `day` in `zone`, as an instant in UTC (so that differences are real hours; a
    time a clock change skips reads as after it)."""
    return datetime.combine(day, at).replace(tzinfo=zone).astimezone(UTC)


def build_weeks(requests: list[Request], zone: tzinfo, start: WeekStart) -> list[Week]:
    """Every week that holds a request, oldest first."""
    weeks: dict[datetime, Week] = {}
    for request in sorted(requests, key=lambda request: (request.when, request.file, request.line)):
        begin, end = week_of(request.when, zone, start)
        week = weeks.get(begin)
        if week is None:
            week = weeks[begin] = Week(begin, end)
        week.totals.add(request)
        week.families.setdefault(family(request.model), Totals()).add(request)
    for week in weeks.values():
        ordered = {name: week.families[name] for name in FAMILIES if name in week.families}
        week.families.clear()
        week.families.update(ordered)
    return [weeks[begin] for begin in sorted(weeks)]


def week_burn(week: Week, now: datetime) -> WeekBurn:
    """The week's rate from its start to `now`, carried to its end."""
    minutes = max((now - week.start).total_seconds() / MINUTE, 1.0)
    totals = week.totals
    usd = totals.cost
    rate = Rate(minutes, totals.total_tokens / minutes, (usd or 0.0) / minutes * MINUTE)
    left = max((week.end - now).total_seconds() / MINUTE, 0.0)
    return WeekBurn(
        rate=rate,
        hours_left=left / MINUTE,
        projected_tokens=round(totals.total_tokens + rate.tokens_per_minute * left),
        projected_usd=None if usd is None else usd + rate.usd_per_hour * left / MINUTE,
    )


def largest_week_tokens(weeks: list[Week], now: datetime) -> int | None:
    """The most tokens (every class) a finished week holds: `--weekly --token-limit max`;
    None when no week has finished."""
    done = [week.totals.total_tokens for week in weeks if week.end <= now]
    return max(done) if done else None


def current_week(weeks: list[Week], now: datetime) -> Week | None:
    """The week `now` falls in, if it holds a request."""
    return next((week for week in reversed(weeks) if week.start <= now < week.end), None)
