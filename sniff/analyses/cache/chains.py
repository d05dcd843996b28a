"""Provides `Chains`: who continues whom among requests, and what each left in the cache.

Why apart: the cache-break analysis (`analyses.cache.breaks`) and the attribution of each break's
cause (`analyses.cache.break_causes`) follow the same links and ask the same questions of them: the
TTL in force after a request, whether a compaction ran in between, what a request left cached.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sniff.model import Agent, Request

TTL_5M, TTL_1H = 300.0, 3600.0
TURN_STEPS = 10_000
"""How far back a request's turn is looked for: a tool loop longer than this is not judged."""
IDLE_TTL = 600.0
"""OpenAI's automatic cache lives 5 to 10 minutes idle (the bundled `openai` policy)."""


def start_of(request: Request) -> float:
    """When a request started, as well as its log says (epoch seconds)."""
    return (request.started_at or request.first_token_at or request.ended_at).timestamp()


Way = tuple[bool, str | None, int]
"""What walking back from a request to its turn's start found (`Chains.way_back`): whether it
got there, the key of the earliest request that thought on the way, the steps it took."""


@dataclass(frozen=True, slots=True)
class Frontier:
    """What requests logged after a set of them need of its chains to be judged as among them
    all: each chain's last request (`open`: later lines may still change it), its last settled
    one and the one its last continues, what walking back from those finds (`ways`), the
    chains whose settled requests wrote 1-hour entries, and when each session's compactions
    ran."""

    requests: list[Request]
    one_hour: list[tuple[str, str]]
    compactions: dict[str, list[float]]
    started: float
    """The latest start of the settled requests."""
    open: list[str]
    ways: dict[str, Way]


