"""Provides how fast the active 5-hour block burns, where it is heading, and what burns it.

Rates count every token class (cache reads included, as the peer's `--token-limit` does) and
the API-equivalent cost of priced requests. Two rates: over the last 30 minutes (what is
happening now) and over the whole block so far (from its first request to `now`). The
projection to the block's end carries the recent rate forward from what the block holds now:
with nothing in the last 30 minutes, the block is projected to stay as it is.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sniff.analyses.cost.blocks import Block, moment
from sniff.model import Agent, Request

RECENT = timedelta(minutes=30)
TOP_BURNERS = 3
MINUTE = 60.0


@dataclass(frozen=True, slots=True)
class Rate:
    """Tokens per minute and dollars per hour over a span."""

    minutes: float
    tokens_per_minute: float
    usd_per_hour: float


@dataclass(frozen=True, slots=True)
class Burner:
    """One thing that burned the block: a session, a cause of cache breaks, or subagents."""

    kind: str
    """`session`, `break_cause` or `subagents`."""
    name: str
    usd: float
    tokens: int


@dataclass(frozen=True, slots=True)
class Burn:
    """The active block's rates, projection and dearest burners."""

    now: datetime
    recent: Rate
    whole: Rate
    minutes_left: float
    projected_tokens: int
    projected_usd: float | None
    """None when none of the block's requests is priced."""
    burners: tuple[Burner, ...]


def burn(block: Block, now: datetime) -> Burn:
    """How `block` (the active one) burns at `now`."""
    first = moment(block.requests[0])
    whole = _rate(block.requests, max((now - first).total_seconds() / MINUTE, 1.0))
    recent_requests = [request for request in block.requests if moment(request) > now - RECENT]
    recent = _rate(recent_requests, RECENT.total_seconds() / MINUTE)
    left = max((block.end - now).total_seconds() / MINUTE, 0.0)
    cost = block.totals.cost
    return Burn(
        now=now,
        recent=recent,
        whole=whole,
        minutes_left=left,
        projected_tokens=round(block.totals.total_tokens + recent.tokens_per_minute * left),
        projected_usd=None if cost is None else cost + recent.usd_per_hour * left / MINUTE,
        burners=burners(block),
    )


def _rate(requests: Sequence[Request], minutes: float) -> Rate:
    tokens = sum(request.usage.total_tokens for request in requests)
    usd = sum(request.cost.total_usd for request in requests if request.cost is not None)
    return Rate(minutes, tokens / minutes, usd / minutes * MINUTE)


def burners(block: Block) -> tuple[Burner, ...]:
    """The dearest session, the dearest cause of faulty cache breaks, and the subagents: those
    that cost anything, dearest first (at most `TOP_BURNERS`)."""
    sessions: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    subagents = [0.0, 0.0]
    for request in block.requests:
        usd = request.cost.total_usd if request.cost is not None else 0.0
        tokens = request.usage.total_tokens
        row = sessions[request.session_id]
        row[0] += usd
        row[1] += tokens
        if request.agent is Agent.SUBAGENT:
            subagents[0] += usd
            subagents[1] += tokens
    found: list[Burner] = []
    if sessions:
        name, (usd, count) = max(sessions.items(), key=lambda item: (item[1][0], item[0]))
        found.append(Burner("session", name, usd, int(count)))
    cause = _dearest_cause(block)
    if cause is not None:
        found.append(cause)
    if subagents[1]:
        found.append(Burner("subagents", "subagents", subagents[0], int(subagents[1])))
    found = [item for item in found if item.usd > 0]
    found.sort(key=lambda item: (-item.usd, item.kind, item.name))
    return tuple(found[:TOP_BURNERS])


def _dearest_cause(block: Block) -> Burner | None:
    """The cause of faulty breaks whose rebuilds cost the block the most."""
    causes = block_causes(block)
    return causes[0] if causes else None


def block_causes(block: Block) -> list[Burner]:
    """The causes of the block's faulty breaks, dearest first."""
    causes: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for item in block.break_list:
        if item.fault:
            row = causes[item.cause]
            row[0] += item.cost_usd or 0.0
            row[1] += item.rebuilt_tokens
    rows = [Burner("break_cause", name, usd, int(tokens)) for name, (usd, tokens) in causes.items()]
    return sorted(rows, key=lambda item: (-item.usd, item.name))
