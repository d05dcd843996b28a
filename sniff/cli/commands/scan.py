"""Provides `sniff scan`: the cost summary of every project, model, day and session."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

if TYPE_CHECKING:
    from sniff.workspace import Workspace
    from sniff.workspace.scan import ScanNumbers

SORTS = o.Sorts(
    keys=("cost", "start", "duration", "requests", "tokens", "hit-rate", "project", "agents"),
    # the lengths of `console.TOP_SESSIONS` and `scan_parts.TOP_BREAKS`, unimported: --help is fast
    cuts="the top lists: sessions (default 10; in --json, all) and cache breaks (at most 5, "
    "those a scan keeps)",
    ascending=frozenset({"start", "project"}),
    note="Orders the top sessions; the cache breaks stay the most expensive first.",
)


@one_line_errors
@replayed("scan")
@o.shared()
@o.listed(SORTS)
def scan(**options: Any) -> None:
    """Tokens, cost, cache hit rate and savings, in total and by project, model, day, session."""
    chosen = o.listing(options, SORTS)
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        numbers = _top(workspace.scan(), chosen)
    o.report_issues(numbers.dataset, options["verbose"])
    if options["verbose"]:
        from sniff.shown import one_line

        for line in numbers.analysed_whole:
            sys.stderr.write(one_line(f"sniff: analysed whole: {line}") + "\n")
    if options["json"]:
        _print_json(workspace, numbers)
        return
    from sniff.present.terminal.breaks import print_top_breaks
    from sniff.present.terminal.console import print_summary
    from sniff.present.terminal.safe_console import SafeConsole

    console = SafeConsole()
    top = (chosen.limit, chosen.title)
    print_summary(
        console, numbers.summary, numbers.dataset, workspace.prices.source(), workspace.zone, top
    )
    print_top_breaks(console, numbers.breaks, workspace.zone)


def _top(numbers: ScanNumbers, chosen: o.Listing) -> ScanNumbers:
    """The numbers with the sessions in the chosen order, and the sessions and breaks cut to
    --limit where it is given (the tables cut them to their own lengths otherwise)."""
    from sniff.analyses.cost.summary import SESSION_SORTS

    sessions = chosen.arrange(numbers.summary.sessions, SESSION_SORTS)
    breaks = numbers.breaks.top[: chosen.limit]
    return replace(
        numbers,
        summary=replace(numbers.summary, sessions=sessions),
        breaks=replace(numbers.breaks, top=breaks),
    )


def _print_json(workspace: Workspace, numbers: ScanNumbers) -> None:
    """`--json`: the workspace's summary, its sessions and top breaks those of `numbers` (in
    the order --sort chose, cut to --limit)."""
    from sniff.present.json.breaks import top_breaks_json
    from sniff.present.json.common import session_json

    report = workspace.summary()
    report["sessions"] = [session_json(row) for row in numbers.summary.sessions]
    report["breaks"] = top_breaks_json(numbers.breaks)
    o.print_json(report)