class Chains:
    """Who continues whom: the logged link where there is one, else the chain's previous request.

    A chain is a session's agent (its main conversation, or one subagent). The logged link
    (`Request.previous`) crosses files and sessions where a resumed session replays its history;
    without a link, the chain's previous request by time stands in.
    """

    @classmethod
    def of(cls, requests: Sequence[Request]) -> Chains:
        """The chains of the requests that got a response, ordered by when they started."""
        timed = sorted(
            ((start_of(request), request) for request in requests if request.error is None),
            key=lambda pair: pair[0],
        )
        return cls([request for _, request in timed], {r.key: start for start, r in timed})

    def __init__(self, ordered: list[Request], starts: dict[str, float]) -> None:
        self.ordered = ordered
        """The requests by start."""
        self.starts = starts
        self.by_key = {request.key: request for request in ordered}
        self.before: dict[str, Request] = {}
        self.last: dict[tuple[str, str], Request] = {}
        self.one_hour: set[tuple[str, str]] = set()
        self.compactions: dict[str, list[float]] = {}
        self.ways: dict[str, tuple[bool, Request | None, int]] = {}
        """`way_back` from requests whose chain before them is not among these."""
        for request in ordered:
            chain = (request.session_id, request.agent_id)
            earlier = self.last.get(chain)
            if earlier is not None:
                self.before[request.key] = earlier
            self.last[chain] = request
            if request.usage.cache_write_1h_tokens:
                self.one_hour.add(chain)
            if request.agent is Agent.COMPACTION:
                self.compactions.setdefault(request.session_id, []).append(starts[request.key])

    @classmethod
    def resumed(cls, frontier: Frontier, requests: Sequence[Request]) -> Chains:
        """The chains of `frontier`'s set and of `requests` (logged after it), as far as
        `frontier` tells of the set: `requests` are linked and judged as among all of it."""
        opened = set(frontier.open)
        chains = cls.of([*(r for r in frontier.requests if r.key not in opened), *requests])
        chains.one_hour.update(frontier.one_hour)
        for session, starts in frontier.compactions.items():
            chains.compactions[session] = sorted({*starts, *chains.compactions.get(session, [])})
        for key, (found, first, steps) in frontier.ways.items():
            chains.ways[key] = (found, chains.by_key.get(first or ""), steps)
        return chains

    def frontier(self, open: set[str], one_hour: Iterable[tuple[str, str]]) -> Frontier:
        """What requests logged after these need of their chains (see `Frontier`): `open`
        are the chains' last, `one_hour` the chains whose settled requests before these wrote
        1-hour entries."""
        mine = [r for r in self.ordered if r.key not in open]
        settled = {(r.session_id, r.agent_id): r for r in mine}  # each chain's last settled
        hour = set(one_hour)
        hour.update((r.session_id, r.agent_id) for r in mine if r.usage.cache_write_1h_tokens)
        continued = (self.previous(last) for last in self.last.values() if last.key in open)
        ends = {r.key: r for r in [*settled.values(), *filter(None, continued)]}
        held = [r for r in self.ordered if r.key in open]  # every open one, not only the lasts
        nodes = {**ends, **{last.key: last for last in self.last.values()}}
        nodes.update((r.key, r) for r in held)
        ways: dict[str, Way] = {}
        for key, request in ends.items():
            found, first, steps = self.way_back(request)
            ways[key] = (found, None if first is None else first.key, steps)
            if first is not None:
                nodes.setdefault(first.key, first)
        started = max((self.starts[r.key] for r in settled.values()), default=-math.inf)
        return Frontier(
            list(nodes.values()), sorted(hour), self.compactions, started, sorted(open), ways
        )

    def first_thought(self, request: Request) -> Request | None:
        """The earliest request whose response (thinking included) `request`'s prompt sent
        back since its last user turn; None when none thought or the turn's start is not
        known."""
        found, first, _ = self.way_back(request)
        return first if found else None

    def way_back(self, request: Request) -> tuple[bool, Request | None, int]:
        """Walking back from `request` to its turn's start, at most `TURN_STEPS`: whether it
        got there, the earliest request that thought on the way, and the steps it took
        (through a request of `ways`, whose chain before it is not among these, as kept)."""
        first: Request | None = None
        current: Request | None = request
        for step in range(TURN_STEPS):
            if current is None:
                return False, None, step + 1
            kept = self.ways.get(current.key)
            if kept is not None:
                found, earlier, steps = kept
                if not found or step + steps > TURN_STEPS:
                    return False, None, min(step + steps, TURN_STEPS)
                return True, earlier or first, step + steps
            if current.opens_turn:
                return True, first, step + 1
            current = self.previous(current)
            if current is not None and current.thinks:
                first = current
        return False, None, TURN_STEPS

    def previous(self, request: Request) -> Request | None:
        linked = self.by_key.get(request.previous or "")
        return linked if linked is not None else self.before.get(request.key)

    def linked(self, request: Request) -> bool:
        return request.previous is not None and request.previous in self.by_key

    def ttl(self, request: Request, previous: Request | None = None) -> float:
        """The TTL in force for what the predecessor left: 5 minutes if it wrote any 5-minute
        entries (the moving tail expires first), 1 hour if it wrote only 1-hour ones, else
        what the chain used."""
        if not reports_writes(request):
            return IDLE_TTL
        if previous is not None:
            wrote = previous.usage
            if wrote.cache_write_5m_tokens:
                return TTL_5M
            if wrote.cache_write_1h_tokens:
                return TTL_1H
        return TTL_1H if (request.session_id, request.agent_id) in self.one_hour else TTL_5M

    def compacted_between(self, request: Request, start: float, end: float) -> bool:
        return any(
            start <= moment <= end for moment in self.compactions.get(request.session_id, [])
        )


def rewritten(request: Request) -> int:
    """Prompt tokens the request paid more for than a read: its writes, or, where the provider
    does not report writes (caching is automatic), its uncached input."""
    usage = request.usage
    return usage.cache_write_tokens if reports_writes(request) else usage.input_tokens


def reports_writes(request: Request) -> bool:
    return request.provider != "openai"


def cached_after(request: Request) -> int:
    """What a request left in the cache for the next one: what it read and wrote, or, where
    caching is automatic, its whole prompt in 128-token steps from 1,024 tokens on."""
    usage = request.usage
    if reports_writes(request):
        return usage.cache_read_tokens + usage.cache_write_tokens
    whole = usage.prompt_tokens
    return whole // 128 * 128 if whole >= 1024 else 0
