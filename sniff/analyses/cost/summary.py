"""Provides the cost summary: totals, and the same measures by model, project, day and session.

Hit rate and savings follow DESIGN §5 everywhere: hit rate is token-weighted
(Σ cache reads / Σ prompt tokens), savings are what the prompt tokens would have cost at the
base input price minus what they cost. Requests of unpriced models keep their tokens and are
counted apart, so a total is never silently short and an unknown model never shows $0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from sniff.first_hand import JoinRule
from sniff.model import Request, TokenSums


@dataclass(slots=True)
class Totals(TokenSums):
    """Sums over a group of requests."""

    requests: int = 0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    priced_requests: int = 0
    cost_usd: float = 0.0
    """Cost of the priced requests."""
    uncached_usd: float = 0.0
    """What the priced requests would have cost without caching."""
    ttl_assumed: int = 0
    """Requests whose cache writes were assumed to use the 5-minute TTL."""
    failed_requests: int = 0
    """Requests that got no response or an error status (they cost nothing)."""
    rollups: int = 0
    """Whole sessions' totals counted in that say no count of calls (Droid's, Goose's)."""
    reported_requests: int = 0
    """Requests whose agent logged what it believed they cost, in dollars."""
    reported_usd: float = 0.0
    """What the agent logged they cost, summed over `reported_requests`."""
    reported_priced_usd: float = 0.0
    """sniff's cost of the requests whose agent logged one and that sniff priced: what
    `reported_usd` is to be compared with (over `reported_and_priced`)."""
    reported_and_priced: int = 0
    joined_by_request_id: int = 0
    """Requests the agent's telemetry reported, joined to their transcript by request id."""
    joined_by_tokens_and_time: int = 0
    """Requests the agent's telemetry reported, joined to their transcript by the same model
    and token counts, started within 2 s."""
    telemetry_only: int = 0
    """Requests known from the agent's telemetry alone (no transcript holds them)."""
    proxy_joined: int = 0
    """Requests `sniff proxy` recorded that a transcript also holds: counted once."""
    proxy_only: int = 0
    """Requests known from `sniff proxy`'s record alone."""
    first: datetime | None = None
    """The earliest request's start."""
    last: datetime | None = None
    """The latest request's end."""

    def add(self, request: Request) -> None:
        """Count one request in."""
        when = request.when
        if self.first is None or when < self.first:
            self.first = when
        if self.last is None or request.ended_at > self.last:
            self.last = request.ended_at
        self.ttl_assumed += request.ttl_assumed
        self.failed_requests += request.error is not None
        usage = request.usage
        self.requests += request.calls
        self.rollups += request.rollup and not request.calls
        self.input_tokens += usage.input_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_5m_tokens += usage.cache_write_5m_tokens
        self.cache_write_1h_tokens += usage.cache_write_1h_tokens
        self.output_tokens += usage.output_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        cost = request.cost
        if cost is not None:
            self.priced_requests += request.calls or 1  # a session's totals count as one
            self.cost_usd += cost.total_usd
            self.uncached_usd += cost.uncached_usd
        if request.first_hand is not None:
            self._count_first_hand(request.first_hand.joined_by)
        self.proxy_only += request.source == "proxy"
        reported = request.reported_cost_usd
        if reported is not None:
            self.reported_requests += 1
            self.reported_usd += reported
            if cost is not None:
                self.reported_and_priced += 1
                self.reported_priced_usd += cost.total_usd

    def _count_first_hand(self, joined_by: JoinRule | None) -> None:
        self.joined_by_request_id += joined_by is JoinRule.REQUEST_ID
        self.joined_by_tokens_and_time += joined_by is JoinRule.TOKENS_AND_TIME
        self.proxy_joined += joined_by is JoinRule.RESPONSE_ID
        self.telemetry_only += joined_by is None

    def merge(self, other: Totals) -> None:
        """Add another group's sums to these."""
        self.requests += other.requests
        self.input_tokens += other.input_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_5m_tokens += other.cache_write_5m_tokens
        self.cache_write_1h_tokens += other.cache_write_1h_tokens
        self.output_tokens += other.output_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.priced_requests += other.priced_requests
        self.cost_usd += other.cost_usd
        self.uncached_usd += other.uncached_usd
        self.ttl_assumed += other.ttl_assumed
        self.failed_requests += other.failed_requests
        self.rollups += other.rollups
        self.reported_requests += other.reported_requests
        self.reported_usd += other.reported_usd
        self.reported_priced_usd += other.reported_priced_usd
        self.reported_and_priced += other.reported_and_priced
        self.joined_by_request_id += other.joined_by_request_id
        self.joined_by_tokens_and_time += other.joined_by_tokens_and_time
        self.telemetry_only += other.telemetry_only
        self.proxy_joined += other.proxy_joined
        self.proxy_only += other.proxy_only
        if other.first is not None and (self.first is None or other.first < self.first):
            self.first = other.first
        if other.last is not None and (self.last is None or other.last > self.last):
            self.last = other.last

    @property
    def unpriced_requests(self) -> int:
        """Requests (and rollups) whose model has no known price."""
        return self.requests + self.rollups - self.priced_requests

    @property
    def reported_difference(self) -> float | None:
        """sniff's cost minus what the agent logged, over the requests that have both; None
        when none has both."""
        if not self.reported_and_priced:
            return None
        return self.reported_priced_usd - self.reported_usd

    @property
    def hit_rate(self) -> float | None:
        """Σ cache reads / Σ prompt tokens; None without prompt tokens."""
        prompt = self.prompt_tokens
        return self.cache_read_tokens / prompt if prompt else None

    @property
    def cost(self) -> float | None:
        """The cost, or None when the group has requests and none of them is priced."""
        return None if self.unpriced_requests and not self.priced_requests else self.cost_usd

    @property
    def savings(self) -> float | None:
        """Savings from caching, or None when the group has requests and none is priced."""
        if self.unpriced_requests and not self.priced_requests:
            return None
        return self.uncached_usd - self.cost_usd


