"""Provides `sniff commits`: what each commit made inside a session cost, and each pull request."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

BYS = ("commit", "pr")


@one_line_errors
@replayed("commits")
@o.shared(omit=("model", "agent", "dask"), after="json")
def commits(
    by: Annotated[
        str,
        typer.Option("--by", help=f"One row per: {', '.join(BYS)}.", metavar="KEY"),
    ] = "commit",
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", "-n", help="Show only the first N rows.", callback=o.at_least(1), metavar="N"
        ),
    ] = None,
    **options: Any,
) -> None:
    """Each commit made in a session (a `git commit` that printed its hash): its message, and
    the requests, tokens and cost since the session's previous commit; `--by pr` rolls them up
    to the pull requests the session created. Commits made outside a session are in no log."""
    from sniff.errors import UserError

    if by not in BYS:
        raise UserError(f"--by must be one of {', '.join(BYS)}, not {by!r}")
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        report = workspace.commits_report()
    o.report_issues(workspace.dataset(), options["verbose"])
    if options["json"]:
        from sniff.present.terminal.commits import commits_json

        o.print_json(commits_json(report, limit))
        return
    from sniff.present.terminal.commits import print_commits
    from sniff.present.terminal.safe_console import SafeConsole

    print_commits(SafeConsole(), report, by, limit)
