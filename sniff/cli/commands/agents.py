"""Provides `sniff agents`: tool use, failures by class, and what each user request led to."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

if TYPE_CHECKING:
    from sniff.analyses.agents.activity import AgentReport, CommandRow

SORTS = o.Sorts(
    keys=("cost", "calls", "tools", "time"),
    cuts="the tools, user requests and subagent runs listed, in the tables and --json "
    "(default: 15 in the tables)",
    ascending=frozenset({"time"}),
    note="Orders the user requests (calls: model calls; tools: tool calls); in --json they "
    "are in time order unless --sort or --order is given.",
)


@one_line_errors
@replayed("agents")
@o.shared(omit=("model", "agent", "dask"), after="json")
@o.listed(SORTS)
def agents(**options: Any) -> None:
    """Tools used and failed (by class); each user request's model calls, tool calls and cost."""
    chosen = o.listing(options, SORTS)
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        report = workspace.agents_report()
    limit = chosen.limit
    o.report_issues(workspace.dataset(), options["verbose"])
    # --json keeps the user requests in time order (its contract) unless an order is asked for
    if chosen.given or not options["json"]:
        report = _ordered(report, chosen)
    if options["json"]:
        from sniff.present.terminal.agents import agents_json

        o.print_json(agents_json(report, limit))
        return
    from sniff.present.terminal.agents import print_agents
    from sniff.present.terminal.safe_console import SafeConsole

    default = chosen.sort == SORTS.keys[0] and not chosen.flipped
    print_agents(SafeConsole(), report, limit, None if default else chosen.title)


def _ordered(report: AgentReport, chosen: o.Listing) -> AgentReport:
    """The report with its user requests in the chosen order, every one kept: the header counts
    them all, and the presenters cut them to --limit."""
    from dataclasses import replace

    keys: dict[str, Callable[[CommandRow], Any]] = {
        "cost": lambda row: row.cost_usd,
        "calls": lambda row: row.model_calls,
        "tools": lambda row: row.tool_calls,
        "time": lambda row: row.at,
    }
    return replace(report, commands=replace(chosen, limit=None).arrange(report.commands, keys))
