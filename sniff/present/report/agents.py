"""Provides the report's agent sections (tools, failures, user requests) as rows.

Shared by the HTML and Markdown writers so both show the same figures, and (the tools and the
dearest user requests) by `sniff agents`' terminal tables; the JSON writer uses
`agents_view.agents_json`.
"""

from __future__ import annotations

from sniff.analyses.agents.activity import AgentReport
from sniff.analyses.agents.attribution import Attribution
from sniff.analyses.cost.commits import Spent
from sniff.numbers import compact, first_line, instant, money, percent, plural

LISTED = 15

TOOL_HEADERS = ["tool", "from", "calls", "failed", "result tokens", "cost"]

Row = list[tuple[str, float | int | None]]
"""Cells as (text shown, value sorted by; None sorts as text)."""


def sections(report: AgentReport) -> list[tuple[str, list[str], list[Row], int]]:
    """(title, headers, rows, how many leading columns are text) for each section: tools,
    failures, user requests, then the cost by subagent type, skill and MCP server where the
    logs hold any."""
    failures: list[Row] = [
        [
            (row.error_class, None),
            (row.description, None),
            (f"{row.count:,}", row.count),
            (_example(row.examples), None),
        ]
        for row in report.errors
    ]
    return [
        ("Tool use", TOOL_HEADERS, tool_rows(report), 2),
        (
            f"Failures: {failure_summary(report)}",
            ["class", "meaning", "count", "example"],
            failures,
            2,
        ),
        (
            f"User requests: {len(report.commands):,}, {report.interruptions:,} interrupted "
            f"({percent(report.interruption_rate)}); the most expensive",
            ["request", "time (UTC)", "model calls", "tool calls", "cost", "interrupted"],
            command_rows(report),
            2,
        ),
        *attribution_sections(report.attribution),
    ]


SPENT_HEADERS = ["requests", "tokens", "cost"]


def _spent(spent: Spent) -> Row:
    return [
        (f"{spent.requests:,}", spent.requests),
        (compact(spent.tokens), spent.tokens),
        (money(spent.cost_usd) if spent.requests else "–", spent.cost_usd),
    ]


def attribution_sections(found: Attribution) -> list[tuple[str, list[str], list[Row], int]]:
    """The cost by subagent type, skill and MCP server (`sniff agents`), those that have rows."""
    kinds: list[tuple[str, list[str], list[Row], int]] = [
        (
            "Subagent types",
            ["type", "launches", *SPENT_HEADERS],
            [[(row.name, None), (f"{row.runs:,}", row.runs), *_spent(row.spent)]
             for row in found.subagent_types],
            1,
        ),
        (
            "Skills",
            ["skill", "invocations", *SPENT_HEADERS],
            [[(row.name, None), (f"{row.runs:,}", row.runs), *_spent(row.spent)]
             for row in found.skills],
            1,
        ),
        (
            "MCP servers",
            ["server", "tools", "calls", "errors", "context added", "cost"],
            [[(row.server, None), (f"{row.tools:,}", row.tools), (f"{row.calls:,}", row.calls),
              (f"{row.errors:,}", row.errors), (compact(row.result_tokens), row.result_tokens),
              (money(row.cost_usd), row.cost_usd)]
             for row in found.servers],
            1,
        ),
    ]  # fmt: skip
    return [kind for kind in kinds if kind[2]]


def failure_summary(report: AgentReport, api_errors: bool = False) -> str:
    """Failed tool results of all, and (where there are any) the cancelled calls and those whose
    outcome the log does not state; with `api_errors`, the API errors too."""
    parts = [
        f"{report.tool_failures:,} of {report.results:,} tool results "
        f"({percent(report.tool_failure_rate)})"
    ]
    if api_errors:
        parts.append(plural(report.api_errors, "API error"))
    if report.cancelled:
        parts.append(f"{report.cancelled:,} cancelled when a parallel call failed")
    if report.unknown_outcomes:
        parts.append(
            f"{plural(report.unknown_outcomes, 'call')} whose outcome the log does not state"
        )
    return ", ".join(parts)


def tool_rows(report: AgentReport, limit: int | None = None) -> list[Row]:
    """The tools, most called first (the first `limit` of them): as `TOOL_HEADERS`."""
    return [
        [
            (row.tool, None),
            (row.server, None),
            (f"{row.calls:,}", row.calls),
            (f"{row.errors:,}", row.errors),
            (compact(row.result_tokens), row.result_tokens),
            (money(row.cost_usd), row.cost_usd),
        ]
        for row in report.tools[:limit]
    ]


def command_rows(report: AgentReport, limit: int = LISTED) -> list[Row]:
    """The `limit` dearest user requests: request (its command, or its text's first line),
    time (UTC), model calls, tool calls, cost, interrupted."""
    dearest = sorted(report.commands, key=lambda row: -row.cost_usd)[:limit]
    return [
        [
            (row.command or first_line(row.text), None),
            (instant(row.at)[:16].replace("T", " "), None),
            (f"{row.model_calls:,}", row.model_calls),
            (f"{row.tool_calls:,}", row.tool_calls),
            (money(row.cost_usd), row.cost_usd),
            ("yes" if row.interrupted else "", int(row.interrupted)),
        ]
        for row in dearest
    ]


def texts(rows: list[Row]) -> list[list[str]]:
    """The rows' shown texts (for a table that does not sort)."""
    return [[text for text, _ in row] for row in rows]


def _example(examples: list[tuple[str, str, float | None]]) -> str:
    if not examples:
        return ""
    tool, text, _ = examples[0]
    line = first_line(text)[:80]
    return f"{tool}: {line}" if tool else line
