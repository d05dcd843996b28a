"""Provides the presentation of cache breaks: terminal tables and the JSON object."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from rich.console import Console

from sniff.analyses.breaks import Break, BreakReport, CauseTotals
from sniff.present.console import measures_table, short_project
from sniff.present.formats import compact, duration, money

LISTED = 25


def print_breaks(console: Console, report: BreakReport, zone: tzinfo) -> None:
    """Breaks by cause, project and week; the dearest breaks; idle gaps; the TTL advice."""
    faults = report.faults
    total = sum(found.cost_usd or 0.0 for found in faults)
    console.print(
        f"[bold]Cache breaks[/] · {len(faults):,} request(s) rebuilt a cached prefix, "
        f"costing {money(total)} more than reading it"
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


def top_breaks_json(report: BreakReport, top: int = 5) -> dict[str, Any]:
    """The breaks part of `sniff scan --json`."""
    faults = report.faults
    return {
        "count": len(faults),
        "cost_usd": round(sum(found.cost_usd or 0.0 for found in faults), 6),
        "cold_starts": len(report.breaks) - len(faults),
        "top": [break_json(found) for found in faults[:top]],
    }


def print_top_breaks(console: Console, report: BreakReport, zone: tzinfo, top: int = 5) -> None:
    """The `sniff scan` section: the dearest breaks and their total."""
    faults = report.faults
    if not faults:
        console.print("No cache breaks: every request read the prefix it shared with the last.")
        return
    total = sum(found.cost_usd or 0.0 for found in faults)
    console.print(breaks_table(faults[:top], f"Top cache breaks (of {len(faults):,})", zone))
    console.print(
        f"Cache breaks cost {money(total)} more than reads would have; "
        "`sniff cache --breaks` explains them all."
    )


def breaks_json(report: BreakReport) -> dict[str, Any]:
    """`sniff cache --breaks --json`."""
    advice = report.ttl_advice
    return {
        "breaks": [break_json(found) for found in report.breaks],
        "by_cause": [_totals_json("cause", row) for row in report.by_cause],
        "by_project": [_totals_json("project", row) for row in report.by_project],
        "by_week": [_totals_json("week", row) for row in report.by_week],
        "gaps": [
            {
                "gap": bucket.label,
                "up_to_seconds": None
                if bucket.upper_seconds == float("inf")
                else bucket.upper_seconds,
                "requests": bucket.requests,
                "breaks": bucket.breaks,
                "cost_usd": round(bucket.cost_usd, 6),
            }
            for bucket in report.gaps
        ],
        "ttl_advice": {
            "extra_write_cost_usd": round(advice.extra_write_cost_usd, 6),
            "avoided_rebuild_cost_usd": round(advice.avoided_rebuild_cost_usd, 6),
            "avoided_breaks": advice.avoided_breaks,
            "net_saving_usd": round(advice.net_saving_usd, 6),
            "recommend_1h": advice.recommend_1h,
        },
        "within_tolerance": [
            {
                "request": item.request.key,
                "file": item.request.file,
                "line": item.request.line,
                "drop": item.drop,
                "tolerance": item.tolerance,
            }
            for item in report.tolerated
        ],
    }


def break_json(found: Break) -> dict[str, Any]:
    """One break."""
    request = found.request
    return {
        "time": request.when.isoformat(),
        "session": request.session_id,
        "project": request.project,
        "agent": request.agent_id,
        "model": request.model,
        "request": request.key,
        "file": request.file,
        "line": request.line,
        "previous_request": found.previous.key if found.previous else None,
        "gap_seconds": None if found.gap_seconds is None else round(found.gap_seconds, 3),
        "cause": found.cause,
        "fault": found.fault,
        "expected_read_tokens": found.expected_read,
        "read_tokens": request.usage.cache_read_tokens,
        "rebuilt_tokens": found.rebuilt_tokens,
        "rebuilt_1h_tokens": found.rebuilt_1h_tokens,
        "cost_usd": None if found.cost_usd is None else round(found.cost_usd, 6),
        "detail": found.detail,
    }


def _totals(title: str, key: str, rows: list[CauseTotals]) -> Any:
    cells = [
        [row.key, f"{row.breaks:,}", compact(row.rebuilt_tokens), money(row.cost_usd)]
        for row in rows
    ]
    return measures_table(title, [key, "breaks", "rebuilt", "cost"], cells, text_columns=1)


def _totals_json(key: str, row: CauseTotals) -> dict[str, Any]:
    return {
        key: row.key,
        "breaks": row.breaks,
        "rebuilt_tokens": row.rebuilt_tokens,
        "cost_usd": round(row.cost_usd, 6),
    }
