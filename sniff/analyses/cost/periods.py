"""Provides `period_table`: the rows of `sniff daily`, `sniff weekly` and `sniff monthly`.

Why no grouping of its own: a day, an ISO week and a month are the groupings of
`sniff report --by day|week|month` (`grouped`, here), summed by the same `summary` cells in
the same zone, so the two commands cannot disagree. Each period's models are the same cells
restricted to one model, grouped the same way; and so are its harnesses' and projects' rows
(`--breakdown harness|project`), each the cells of one harness or project. A team export's
machines' and users' rows (`--breakdown machine|user`) are the cells of the requests each is
credited with, summed the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, tzinfo

from sniff.analyses.cache.break_report import iso_week
from sniff.analyses.cost.summary import (
    Cell,
    Group,
    Summary,
    Totals,
    summary_cells,
    summary_of_cells,
)
from sniff.model import Request

PERIODS = {"daily": "day", "weekly": "week", "monthly": "month"}
"""Each command and the `report --by` grouping it shows."""
ORDERS = ("asc", "desc")
BREAKDOWNS = {"model": 0, "harness": 6, "project": 1}
"""What `--breakdown` splits a period by, and where each sits in a summary `Cell`."""
LABELLED = ("machine", "user")
"""What `--breakdown` also splits a period by, from a label the caller gives each request
(who exported it to a team folder: `exporters.exporter_label`)."""


@dataclass(frozen=True, slots=True)
class PeriodRow:
    """One day, ISO week or month: its totals and those of each model used in it."""

    key: str
    """`2026-03-29`, `2026-W13` or `2026-03`."""
    start: date
    """The period's first day (a week's Monday)."""
    totals: Totals
    models: tuple[Group, ...]
    """Per model, dearest first (unpriced ones by tokens after them)."""
    parts: tuple[Group, ...] = ()
    """Per model, harness or project (the table's `breakdown`), dearest first: the rows that
    sum to this one."""


@dataclass(frozen=True, slots=True)
class PeriodTable:
    """The periods of some requests, in the order asked for, and their sums."""

    by: str
    """day, week or month."""
    rows: tuple[PeriodRow, ...]
    summary: Summary
    """The whole summary the rows come from (its totals are the table's)."""
    breakdown: str = "model"
    """What each row's `parts` split it by: a key of `BREAKDOWNS`, or one of `LABELLED`."""


def period_table(
    requests: Iterable[Request],
    zone: tzinfo,
    by: str,
    *,
    order: str = "asc",
    breakdown: str = "model",
    label: Callable[[Request], str] | None = None,
) -> PeriodTable:
    """The requests by day, ISO week or month in `zone`, oldest first (`order` "asc") or
    newest first ("desc"), each period split by `breakdown` (model, harness or project; or
    machine or user, by each request's `label`).

    Raises:
        ValueError: `by` is not day, week or month, `order` not asc or desc, `breakdown`
            neither a key of `BREAKDOWNS` nor one of `LABELLED`, or one of these without `label`.
    """
    if by not in PERIODS.values():
        raise ValueError(f"unknown period {by!r}")
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}")
    if breakdown not in BREAKDOWNS and (breakdown not in LABELLED or label is None):
        raise ValueError(f"unknown breakdown {breakdown!r}, or no label for it")
    requests = list(requests)
    cells = summary_cells(requests, zone)
    summary = summary_of_cells(cells)
    per_model = _per_key(cells, by, BREAKDOWNS["model"])
    # the models are listed whatever the breakdown (JSON's `models`): split once more only
    # when the breakdown is another key
    if breakdown == "model":
        per_part = per_model
    elif label is not None and breakdown in LABELLED:
        per_part = _per_label(requests, zone, by, label)
    else:
        per_part = _per_key(cells, by, BREAKDOWNS[breakdown])
    rows = [
        PeriodRow(
            group.key,
            period_start(group.key),
            group.totals,
            _by_cost(per_model.get(group.key, [])),
            _by_cost(per_part.get(group.key, [])),
        )
        for group in grouped(summary, by)
    ]
    ordered = tuple(reversed(rows) if order == "desc" else rows)
    return PeriodTable(by, ordered, summary, breakdown)


def _per_key(cells: dict[Cell, Totals], by: str, index: int) -> dict[str, list[Group]]:
    """Period key → one group per value of the cells' `index`th key (a model, a project, a
    harness), each from that value's cells alone: summed as the period itself is, so the
    groups of a period add up to it."""
    split: dict[str, dict[Cell, Totals]] = {}
    for key, cell in cells.items():
        split.setdefault(key[index], {})[key] = cell
    found: dict[str, list[Group]] = {}
    for name, own in split.items():
        for group in grouped(summary_of_cells(own), by):
            found.setdefault(group.key, []).append(Group(name, group.totals))
    return found


def _per_label(
    requests: list[Request], zone: tzinfo, by: str, label: Callable[[Request], str]
) -> dict[str, list[Group]]:
    """Period key → one group per label, each summed from its requests' own cells."""
    split: dict[str, list[Request]] = {}
    for request in requests:
        split.setdefault(label(request), []).append(request)
    found: dict[str, list[Group]] = {}
    for name, own in split.items():
        for group in grouped(summary_of_cells(summary_cells(own, zone)), by):
            found.setdefault(group.key, []).append(Group(name, group.totals))
    return found


def _by_cost(groups: list[Group]) -> tuple[Group, ...]:
    return tuple(sorted(groups, key=_dearest, reverse=True))


def _dearest(group: Group) -> tuple[float, int, str]:
    return (group.totals.cost_usd, group.totals.total_tokens, group.key)


def period_start(key: str) -> date:
    """The first day of a period key: `2026-03-29`, `2026-W13` (its Monday), `2026-03`."""
    if "-W" in key:
        year, week = key.split("-W")
        return date.fromisocalendar(int(year), int(week), 1)
    if len(key) == 7:
        return date.fromisoformat(f"{key}-01")
    return date.fromisoformat(key)


def grouped(summary: Summary, by: str) -> list[Group]:
    """The rows of `summary` grouped `by` (one of `analyses.report.GROUPINGS`): calendar
    periods in the zone it was summed in, oldest first; the others by cost, highest first."""
    if by == "day":
        return summary.by_day
    if by in ("week", "month"):
        return _calendar(summary.by_day, iso_week if by == "week" else _month)
    if by == "session":
        return [Group(row.session_id, row.totals) for row in summary.sessions]
    return {
        "project": summary.by_project, "model": summary.by_model, "agent": summary.by_agent,
        "harness": summary.by_harness,
    }[by]  # fmt: skip


def _calendar(days: list[Group], period: Callable[[date], str]) -> list[Group]:
    merged: dict[str, Totals] = {}
    for day in days:
        key = period(date.fromisoformat(day.key))
        merged.setdefault(key, Totals()).merge(day.totals)
    return [Group(key, merged[key]) for key in sorted(merged)]


def _month(day: date) -> str:
    return day.strftime("%Y-%m")