@dataclass(frozen=True, slots=True)
class Group:
    """One row of a breakdown: its key and its totals."""

    key: str
    totals: Totals


@dataclass(slots=True)
class SessionRow:
    """One session: its requests across all its agents (main, subagents, compaction)."""

    session_id: str
    project: str
    start: datetime
    end: datetime
    harness: str = ""
    agents: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)
    totals: Totals = field(default_factory=Totals)

    @property
    def duration_seconds(self) -> float:
        """From the first request's start to the last request's end."""
        return (self.end - self.start).total_seconds()


@dataclass(frozen=True, slots=True)
class Summary:
    """The whole cost summary of a set of requests."""

    totals: Totals
    by_model: list[Group]
    by_project: list[Group]
    by_day: list[Group]
    by_agent: list[Group]
    by_harness: list[Group]
    sessions: list[SessionRow]
    unpriced_models: list[str]


Cell = tuple[str, str, str, str, str, str, str]
"""(model, project, local day, agent, session, agent chain, harness): the finest grain
summed."""


def summarize(requests: Iterable[Request], zone: tzinfo) -> Summary:
    """Aggregate requests; days are calendar days in `zone`."""
    return summary_of_cells(summary_cells(requests, zone))


def summary_cells(
    requests: Iterable[Request], zone: tzinfo, cells: dict[Cell, Totals] | None = None
) -> dict[Cell, Totals]:
    """The requests summed per cell (added to `cells`, if given): one lookup per request.

    Every breakdown, sessions included, then rolls up the far fewer cells. Cells of disjoint
    sets of sessions can be computed apart and joined (a dict union) before the roll-up.

    Raises:
        ValueError: a request ends no later than the last one summed in its cell already: it
            would have been summed before it (sums of floats depend on their order).
    """
    cells = {} if cells is None else cells
    ends = {key: cell.last for key, cell in cells.items()}
    local_day = LocalDays(zone)
    for request in requests:
        key = (
            request.model,
            request.project,
            local_day(request.when),
            request.agent.value,
            request.session_id,
            request.agent_id,
            request.harness.value,
        )
        cell = cells.get(key)
        if cell is None:
            cell = cells[key] = Totals()
        elif (end := ends.get(key)) is not None and request.ended_at <= end:
            raise ValueError(key)
        cell.add(request)
    return cells


