"""Provides the presentation of cache breaks in the terminal (JSON: `breaks_json`)."""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from rich.console import Console

from sniff.analyses.breaks import Break, BreakReport, CauseTotals

if TYPE_CHECKING:
    from sniff.analyses.scan_parts import BreakDigest
from sniff.present.causes import explain, headline
from sniff.present.console import measures_table, short_project
from sniff.present.formats import compact, duration, money

LISTED = 25
COUNT_HEADERS = ["faults", "fault cost", "expected", "expected cost", "rebuilt"]


def print_breaks(console: Console, report: BreakReport, zone: tzinfo) -> None:
    """Breaks by cause, project, week and idle gap; the dearest faults; the TTL advice.

    Every table counts all breaks, faults and expected ones in columns of their own, so that
    each sums to the header's counts.
    """
    faults = report.faults
    console.print(f"[bold]Cache breaks[/] · {headline(report)}")
    console.print(_totals("By cause", "cause", report.by_cause))
    for row in report.by_cause:
        console.print(f"[bold]{row.key}[/]: {explain(row.key)}", style="dim")
    console.print(_totals("By project", "project", report.by_project[:10]))
    if len(report.by_project) > 10:
        console.print(f"(and {len(report.by_project) - 10:,} more projects)", style="dim")
    console.print(_totals("By week", "week", report.by_week))
    title = f"Dearest faults ({min(LISTED, len(faults)):,} of {len(faults):,})"
    console.print(breaks_table(faults[:LISTED], title, zone))
    gaps = [
        [bucket.label, f"{bucket.requests:,}", *_counts(bucket.breaks)] for bucket in report.gaps
    ]
    console.print(
        measures_table(
            "Idle gaps before requests (TTL 5m, 1h; first: the first of a chain)",
            ["gap", "reqs", *COUNT_HEADERS],
            gaps,
            text_columns=1,
        )
    )
    advice = report.ttl_advice
    verdict = "would have saved" if advice.recommend_1h else "would have cost"
    console.print(
        f"A 1-hour TTL {verdict} {money(abs(advice.net_saving_usd))}: "
        f"{money(advice.extra_write_cost_usd)} more for 1-hour writes, "
        f"{money(advice.avoided_rebuild_cost_usd)} of rebuilds avoided "
        f"({advice.avoided_breaks:,} breaks after gaps of 5 to 60 minutes)."
    )
    if report.tolerated:
        console.print(
            f"{len(report.tolerated):,} request(s) read slightly less than the previous one, "
            "within the tolerance for the uncached tail: not breaks.",
            style="dim",
        )


def breaks_table(breaks: list[Break], title: str, zone: tzinfo) -> Any:
    """One row per break: when, where, the gap, the cause, tokens and dollars."""
    rows = [
        [
            found.request.when.astimezone(zone).strftime("%y-%m-%d %H:%M"),
            short_project(found.request.project),
            found.request.session_id[:8],
            "–" if found.gap_seconds is None else duration(found.gap_seconds),
            found.cause,
            compact(found.rebuilt_tokens),
            money(found.cost_usd),
        ]
        for found in breaks
    ]
    headers = ["time", "project", "session", "gap", "cause", "rebuilt", "cost"]
    return measures_table(title, headers, rows, text_columns=5, shrinkable=1)


def print_top_breaks(console: Console, breaks: BreakDigest, zone: tzinfo) -> None:
    """The `sniff scan` section: the dearest breaks and what all of them cost."""
    if not breaks.faults:
        console.print("No cache breaks: every request read the prefix it shared with the last.")
        return
    title = f"Top cache breaks (of {breaks.faults:,})"
    console.print(breaks_table(list(breaks.top), title, zone))
    console.print(
        f"Cache breaks cost {money(breaks.cost_usd)} more than reads would have; "
        "`sniff cache --breaks` explains them all."
    )


def _totals(title: str, key: str, rows: list[CauseTotals]) -> Any:
    cells = [[row.key, *_counts(row)] for row in rows]
    return measures_table(title, [key, *COUNT_HEADERS], cells, text_columns=1)


def _counts(row: CauseTotals) -> list[str]:
    return [
        f"{row.faults:,}",
        money(row.fault_cost_usd),
        f"{row.expected:,}",
        money(row.expected_cost_usd),
        compact(row.rebuilt_tokens),
    ]
