"""Provides `sniff scan`: the cost summary of every project, model, day and session."""

from __future__ import annotations

from typing import Any

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed


@one_line_errors
@replayed("scan")
@o.shared()
def scan(**options: Any) -> None:
    """Tokens, cost, cache hit rate and savings, in total and by project, model, day, session."""
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        numbers = workspace.scan()
    o.report_issues(numbers.dataset, options["verbose"])
    if options["json"]:
        o.print_json(workspace.summary())
        return
    from sniff.present.terminal.breaks import print_top_breaks
    from sniff.present.terminal.console import print_summary
    from sniff.present.terminal.safe_console import SafeConsole

    console = SafeConsole()
    print_summary(
        console, numbers.summary, numbers.dataset, workspace.prices.source(), workspace.zone
    )
    print_top_breaks(console, numbers.breaks, workspace.zone)