def summary_of_cells(cells: dict[Cell, Totals]) -> Summary:
    """Roll cells up into every breakdown.

    Cells are visited in key order, so sums (floats included) and ties come out the same
    however the cells were gathered.
    """
    totals = Totals()
    tables: tuple[dict[str, Totals], ...] = ({}, {}, {}, {}, {})
    sessions: dict[str, SessionRow] = {}
    for key in sorted(cells):
        cell = cells[key]
        totals.merge(cell)
        for table, name in zip(tables, (*key[:4], key[6]), strict=True):
            group = table.get(name)
            if group is None:
                group = table[name] = Totals()
            group.merge(cell)
        _add_to_session(sessions, key, cell)
    by_model, by_project, by_day, by_agent, by_harness = tables
    unpriced = sorted(model for model, group in by_model.items() if group.unpriced_requests)
    return Summary(
        totals=totals,
        by_model=by_cost(by_model),
        by_project=by_cost(by_project),
        by_day=[Group(key, by_day[key]) for key in sorted(by_day)],
        by_agent=by_cost(by_agent),
        by_harness=by_cost(by_harness),
        sessions=sorted(sessions.values(), key=SESSION_SORTS["cost"], reverse=True),
        unpriced_models=unpriced,
    )


class LocalDays:
    """The calendar day (ISO), or the period `pattern` names, of a moment in a zone, memoized
    per quarter hour.

    Every zone's offset from UTC is a whole number of quarter hours, so local midnight (and
    every local hour) falls on a quarter-hour boundary of UTC: one quarter hour never spans two
    local days or hours.
    """

    def __init__(self, zone: tzinfo, pattern: str = "%Y-%m-%d") -> None:
        self.zone = zone
        self.pattern = pattern
        self.days: dict[int, str] = {}

    def __call__(self, moment: datetime) -> str:
        quarter = int(moment.timestamp()) // 900
        day = self.days.get(quarter)
        if day is None:
            day = self.days[quarter] = moment.astimezone(self.zone).strftime(self.pattern)
        return day


def _add_to_session(sessions: dict[str, SessionRow], key: Cell, cell: Totals) -> None:
    model, project, _day, agent, session_id, agent_id, harness = key
    assert cell.first is not None and cell.last is not None
    row = sessions.get(session_id)
    if row is None:
        row = SessionRow(session_id, project, cell.first, cell.last, harness)
        sessions[session_id] = row
    elif cell.first < row.start:
        row.start = cell.first
        if agent == "main":
            row.project = project
    row.end = max(row.end, cell.last)
    row.agents.add(agent_id)
    row.models.add(model)
    row.totals.merge(cell)


def by_cost(table: dict[str, Totals]) -> list[Group]:
    """Rows by cost, highest first; unpriced rows by tokens after them."""
    return sorted(
        (Group(key, totals) for key, totals in table.items()),
        key=lambda group: (group.totals.cost_usd, group.totals.total_tokens, group.key),
        reverse=True,
    )


SESSION_SORTS: dict[str, Callable[[SessionRow], Any]] = {
    "cost": lambda row: (row.totals.cost_usd, row.totals.total_tokens),
    "start": lambda row: row.start,
    "duration": lambda row: row.duration_seconds,
    "requests": lambda row: row.totals.requests,
    "tokens": lambda row: row.totals.total_tokens,
    "hit-rate": lambda row: row.totals.hit_rate or 0.0,
    "project": lambda row: row.project.lower(),
    "agents": lambda row: len(row.agents),
}
"""`sniff sessions --sort` keys; every one sorts descending except `start` and `project`."""
