"""Provides `sniff sessions`: one row per session, sortable; or, `--by branch|repo`, one row per
git branch or repository, each request booked to the branch its own log line names; or,
`--by machine|user`, one row per machine or user that exported the requests to a team folder."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

SORTS = o.Sorts(
    keys=("cost", "start", "duration", "requests", "tokens", "hit-rate", "project", "agents"),
    cuts="the rows (sessions, branches or repositories), in the table and --json",
    ascending=frozenset({"start", "project"}),
    note="With --by: cost, requests, tokens or hit-rate (a branch has no start).",
)


@one_line_errors
@replayed("sessions")
@o.shared()
@o.listed(SORTS)
def sessions(
    by: Annotated[
        str | None,
        typer.Option(
            "--by",
            help="One row per git branch (branch), repository (repo), or machine or user that "
            "exported to a team folder (machine, user) instead, each request booked to its own; "
            "no branch: the row (no branch); read from logs: (local).",
            metavar="branch|repo|machine|user",
        ),
    ] = None,
    **options: Any,
) -> None:
    """One row per session: start, project, agents, requests, tokens, cost and hit rate."""
    from sniff.analyses.cost.summary import SESSION_SORTS

    chosen = o.listing(options, SORTS)
    if by is not None:
        _by(by, chosen, options)
        return
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        # the rows are scan's: summed unit by unit, so only units whose files changed are again
        numbers = workspace.scan()
    dataset, summary = numbers.dataset, numbers.summary
    rows = chosen.arrange(summary.sessions, SESSION_SORTS)
    o.report_issues(dataset, options["verbose"])
    if options["json"]:
        from sniff.present.json.common import session_json, warnings_json

        sessions = [session_json(row) for row in rows]
        o.print_json({"sessions": sessions, "warnings": warnings_json(summary, dataset)})
        return
    from sniff.present.terminal.console import print_warnings, sessions_table
    from sniff.present.terminal.safe_console import SafeConsole

    console = SafeConsole()
    console.print(sessions_table(rows, f"Sessions by {chosen.title}", workspace.zone))
    print_warnings(console, summary, dataset)


def _by(by: str, chosen: o.Listing, options: dict[str, Any]) -> None:
    """`--by branch|repo|machine|user`: the rows per branch, repository, machine or user.

    Raises:
        UserError: `by` or `sort` is not one of theirs (before any log is read).
    """
    from sniff.analyses.cost.branches import ATTRIBUTION_SORTS, ATTRIBUTIONS
    from sniff.analyses.cost.exporters import EXPORTERS
    from sniff.errors import UserError

    if by not in (*ATTRIBUTIONS, *EXPORTERS):
        raise UserError(f"--by must be one of {', '.join((*ATTRIBUTIONS, *EXPORTERS))}, not {by!r}")
    if chosen.sort not in ATTRIBUTION_SORTS:
        keys = ", ".join(ATTRIBUTION_SORTS)
        raise UserError(f"--sort with --by must be one of {keys}, not {chosen.sort!r}")
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        rows = _exporters(workspace, by) if by in EXPORTERS else workspace.attribution(by)
        numbers = workspace.scan()  # the warnings of the same requests, as `sessions` gives
    rows = chosen.arrange(rows, ATTRIBUTION_SORTS)
    o.report_issues(numbers.dataset, options["verbose"])
    if options["json"]:
        from sniff.present.json.common import warnings_json
        from sniff.present.terminal.branches import attributed_json

        warnings = warnings_json(numbers.summary, numbers.dataset)
        o.print_json({"by": by, "rows": attributed_json(rows, by), "warnings": warnings})
        return
    from sniff.present.terminal.branches import NOTES, attributed_table
    from sniff.present.terminal.console import print_warnings
    from sniff.present.terminal.safe_console import SafeConsole

    console = SafeConsole()
    console.print(attributed_table(rows, by))
    console.print(NOTES[by])
    print_warnings(console, numbers.summary, numbers.dataset)


def _exporters(workspace: Any, by: str) -> list[Any]:
    """`--by machine|user`'s rows: the requests the filters keep, each booked to whoever
    exported it first to the team folder it was read from (`(local)`: read from logs)."""
    from sniff.analyses.cost.exporters import attribute_exporters
    from sniff.ingest.parquet_in import owners

    dataset = workspace.dataset()
    found = owners(dataset.files)  # a key in two machines' exports: the first exporter's
    return attribute_exporters(workspace.filters.apply(dataset.requests), found, by)
