"""Provides the presentation of agent analytics: terminal tables and the JSON object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from sniff.analyses.agents.activity import AgentReport, CommandRow, Spread
from sniff.numbers import first_line, instant, plural
from sniff.present.json.common import rounded
from sniff.present.terminal.attribution import attribution_json, print_attribution

if TYPE_CHECKING:
    from rich.console import Console


def agents_json(report: AgentReport, commands_limit: int | None = None) -> dict[str, Any]:
    """`sniff agents --json`: keys `has_activity`, `without_activity`, `tools`, `errors`,
    `commands` (the last three always, zero where the logs hold no activity), and
    `subagent_types`, `subagent_runs`, `skills`, `mcp_servers` (`attribution_json`)."""
    rows = report.commands if commands_limit is None else report.commands[:commands_limit]
    return {
        "has_activity": report.has_activity,
        "without_activity": list(report.without_activity),
        "tools": {
            "calls": report.calls,
            "by_tool": [
                {
                    "tool": row.tool,
                    "server": row.server,
                    "calls": row.calls,
                    "errors": row.errors,
                    "result_tokens": row.result_tokens,
                    "result_tokens_exact_calls": row.exact_calls,
                    "cost_usd": rounded(row.cost_usd),
                }
                for row in report.tools
            ],
            "by_server": [
                {"server": server, "calls": calls, "errors": errors}
                for server, calls, errors in report.servers
            ],
            "by_project": report.tools_by_project,
            "by_day": report.tools_by_day,
        },
        "errors": {
            "tool_results": report.results,
            "failures": report.failures,
            "cancelled": report.cancelled,
            "outcome_unknown": report.unknown_outcomes,
            "by_class": [
                {
                    "class": row.error_class,
                    "description": row.description,
                    "count": row.count,
                    "examples": [
                        {"tool": tool, "text": text, "at": instant(at)}
                        for tool, text, at in row.examples
                    ],
                }
                for row in report.errors
            ],
            "by_day": [
                {"day": day, "tool_results": results, "failures": failures}
                for day, results, failures in report.errors_by_day
            ],
            "interruptions": report.interruptions,
            "interruption_rate": rounded(report.interruption_rate),
        },
        "commands": {
            "count": len(report.commands),
            "steps": _spread(report.steps),
            "cost_usd": _spread(report.cost),
            "rows": [command_json(row) for row in rows],
        },
        **attribution_json(report.attribution, commands_limit),
    }


def command_json(row: CommandRow) -> dict[str, Any]:
    """One user request."""
    return {
        "at": instant(row.at),
        "session": row.session_id,
        "project": row.project,
        "command": row.command,
        "text": row.text,
        "model_calls": row.model_calls,
        "tool_calls": row.tool_calls,
        "cost_usd": round(row.cost_usd, 6),
        "unpriced_calls": row.unpriced_calls,
        "interrupted": row.interrupted,
    }


def print_agents(
    console: Console, report: AgentReport, limit: int | None = None, order: str | None = None
) -> None:
    """Tools, failures by class, and the user requests, the most expensive first or as `order`
    says they were sorted (the report's order); a table only where it has rows, and one line
    instead of all of them where the logs hold no activity."""
    from sniff.numbers import percent
    from sniff.present.report.agents import (
        LISTED,
        TOOL_HEADERS,
        failure_summary,
        texts,
        tool_rows,
    )
    from sniff.present.terminal.console import measures_table

    limit = limit or LISTED
    if not report.has_activity:
        console.print(no_activity(report))
        return
    console.print(
        Text.assemble(
            ("Tool use", "bold"),
            f" · {plural(report.calls, 'call')} of {plural(len(report.tools), 'tool')}",
        )
    )
    if report.tools:
        rows = texts(tool_rows(report, limit))
        console.print(measures_table("Tools", TOOL_HEADERS, rows, text_columns=2))
    console.print(
        Text.assemble(("Failures", "bold"), f" · {failure_summary(report, api_errors=True)}")
    )
    if report.errors:
        rows = [
            [row.error_class, first_line(row.examples[0][1]) if row.examples else "",
             f"{row.count:,}"]
            for row in report.errors
        ]  # fmt: skip
        headers = ["class", "example", "count"]
        console.print(measures_table("By class", headers, rows, text_columns=2, shrinkable=1))
    console.print(
        Text.assemble(
            ("User requests", "bold"),
            f" · {len(report.commands):,}, "
            f"{report.interruptions:,} interrupted ({percent(report.interruption_rate)})",
        )
    )
    if report.commands:
        rows = texts(_in_order(report, limit))
        headers = ["request", "time (UTC)", "calls", "tools", "cost", "interrupted"]
        title = "Most expensive requests" if order is None else f"Requests by {order}"
        table = measures_table(title, headers, rows, text_columns=2, shrinkable=0)
        console.print(table)
    print_attribution(console, report.attribution, limit)
    if report.without_activity:
        console.print(no_activity(report))


def _in_order(report: AgentReport, limit: int) -> list[Any]:
    """The report's first `limit` user requests, in its order, drawn as `command_rows` draws
    them. That function, shared with the HTML report, picks the most expensive: given one
    request at a time, it keeps the order the command chose."""
    from dataclasses import replace

    from sniff.present.report.agents import command_rows

    return [
        cells
        for command in report.commands[:limit]
        for cells in command_rows(replace(report, commands=[command]), 1)
    ]


def no_activity(report: AgentReport) -> str:
    """One line: which logs record no agent activity (all of them, when nothing has any)."""
    if not report.without_activity:
        return "No agent activity: these logs hold no tool calls or user requests."
    files = " and ".join(report.without_activity)
    if report.has_activity:
        return f"Not counted: the {files} files record API requests only, no agent activity."
    return f"No agent activity: the {files} files record API requests, not what agents did."


def _spread(spread: Spread | None) -> dict[str, float] | None:
    if spread is None:
        return None
    return {"median": spread.median, "p90": spread.p90, "max": spread.maximum}
