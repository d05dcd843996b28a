"""Provides `analyze_drift` (`sniff drift`'s report: series, change points, events) and
`compare_versions` (`--version-compare A B`).

The analysis takes a drift part (`analyses.drift.part`: of the requests the filters keep, their
activity and their breaks, joined unit by unit from the index or made at once) and returns what
the presenters lay out; nothing here prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, tzinfo

from sniff.analyses.cache.break_report import Break, iso_week
from sniff.analyses.drift.events import Event, Sources, drift_events
from sniff.analyses.drift.part import DriftPart, drift_part, series_of
from sniff.analyses.drift.points import ChangePoint, Rules, change_points
from sniff.analyses.drift.series import MEASURES, Bucket, Series, break_key
from sniff.errors import UserError
from sniff.model import Activity, Request

NOTES = (
    "Rollups (an agent's logged totals of many calls) and failed requests are left out of "
    "every per-request measure.",
    "Cost measures count priced requests only; unpriced ones are counted apart.",
    "The break rate counts breaks that were faults (cold starts, compactions and dropped "
    "thinking are how caching works).",
    "Intervals are 95 % normal intervals of ratio estimators; requests of one session are not "
    "independent, so they are narrower than the truth.",
)


@dataclass(frozen=True, slots=True)
class DriftReport:
    """`sniff drift`: the series, their change points, and the events they make."""

    by: str
    zone: tzinfo
    series: list[Series]
    points: list[ChangePoint]
    events: list[Event]
    rules: Rules
    requests: int
    """Requests counted (rollups and failed ones left out)."""
    left_out: int
    """Requests kept by the filters but not counted."""


def analyze_drift(
    requests: Sequence[Request],
    activity: Activity,
    breaks: Sequence[Break],
    zone: tzinfo,
    *,
    by: str = "day",
    rules: Rules | None = None,
) -> DriftReport:
    """The drift of `requests` (those the filters keep) and their `activity`, `by` day or
    week in `zone` (`drift_of` their part).

    Raises:
        ValueError: `by` is not one of BY.
    """
    causes = {break_key(found.request): found.cause for found in breaks if found.fault}
    return drift_of(drift_part(requests, causes, activity.calls, zone, by), zone, rules=rules)


def drift_of(part: DriftPart, zone: tzinfo, *, rules: Rules | None = None) -> DriftReport:
    """The drift of the requests `part` was made of (`drift_part.join_parts`: of many units),
    by its periods, in `zone`."""
    by, rules = part.by, rules or Rules()
    series = series_of(part)
    if not series:
        return DriftReport(by, zone, [], [], [], rules, 0, part.left_out)
    points = change_points(series, rules)
    events = drift_events(points, Sources(series, part, by, zone))
    return DriftReport(by, zone, series, points, events, rules, part.requests, part.left_out)


def weekly(series: Series) -> list[tuple[str, Bucket]]:
    """A daily series' buckets summed per ISO week, oldest first (as `report --by week`)."""
    weeks: dict[str, Bucket] = {}
    for day, bucket in zip(series.periods, series.buckets, strict=True):
        weeks.setdefault(iso_week(date.fromisoformat(day)), Bucket()).merge(bucket)
    return sorted(weeks.items())


def week_of(report: DriftReport, period: str) -> str:
    """The ISO week a period of `report` falls in."""
    return period if report.by == "week" else iso_week(date.fromisoformat(period))


@dataclass(frozen=True, slots=True)
class VersionSide:
    """One version's requests, summed over every period."""

    name: str
    """The version as asked for."""
    labels: tuple[str, ...]
    """The harness versions it matched (`claude-code 2.1.39`)."""
    total: Bucket


def compare_versions(report: DriftReport, first: str, second: str) -> tuple[VersionSide, ...]:
    """Both versions' measures over every request they made.

    A version is named as its agent logs it (`2.1.39`) or with its harness
    (`claude-code 2.1.39`).

    Raises:
        UserError: a version is not in the logs.
    """
    versions = [series for series in report.series if series.dimension == "version"]
    sides = []
    for name in (first, second):
        matched = [s for s in versions if name in (s.value, (s.value or "").partition(" ")[2])]
        if not matched:
            # as the harness logs them: several harnesses can share a number, or log none
            known = ", ".join(sorted(s.value or "" for s in versions))
            raise UserError(f"version {name!r} is not in the logs read (known: {known or 'none'})")
        total = Bucket()
        for series in matched:
            total.merge(series.total)
        sides.append(VersionSide(name, tuple(s.value or "" for s in matched), total))
    return tuple(sides)


__all__ = [
    "MEASURES", "DriftReport", "VersionSide", "analyze_drift", "compare_versions", "drift_of",
    "week_of",
    "weekly",
]  # fmt: skip
