"""Provides the 5-hour windows (`sniff blocks`): usage, cost and cache breaks per block.

Why this convention: it is the peer's (ccusage's `identifySessionBlocks`), so that the two tools
show the same windows. A block starts at its first request's time floored to the hour in UTC and
ends 5 hours later; a request more than 5 hours after the block's start, or more than 5 hours
after the block's last request, starts a new block (a request exactly at the end stays in). Idle
time of more than 5 hours between two requests is a gap block, from 5 hours after the last
request to the next one. The windows are absolute times: a time zone only changes how they are
shown.

A request is placed at its end: the time of the log line that completes its response (the line
the peer keeps, and so the time it reads).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sniff.analyses.cache.break_report import Break, CauseTotals
from sniff.analyses.cost.summary import Totals
from sniff.model import Agent, Request

BLOCK = timedelta(hours=5)
"""A block's length."""


@dataclass(frozen=True, slots=True)
class Block:
    """One 5-hour window with its requests' sums, or a gap between two windows."""

    start: datetime
    end: datetime
    """Five hours after `start`; for a gap, the next block's first request."""
    gap: bool
    last: datetime | None
    """The last request's time (None for a gap): the block's actual last activity."""
    totals: Totals = field(default_factory=Totals)
    models: tuple[str, ...] = ()
    """The models its requests used, in order of first use."""
    breaks: CauseTotals = field(default_factory=lambda: CauseTotals("block"))
    """The cache breaks among its requests, faults and expected ones apart."""
    break_list: tuple[Break, ...] = ()
    """Those breaks, dearest first."""
    subagent_usd: float = 0.0
    compaction_usd: float = 0.0
    requests: tuple[Request, ...] = ()
    """Its requests, in time order."""

    def active(self, now: datetime) -> bool:
        """Whether `now` falls within the block (never for a gap)."""
        return not self.gap and self.start <= now < self.end

    def share(self, usd: float) -> float | None:
        """`usd` as a share of the block's cost; None when the block cost nothing known."""
        cost = self.totals.cost
        return usd / cost if cost else None


def moment(request: Request) -> datetime:
    """When a request is placed in the windows: its end, as the peer places it."""
    return request.ended_at


def in_time_order(requests: Iterable[Request]) -> list[Request]:
    """The requests by `moment`, ties in the order of their log lines."""
    return sorted(requests, key=lambda request: (moment(request), request.file, request.line))


def hour_floor(when: datetime) -> datetime:
    """`when` floored to the hour in UTC."""
    return when.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


def windows(requests: Iterable[Request]) -> list[tuple[datetime, list[Request]]]:
    """The requests (any order) split into blocks: each block's start and its requests in time
    order."""
    ordered = in_time_order(requests)
    found: list[tuple[datetime, list[Request]]] = []
    for request in ordered:
        at = moment(request)
        if found:
            start, members = found[-1]
            if at - start <= BLOCK and at - moment(members[-1]) <= BLOCK:
                members.append(request)
                continue
        found.append((hour_floor(at), [request]))
    return found


def build_blocks(requests: Iterable[Request], breaks: Sequence[Break] = ()) -> list[Block]:
    """Every block of `requests` with the gaps between them, oldest first; `breaks` (of any
    requests) are counted in the block of their request."""
    split = windows(requests)
    home: dict[tuple[str, str], int] = {}
    for index, (_start, members) in enumerate(split):
        for request in members:
            home[request.source, request.key] = index
    found: list[list[Break]] = [[] for _ in split]
    for item in breaks:
        at = home.get((item.request.source, item.request.key))
        if at is not None:
            found[at].append(item)
    blocks: list[Block] = []
    for (start, members), block_breaks in zip(split, found, strict=True):
        if blocks and moment(members[0]) - (last := blocks[-1].last or start) > BLOCK:
            blocks.append(Block(last + BLOCK, moment(members[0]), gap=True, last=None))
        blocks.append(_block(start, members, block_breaks))
    return blocks


def _block(start: datetime, members: list[Request], breaks: list[Break]) -> Block:
    totals = Totals()
    models: dict[str, None] = {}
    subagent = compaction = 0.0
    for request in members:
        totals.add(request)
        models.setdefault(request.model, None)
        usd = request.cost.total_usd if request.cost is not None else 0.0
        if request.agent is Agent.SUBAGENT:
            subagent += usd
        elif request.agent is Agent.COMPACTION:
            compaction += usd
    tally = CauseTotals("block")
    for item in breaks:
        tally.add(item)
    return Block(
        start=start,
        end=start + BLOCK,
        gap=False,
        last=moment(members[-1]),
        totals=totals,
        models=tuple(models),
        breaks=tally,
        break_list=tuple(breaks),
        subagent_usd=subagent,
        compaction_usd=compaction,
        requests=tuple(members),
    )


def active_block(blocks: Sequence[Block], now: datetime) -> Block | None:
    """The block `now` falls in, if any."""
    return next((block for block in reversed(blocks) if block.active(now)), None)


def largest_tokens(blocks: Sequence[Block], now: datetime) -> int | None:
    """The most tokens (every class) any finished block holds: `--token-limit max`; None when
    no block has finished."""
    done = [
        block.totals.total_tokens for block in blocks if not block.gap and not block.active(now)
    ]
    return max(done) if done else None
