"""Provides the presentation of cost by commit and by pull request: tables and the JSON object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sniff.analyses.cost.commits import CommitReport, CommitRow, PullRow, Spent
from sniff.numbers import compact, money, plural
from sniff.present.json.common import rounded

if TYPE_CHECKING:
    from rich.console import Console

ONLY_IN_SESSIONS = (
    "Counts only commits made inside a session (a shell call that ran `git commit` and printed"
    " its hash); commits made elsewhere are in no log."
)


def commits_json(report: CommitReport, limit: int | None = None) -> dict[str, Any]:
    """`sniff commits --json`: keys `commits`, `pull_requests`, `sessions`, `after_last_commit`
    and `note` (what is counted)."""
    rows = report.commits if limit is None else report.commits[:limit]
    return {
        "commits": [commit_json(row) for row in rows],
        "pull_requests": [pull_json(row) for row in report.pulls],
        "sessions": report.sessions,
        "after_last_commit": spent_json(report.after_last),
        "note": ONLY_IN_SESSIONS,
    }


def commit_json(row: CommitRow) -> dict[str, Any]:
    """One commit."""
    return {
        "hash": row.hash,
        "branch": row.branch,
        "message": row.message,
        "session": row.session_id,
        "project": row.project,
        "at": row.at.isoformat() if row.at else None,
        "amend": row.amend,
        **spent_json(row.spent),
        "request_keys": list(row.request_keys),
    }


def pull_json(row: PullRow) -> dict[str, Any]:
    """One pull request."""
    return {
        "url": row.url,
        "branch": row.branch,
        "session": row.session_id,
        "commits": list(row.commits),
        **spent_json(row.spent),
    }


def spent_json(spent: Spent) -> dict[str, Any]:
    """Requests, tokens and cost (None: unpriced)."""
    return {
        "requests": spent.requests,
        "tokens": spent.tokens,
        "cost_usd": rounded(spent.cost_usd),
        "unpriced_requests": spent.unpriced,
    }


def print_commits(
    console: Console, report: CommitReport, by: str = "commit", limit: int | None = None
) -> None:
    """The commits (or the pull requests) with their requests, tokens and cost, and the line
    saying what is counted."""
    from sniff.present.terminal.console import measures_table

    if by == "pr":
        rows = [
            [row.url, row.branch, row.session_id[:8], f"{len(row.commits):,}", *_spent(row.spent)]
            for row in report.pulls[:limit]
        ]
        headers = ["pull request", "branch", "session", "commits", "requests", "tokens", "cost"]
        title = f"Pull requests · {len(report.pulls):,}"
    else:
        rows = [
            [row.hash[:10], row.message + (" (amend)" if row.amend else ""),
             row.session_id[:8], *_spent(row.spent)]
            for row in report.commits[:limit]
        ]  # fmt: skip
        headers = ["commit", "message", "session", "requests", "tokens", "cost"]
        title = f"Commits · {len(report.commits):,} in {plural(report.sessions, 'session')}"
    if rows:
        console.print(measures_table(title, headers, rows, text_columns=3, shrinkable=1))
    else:
        console.print(f"No {'pull requests' if by == 'pr' else 'commits'} found.")
    after = report.after_last
    if after.requests:
        console.print(
            f"After the last commit of those sessions (in no commit): "
            f"{plural(after.requests, 'request')}, {cost_text(after)}"
        )
    console.print(ONLY_IN_SESSIONS)


def _spent(spent: Spent) -> list[str]:
    return [f"{spent.requests:,}", compact(spent.tokens), cost_text(spent)]


def cost_text(spent: Spent) -> str:
    """The cost, and how many requests it leaves out as unpriced; `–` for no request."""
    if not spent.requests:
        return "–"
    shown = money(spent.cost_usd)
    if spent.unpriced and spent.cost_usd is not None:
        shown += f" (+{spent.unpriced:,} unpriced)"
    return shown
