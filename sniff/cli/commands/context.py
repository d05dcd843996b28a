"""Provides `sniff context`: sessions whose context grew past the point where a fresh session
would have been cheaper, with the computation, and each session's prompt sizes (`--json`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

if TYPE_CHECKING:
    from sniff.analyses.cache.context_growth import ContextReport, SessionGrowth

SORTS = o.Sorts(
    keys=("saved", "peak", "requests", "start"),
    cuts="the sessions listed, in the table and --json",
    ascending=frozenset({"start"}),
    note="saved: what a fresh session would have saved; peak: the largest prompt.",
)
MIN_SAVING_USD = 0.01
"""Advice worth giving: a fresh session that saves less than a cent is not worth the bother."""


@one_line_errors
@replayed("context")
@o.shared(omit=("agent", "dask"), after="json")
@o.listed(SORTS)
def context(
    base: Annotated[
        int | None,
        typer.Option(
            "--base",
            help="The short context a fresh session starts from, in tokens "
            "(default: each segment's first prompt).",
            callback=o.at_least(1),
            metavar="TOKENS",
        ),
    ] = None,
    min_saving: Annotated[
        float,
        typer.Option(
            "--min-saving",
            help="Flag a session only where a fresh one would have saved at least this much.",
            callback=o.at_least(0),
            metavar="USD",
        ),
    ] = MIN_SAVING_USD,
    every: Annotated[
        bool, typer.Option("--all", help="List every session, not only the flagged ones.")
    ] = False,
    **options: Any,
) -> None:
    """Sessions whose prompts grew past the point where a fresh session would have been cheaper.

    Per session (main chain; subagents apart; a compaction starts a new segment), the first
    request from which the cache reads of what the context carried beyond a short base, over
    the later requests, cost more than writing the base once.
    """
    chosen = o.listing(options, SORTS)
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        report = _ordered(workspace.context_report(base, min_saving), chosen)
    limit = chosen.limit
    o.report_issues(workspace.dataset(), options["verbose"])
    if options["json"]:
        from sniff.present.terminal.context import context_json

        o.print_json(context_json(report, every=every, limit=limit))
        return
    from sniff.present.terminal.context import print_context
    from sniff.present.terminal.safe_console import SafeConsole

    print_context(SafeConsole(), report, workspace.zone, every=every, limit=limit)


def _ordered(report: ContextReport, chosen: o.Listing) -> ContextReport:
    """The report with its sessions in the chosen order, every one kept: the presenters count
    the flagged ones and cut the rows to --limit."""
    from dataclasses import replace

    keys: dict[str, Callable[[SessionGrowth], Any]] = {
        # the report's own order: what a fresh session saves, then the peak
        "saved": lambda row: (row.crossing.saved_usd if row.crossing else 0.0, row.peak_tokens),
        "peak": lambda row: row.peak_tokens,
        "requests": lambda row: len(row.points),
        "start": lambda row: row.points[0].at,
    }
    sessions = replace(chosen, limit=None).arrange(report.sessions, keys)
    return replace(report, sessions=tuple(sessions))
