"""Provides `sniff sessions`: one row per session, sortable."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

SORTS = ("cost", "start", "duration", "requests", "tokens", "hit-rate", "project", "agents")
ASCENDING = frozenset({"start", "project"})


@one_line_errors
@replayed("sessions")
@o.shared(omit=("dask",))
def sessions(
    sort: Annotated[
        str, typer.Option("--sort", help=f"Order by: {', '.join(SORTS)}.", metavar="KEY")
    ] = "cost",
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", help="Show only the first N sessions.", min=1)
    ] = None,
    **options: Any,
) -> None:
    """One row per session: start, project, agents, requests, tokens, cost and hit rate."""
    from sniff.analyses.summary import SESSION_SORTS
    from sniff.errors import UserError

    if sort not in SORTS:
        raise UserError(f"--sort must be one of {', '.join(SORTS)}, not {sort!r}")
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        # the rows are scan's: summed unit by unit, so only units whose files changed are again
        numbers = workspace.scan()
    dataset, summary = numbers.dataset, numbers.summary
    rows = sorted(summary.sessions, key=SESSION_SORTS[sort], reverse=sort not in ASCENDING)
    rows = rows[:limit] if limit else rows
    o.report_issues(dataset, options["verbose"])
    if options["json"]:
        from sniff.present.jsonout import session_json, warnings_json

        sessions = [session_json(row) for row in rows]
        o.print_json({"sessions": sessions, "warnings": warnings_json(summary, dataset)})
        return
    from rich.console import Console

    from sniff.present.console import print_warnings, sessions_table

    console = Console()
    console.print(sessions_table(rows, f"Sessions by {sort}", workspace.zone))
    print_warnings(console, summary, dataset)
