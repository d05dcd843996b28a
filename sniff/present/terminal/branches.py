"""Presents `sniff sessions --by branch|repo|machine|user`: one row per branch, repository, or
machine or user that exported to a team folder, as a table or as JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from sniff.analyses.cost.branches import Attributed
from sniff.numbers import compact, percent
from sniff.present.json.common import totals_json
from sniff.present.terminal.console import cost_cell, measures_table

TITLES = {"branch": "git branch", "repo": "repository", "machine": "machine", "user": "user"}
"""What a row's key is, per attribution."""
NOTES = {
    "branch": "Each request is booked to the branch its own log line names; a session that "
    "changed branch counts in each of its branches' rows.",
    "repo": "Each request is booked to the repository its log names (Codex's session_meta; "
    "Claude Code's transcripts name none).",
    "machine": "Each request is booked to the machine that exported it to the team folder "
    "first; requests read from logs to (local).",
    "user": "Each request is booked to the user whose machine exported it to the team folder "
    "first; requests read from logs to (local).",
}
NAMES = {"branch": "branch", "repo": "repository", "machine": "machine", "user": "user"}
"""A row's key in JSON, per attribution."""


def attributed_json(rows: Sequence[Attributed], by: str) -> list[dict[str, Any]]:
    """One object a row: the branch (or repository), its sessions, and its totals."""
    name = NAMES[by]
    return [{name: row.key, "sessions": row.sessions, **totals_json(row.totals)} for row in rows]


def attributed_table(rows: Sequence[Attributed], by: str) -> Table:
    """One line a row: the branch (or repository), requests, sessions, tokens, hit rate, cost."""
    cells = [
        [
            row.key,
            f"{row.totals.requests:,}",
            f"{row.sessions:,}",
            compact(row.totals.total_tokens),
            percent(row.totals.hit_rate),
            cost_cell(row.totals),
        ]
        for row in rows
    ]
    headers = [TITLES[by], "reqs", "sessions", "tokens", "hit", "cost"]
    return measures_table(f"Cost by {TITLES[by]}", headers, cells, text_columns=1, shrinkable=0)
