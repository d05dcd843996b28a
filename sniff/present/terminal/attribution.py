"""Provides the presentation of cost by subagent type, subagent run, skill and MCP server
(`sniff agents`): tables and JSON keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sniff.analyses.agents.attribution import Attribution, GroupRow
from sniff.numbers import compact, money
from sniff.present.json.common import rounded
from sniff.present.terminal.commits import cost_text, spent_json

if TYPE_CHECKING:
    from rich.console import Console


def attribution_json(attribution: Attribution, limit: int | None = None) -> dict[str, Any]:
    """The keys `subagent_types`, `subagent_runs` (the first `limit`), `skills`, `mcp_servers`."""
    return {
        "subagent_types": [_group(row, "subagent_type", "launches") for row in
                           attribution.subagent_types],
        "subagent_runs": [
            {"agent_id": run.agent_id, "session": run.session_id,
             "subagent_type": run.subagent_type, "parent_request": run.parent_key,
             **spent_json(run.spent)}
            for run in attribution.runs[:limit]
        ],
        "skills": [_group(row, "skill", "invocations") for row in attribution.skills],
        "mcp_servers": [
            {"server": row.server, "tools": row.tools, "calls": row.calls, "errors": row.errors,
             "result_tokens": row.result_tokens, "cost_usd": rounded(row.cost_usd)}
            for row in attribution.servers
        ],
    }  # fmt: skip


def _group(row: GroupRow, name: str, runs: str) -> dict[str, Any]:
    return {name: row.name, runs: row.runs, **spent_json(row.spent)}


def print_attribution(console: Console, attribution: Attribution, limit: int) -> None:
    """A table for each of subagent types, subagent runs, skills and MCP servers that has rows."""
    from sniff.present.terminal.console import measures_table

    def money_of(row: GroupRow) -> list[str]:
        used = row.spent
        return [f"{row.runs:,}", f"{used.requests:,}", compact(used.tokens), cost_text(used)]

    headers = ["requests", "tokens", "cost"]
    if attribution.subagent_types:
        rows = [[row.name, *money_of(row)] for row in attribution.subagent_types[:limit]]
        table = measures_table("Subagent types", ["type", "launches", *headers], rows,
                               text_columns=1)  # fmt: skip
        console.print(table)
    if attribution.runs:
        rows = [
            [run.subagent_type, run.agent_id, run.parent_key, f"{run.spent.requests:,}",
             compact(run.spent.tokens), cost_text(run.spent)]
            for run in attribution.runs[:limit]
        ]  # fmt: skip
        title, columns = "Most expensive subagent runs", ["type", "run", "launched by", *headers]
        table = measures_table(title, columns, rows, text_columns=3, shrinkable=2)
        console.print(table)
    if attribution.skills:
        rows = [[row.name, *money_of(row)] for row in attribution.skills[:limit]]
        console.print(measures_table("Skills", ["skill", "invocations", *headers], rows,
                                     text_columns=1))  # fmt: skip
    if attribution.servers:
        rows = [
            [row.server, f"{row.tools:,}", f"{row.calls:,}", f"{row.errors:,}",
             compact(row.result_tokens), money(row.cost_usd)]
            for row in attribution.servers[:limit]
        ]  # fmt: skip
        headers = ["server", "tools", "calls", "errors", "context added", "cost"]
        console.print(measures_table("MCP servers", headers, rows, text_columns=1))
