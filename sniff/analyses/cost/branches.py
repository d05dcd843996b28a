"""Provides `attribute`: requests, sessions, tokens and cost per git branch or repository.

Why per request and not per session: a session can change branch midway (Claude Code writes
the branch checked out on every line), so each request is booked to the branch its own log
line names. A request whose log names no branch (Claude Code 1.0.x, an empty `gitBranch`,
agents that log none) goes to the row `(no branch)`; likewise `(no repository)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sniff.analyses.cost.summary import Totals, by_cost
from sniff.model import Request

NO_BRANCH = "(no branch)"
NO_REPOSITORY = "(no repository)"
ATTRIBUTIONS = ("branch", "repo")
"""What `sniff sessions --by` attributes requests to."""


@dataclass(frozen=True, slots=True)
class Attributed:
    """One branch's (or repository's) requests."""

    key: str
    """The branch or repository, or `NO_BRANCH` / `NO_REPOSITORY`."""
    totals: Totals
    sessions: int
    """Sessions with at least one request booked here (a session can count in two rows)."""


def attribution_key(request: Request, by: str) -> str:
    """The row `request` is booked to when attributing `by` (one of ATTRIBUTIONS)."""
    if by == "branch":
        return request.git_branch or NO_BRANCH
    return request.repository or NO_REPOSITORY


def attribute(requests: Iterable[Request], by: str) -> list[Attributed]:
    """The requests summed per branch (`by="branch"`) or repository (`by="repo"`), by cost
    (highest first; unpriced rows by tokens after them).

    Raises:
        ValueError: `by` is not one of ATTRIBUTIONS.
    """
    if by not in ATTRIBUTIONS:
        raise ValueError(f"unknown attribution {by!r}")
    return attributed(requests, lambda request: attribution_key(request, by))


def attributed(requests: Iterable[Request], row_of: Callable[[Request], str]) -> list[Attributed]:
    """The requests summed per the row `row_of` books each to, by cost (highest first;
    unpriced rows by tokens after them)."""
    totals: dict[str, Totals] = {}
    sessions: dict[str, set[str]] = {}
    for request in requests:
        key = row_of(request)
        if key not in totals:
            totals[key], sessions[key] = Totals(), set()
        totals[key].add(request)
        sessions[key].add(request.session_id)
    return [Attributed(row.key, row.totals, len(sessions[row.key])) for row in by_cost(totals)]


ATTRIBUTION_SORTS: dict[str, Callable[[Attributed], Any]] = {
    "cost": lambda row: (row.totals.cost_usd, row.totals.total_tokens),
    "requests": lambda row: row.totals.requests,
    "tokens": lambda row: row.totals.total_tokens,
    "hit-rate": lambda row: row.totals.hit_rate or 0.0,
}
"""`sniff sessions --by ... --sort` keys, each descending."""
