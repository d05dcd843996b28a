"""Provides the presentation of cache breaks in the terminal (JSON: `breaks_json`)."""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from rich.console import Console

from sniff.analyses.breaks import Break, BreakReport, CauseTotals

if TYPE_CHECKING:
    from sniff.analyses.scan_parts import BreakDigest
from sniff.present.console import measures_table, short_project
from sniff.present.formats import compact, duration, money

LISTED = 25


def print_breaks(console: Console, report: BreakReport, zone: tzinfo) -> None:
    """Breaks by cause, project and week; the dearest breaks; idle gaps; the TTL advice."""
    faults = report.faults
    console.print(
        f"[bold]Cache breaks[/] · {len(faults):,} request(s) rebuilt a cached prefix, "
        f"costing {money(report.fault_cost_usd)} more than reading it"
    )
    console.print(_totals("By cause", "cause", report.by_cause))
    console.print(_totals("By project", "project", report.by_project[:10]))
    console.print(_totals("By week", "week", report.by_week))
    console.print(breaks_table(faults[:LISTED], f"Dearest breaks (of {len(faults):,})", zone))
    gaps = [
        [bucket.label, f"{bucket.requests:,}", f"{bucket.breaks:,}", money(bucket.cost_usd)]
        for bucket in report.gaps
    ]
    console.print(
        measures_table(
            "Idle gaps before requests (TTL 5m, 1h)",
            ["gap", "reqs", "breaks", "cost"],
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
    cells = [
        [
            short_project(row.key) if key == "project" else row.key,
            f"{row.breaks:,}",
            compact(row.rebuilt_tokens),
            money(row.cost_usd),
        ]
        for row in rows
    ]
    return measures_table(title, [key, "breaks", "rebuilt", "cost"], cells, text_columns=1)
