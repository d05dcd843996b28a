"""Provides `sniff commits`: what each commit made inside a session cost, and each pull request."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

if TYPE_CHECKING:
    from sniff.analyses.cost.commits import CommitReport, Spent

BYS = ("commit", "pr")
SORTS = o.Sorts(
    keys=("time", "cost", "tokens", "requests"),
    cuts="the commits (or pull requests) listed, in the table and --json",
    ascending=frozenset({"time"}),
    note="time: when the commit was made (a pull request: when it was created).",
)


@one_line_errors
@replayed("commits")
@o.shared(omit=("model", "agent", "dask"), after="json")
@o.listed(SORTS)
def commits(
    by: Annotated[
        str,
        typer.Option("--by", help=f"One row per: {', '.join(BYS)}.", metavar="KEY"),
    ] = "commit",
    **options: Any,
) -> None:
    """Each commit made in a session (a `git commit` that printed its hash): its message, and
    the requests, tokens and cost since the session's previous commit; `--by pr` rolls them up
    to the pull requests the session created. Commits made outside a session are in no log."""
    from sniff.errors import UserError

    if by not in BYS:
        raise UserError(f"--by must be one of {', '.join(BYS)}, not {by!r}")
    chosen = o.listing(options, SORTS)
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        report = _ordered(workspace.commits_report(), chosen)
    limit = chosen.limit
    o.report_issues(workspace.dataset(), options["verbose"])
    if options["json"]:
        from dataclasses import replace

        from sniff.present.terminal.commits import commits_json

        o.print_json(commits_json(replace(report, pulls=report.pulls[:limit]), limit))
        return
    from sniff.present.terminal.commits import print_commits
    from sniff.present.terminal.safe_console import SafeConsole

    print_commits(SafeConsole(), report, by, limit)


def _ordered(report: CommitReport, chosen: o.Listing) -> CommitReport:
    """The report with its commits and pull requests in the chosen order, every one kept (the
    titles count them all; the presenters cut them to --limit)."""
    from dataclasses import replace
    from datetime import UTC, datetime

    def spent(key: Callable[[Spent], Any]) -> Callable[[Any], Any]:
        return lambda row: key(row.spent)

    amounts: dict[str, Callable[[Any], Any]] = {
        "cost": spent(lambda used: used.cost_usd or 0.0),
        "tokens": spent(lambda used: used.tokens),
        "requests": spent(lambda used: used.requests),
    }
    earliest = datetime.min.replace(tzinfo=UTC)  # a commit whose call logged no time
    created = {id(row): place for place, row in enumerate(report.pulls)}  # they come in time order
    whole = replace(chosen, limit=None)
    commits = whole.arrange(report.commits, {"time": lambda row: row.at or earliest, **amounts})
    pulls = whole.arrange(report.pulls, {"time": lambda row: created[id(row)], **amounts})
    return replace(report, commits=commits, pulls=pulls)
