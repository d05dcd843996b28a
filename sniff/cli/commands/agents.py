"""Provides `sniff agents`: tool use, failures by class, and what each user request led to."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed


@one_line_errors
@replayed("agents")
@o.shared(omit=("model", "agent", "dask"), after="json")
def agents(
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            "-n",
            help="List only the first N user requests.",
            callback=o.at_least(1),
            metavar="N",
        ),
    ] = None,
    **options: Any,
) -> None:
    """Tools used and failed (by class); each user request's model calls, tool calls and cost."""
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        report = workspace.agents_report()
    o.report_issues(workspace.dataset(), options["verbose"])
    if options["json"]:
        from sniff.present.terminal.agents import agents_json

        o.print_json(agents_json(report, limit))
        return
    from sniff.present.terminal.agents import print_agents
    from sniff.present.terminal.safe_console import SafeConsole

    print_agents(SafeConsole(), report, limit)
