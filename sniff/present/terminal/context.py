"""Provides `sniff context`'s table, its sentence of the computation, and its JSON."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from rich.console import Console
from rich.table import Table

from sniff.analyses.cache.context_growth import ContextReport, Crossing, SessionGrowth
from sniff.numbers import compact, money, plural, tokens
from sniff.present.json.common import rounded
from sniff.present.terminal.console import measures_table, short_project

RULE = (
    "A fresh session started at the crossing would have dropped what the context carried "
    "beyond the base from each later request of its segment (cache-read price), for one "
    "write of the base (at the cache-write price of the TTLs the session wrote with); a "
    "compaction starts a new segment."
)


def base_name(report: ContextReport) -> str:
    """What the base is, in words."""
    if report.base_tokens is None:
        return "each segment's first prompt"
    return f"{tokens(report.base_tokens)} tokens (--base)"


def computation(crossing: Crossing) -> str:
    """The flag's computation in one sentence."""
    return (
        f"from request #{crossing.index + 1} ({tokens(crossing.prompt_tokens)} tokens, "
        f"{tokens(crossing.carried_tokens)} beyond a {tokens(crossing.base_tokens)}-token base), "
        f"the {plural(crossing.later_requests, 'later request')} re-read "
        f"{tokens(crossing.dropped_tokens)} carried tokens: {money(crossing.reads_usd)} at the "
        f"cache-read price, against {money(crossing.rebuild_usd)} to write the base once; "
        f"a fresh session would have saved {money(crossing.saved_usd)}"
    )


def print_context(
    console: Console, report: ContextReport, zone: tzinfo, *, every: bool, limit: int | None
) -> None:
    """The flagged sessions (every session with `every`), the rule, and the unjudged."""
    rows = list(report.sessions if every else report.flagged)[:limit]
    flagged = len(report.flagged)
    pays = f"saves {money(report.min_saving_usd)}+" if report.min_saving_usd else "pays off"
    title = f"Context growth: {plural(flagged, 'session')} past the point a fresh one {pays}"
    if not rows:
        console.print(f"{title}: none among {plural(len(report.sessions), 'session')}.")
    else:
        console.print(_table(rows, title))
        top = rows[0]
        if top.crossing is not None:
            when = top.crossing.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
            console.print(f"Session {top.session_id[:8]}, {when}: {computation(top.crossing)}.")
    console.print(f"Base: {base_name(report)}. {RULE}", style="dim")
    unpriced = report.unpriced
    if unpriced:
        console.print(
            f"{plural(len(unpriced), 'session')} not judged: {unpriced[0].unpriced}"
            + (" (and others)" if len({s.unpriced for s in unpriced}) > 1 else ""),
            style="yellow",
        )


HEADERS = ["session", "project", "reqs", "from", "base", "carried", "later", "reads", "rebuild",
           "saved"]  # fmt: skip
"""The columns of the table: they fit 80 columns (the peak is in the JSON)."""


def _table(rows: list[SessionGrowth], title: str) -> Table:
    """One row per session, the numbers of its computation; only the project gives way."""
    cells = []
    for row in rows:
        crossing = row.crossing
        start = [row.session_id[:8], short_project(row.project), f"{len(row.points):,}"]
        if crossing is None:
            rest = ["–"] * 7 if row.unpriced is None else ["unpriced"] + ["–"] * 6
        else:
            rest = [
                f"#{crossing.index + 1}", compact(crossing.base_tokens),
                compact(crossing.carried_tokens), f"{crossing.later_requests:,}",
                money(crossing.reads_usd), money(crossing.rebuild_usd), money(crossing.saved_usd),
            ]  # fmt: skip
        cells.append(start + rest)
    return measures_table(title, HEADERS, cells, text_columns=2, shrinkable=1)


def crossing_json(crossing: Crossing) -> dict[str, Any]:
    """The flag and the numbers of its computation."""
    return {
        "index": crossing.index,
        "request": crossing.key,
        "at": crossing.at.isoformat(),
        "base_tokens": crossing.base_tokens,
        "prompt_tokens": crossing.prompt_tokens,
        "carried_tokens": crossing.carried_tokens,
        "later_requests": crossing.later_requests,
        "dropped_tokens": crossing.dropped_tokens,
        "reads_usd": rounded(crossing.reads_usd),
        "rebuild_usd": rounded(crossing.rebuild_usd),
        "saved_usd": rounded(crossing.saved_usd),
    }


def session_growth_json(session: SessionGrowth) -> dict[str, Any]:
    """One session: its series, its compactions and its flag."""
    return {
        "session": session.session_id,
        "project": session.project,
        "harness": session.harness.value,
        "requests": len(session.points),
        "subagent_requests": session.subagent_requests,
        "compactions": session.compactions,
        "peak_tokens": session.peak_tokens,
        "flagged": session.crossing is not None,
        "crossing": None if session.crossing is None else crossing_json(session.crossing),
        "unpriced": session.unpriced,
        "series": [
            {
                "request": point.key,
                "at": point.at.isoformat(),
                "prompt_tokens": point.prompt_tokens,
                "compacted": point.compacted,
            }
            for point in session.points
        ],
    }


def context_json(report: ContextReport, *, every: bool, limit: int | None) -> dict[str, Any]:
    """`sniff context --json`: the rule, and the sessions (flagged only unless `every`)."""
    rows = list(report.sessions if every else report.flagged)[:limit]
    return {
        "base_tokens": report.base_tokens,
        "base": base_name(report),
        "rule": RULE,
        "flagged": len(report.flagged),
        "min_saving_usd": report.min_saving_usd,
        "sessions_judged": len(report.sessions) - len(report.unpriced),
        "sessions_unpriced": len(report.unpriced),
        "sessions": [
            session_growth_json(session) | {"flagged": report.material(session)} for session in rows
        ],
    }
