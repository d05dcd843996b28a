"""Provides the month's outlook: spend so far, against the month before, and where it is heading.

Why "as of the last logged request" rather than the clock: the report describes its logs. On a
live machine the last request is minutes old, so the two agree; on logs copied from elsewhere
or filtered with `--until`, the clock would project a month the logs say nothing about.

Why a resampled range: a projection without its uncertainty reads as a promise. The days left
are drawn, with replacement, from the daily spend of the recent days the logs cover (quiet
days count as $0), and the 10th and 90th percentiles of those draws bound the projection.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from sniff.model import Request

SAMPLED_DAYS = 28
"""How many recent days the projection's daily spend is drawn from."""
DRAWS = 2000
RANGE = (0.10, 0.90)
"""The projection's range: these quantiles of the drawn month ends (an 80 % range)."""


@dataclass(frozen=True, slots=True)
class Outlook:
    """The month of the last logged request, in the report's time zone."""

    month: str
    """`2026-03`."""
    as_of: datetime
    """The last logged request: what the month is known to."""
    month_to_date: float
    same_point_last_month: float
    """What the month before had cost by the same day and time."""
    previous_month: float
    """The whole month before."""
    projected: float
    """Month to date, plus the days left at the recent mean daily spend."""
    low: float
    high: float
    """The projection's 80 % range (`RANGE`)."""
    days_left: float
    sampled_days: int
    """How many days the daily spend was drawn from."""

    @property
    def complete(self) -> bool:
        """The logs reach the month's end: nothing is left to project."""
        return self.days_left <= 0


def outlook(requests: Iterable[Request], zone: tzinfo) -> Outlook | None:
    """The outlook of the month holding the latest of `requests`; None without a priced one.

    Costs are those of priced requests (an unpriced request adds nothing, as in every total)."""
    priced = [(r.when.astimezone(zone), r.cost.total_usd) for r in requests if r.cost is not None]
    if not priced:
        return None
    as_of = max(when for when, _ in priced)
    start = _month_start(as_of.date(), zone)
    before = _month_start((start - timedelta(days=1)).date(), zone)
    same_point = before + (as_of - start)
    daily: dict[date, float] = {}
    for when, usd in priced:
        daily[when.date()] = daily.get(when.date(), 0.0) + usd
    so_far = sum((usd for when, usd in priced if start <= when <= as_of), 0.0)
    end = _month_start((start + timedelta(days=32)).date(), zone)
    days_left = max(0.0, (end - as_of).total_seconds() / 86400)
    first = min(daily)
    days = [
        daily.get(as_of.date() - timedelta(days=back), 0.0)
        for back in range(SAMPLED_DAYS)
        if as_of.date() - timedelta(days=back) >= first
    ]
    low, high = _range(days, days_left, seed=f"{start:%Y-%m}")
    mean = sum(days) / len(days)
    return Outlook(
        month=f"{start:%Y-%m}",
        as_of=as_of,
        month_to_date=so_far,
        same_point_last_month=sum(
            (usd for when, usd in priced if before <= when <= same_point), 0.0
        ),
        previous_month=sum((usd for when, usd in priced if before <= when < start), 0.0),
        projected=so_far + mean * days_left,
        low=so_far + low,
        high=so_far + high,
        days_left=days_left,
        sampled_days=len(days),
    )


def _month_start(day: date, zone: tzinfo) -> datetime:
    return datetime.combine(day.replace(day=1), time()).replace(tzinfo=zone)


def _range(days: Sequence[float], days_left: float, seed: str) -> tuple[float, float]:
    """The `RANGE` quantiles of the spend over `days_left` days, each drawn from `days`.

    The same logs give the same range: the draws are seeded by the month."""
    if days_left <= 0:
        return 0.0, 0.0
    whole = math.ceil(days_left)
    scale = days_left / whole  # a part day left counts as that part of a drawn day
    draw = random.Random(seed).choice
    sums = sorted(scale * sum(draw(days) for _ in range(whole)) for _ in range(DRAWS))
    return sums[int(RANGE[0] * (DRAWS - 1))], sums[int(RANGE[1] * (DRAWS - 1))]
