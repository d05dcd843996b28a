"""Provides `judge_appended`: the cache breaks of requests logged after a set of them, judged
against what the set's `Frontier` keeps of its chains, without the set itself.

Why apart: a scan part grown by appended lines (`analyses.cost.scan_parts.extend_part`) and a
watch following a growing session (`analyses.live`) judge new requests the same way, and must
give the breaks the whole set would: where what the frontier keeps cannot tell (a new request
continues one it does not keep, a settled request would be judged again), they get None and
judge everything.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sniff.analyses.cache.break_report import Break
from sniff.analyses.cache.break_rules import CacheRules
from sniff.analyses.cache.breaks import break_part
from sniff.analyses.cache.chains import Chains, Frontier, start_of
from sniff.model import Agent, Request
from sniff.pricing import PriceBook


@dataclass(frozen=True, slots=True)
class Refused:
    """Why requests cannot be judged against what is kept: everything is judged again."""

    reason: str


@dataclass(frozen=True, slots=True)
class Judged:
    """The frontier's open requests and the appended ones, judged together."""

    chains: Chains
    every: list[Request]
    """The open requests the appended ones do not replace, and the appended, in merge order."""
    still: set[str]
    """Of those, the ones later lines may still change or re-judge (`still_open`)."""
    breaks: list[Break]
    """The breaks among `every` that `keep` keeps."""

    def frontier(self, before: Frontier) -> Frontier:
        """What requests logged after these need (`before`: the frontier they were judged by)."""
        return self.chains.frontier(self.still, before.one_hour)


def judge_appended(
    frontier: Frontier,
    requests: Sequence[Request],
    linked: dict[str, set[str]],
    prices: PriceBook,
    rules: CacheRules,
    keep: Callable[[Request], bool],
) -> Judged | Refused:
    """`requests` (new, or new copies of the frontier's open ones) judged as among the set the
    frontier was made of; `Refused` where that needs more of the set than the frontier keeps.

    Args:
        linked: file → what tied its requests to others before they grew
            (`ingest.index.rows.links_of`); empty where the requests were merged already.
    """
    was_open = set(frontier.open)
    opened = {r.key: r for r in frontier.requests if r.key in was_open}
    new = {request.key for request in requests}
    # the chains' last requests before, again (or as the new lines change them), then the new
    every = sorted([*(r for k, r in opened.items() if k not in new), *requests], key=merge_order)
    own, tokens = {r.key for r in every}, set().union(*linked.values())
    known = own | frontier.ways.keys()  # (how far back a request goes is known of these)
    chains = Chains.resumed(frontier, every)
    ends: dict[tuple[str, str], float] = {}  # each chain's latest settled start
    for request in frontier.requests:
        if request.key not in opened:
            chain = _chain(request)
            ends[chain] = max(ends.get(chain, -math.inf), chains.starts[request.key])
    for request in every:
        if request.key in new and not _fits(request, opened, (linked, tokens), known):
            return Refused(f"{request.key} repeats or continues a call the part does not keep")
        start = chains.starts.get(request.key, math.inf)
        if ends and start <= ends.get(_chain(request), -math.inf):
            return Refused(f"{request.key} started before its chain's last judged request")
        if request.agent is Agent.COMPACTION and start <= frontier.started:
            held = opened.get(request.key)  # where the settled breaks' gaps were judged without it
            if held is None or start_of(held) != start:
                return Refused(f"{request.key}: a compaction among requests judged already")
    hours = set(frontier.one_hour)
    judged = hours | {_chain(r) for r in opened.values() if r.usage.cache_write_1h_tokens}
    hours |= {_chain(r) for r in every if r.usage.cache_write_1h_tokens}
    if any((chain in judged) != (chain in hours) for chain in ends):
        return Refused("a first 1-hour cache write changes the TTL of requests judged already")
    found = break_part(
        chains.ordered, prices, rules, lambda r: r.key in own and keep(r), chains, advise_ttl=False
    )
    still = still_open([r for r in chains.ordered if r.key in own])
    if any(r.previous in still for r in every if r.key not in still):
        return Refused("a judged request continues one later lines may still change")
    return Judged(chains, every, still, found.breaks)


def still_open(ordered: Sequence[Request]) -> set[str]:
    """The requests later lines may still change or re-judge: each chain's last, and, from
    the first request of a chain that continues one of those (a new turn continuing the last
    line, which an inline sidechain wrote), the rest of that chain.

    Why the rest of the chain: a settled request is judged once, so what it continues must be
    settled too; and a chain's open requests must be its last, which later lines extend."""
    last = {_chain(r): r.key for r in ordered}
    still = set(last.values())
    while True:
        opening: dict[tuple[str, str], int] = {}
        for position, request in enumerate(ordered):
            if request.key not in still and request.previous in still:
                opening.setdefault(_chain(request), position)
        if not opening:
            return still
        for chain, position in opening.items():
            still.update(r.key for r in ordered[position:] if _chain(r) == chain)


def _fits(
    request: Request,
    opened: dict[str, Request],
    links: tuple[dict[str, set[str]], set[str]],
    known: set[str],
) -> bool:
    """Whether a request of the new lines can be judged with what the frontier keeps: it is
    new, or the new copy of an open request of its own file only; and it continues a request
    the frontier keeps, or none."""
    linked, tokens = links
    if not tokens:  # (the first part of a unit)
        return True
    token, held, previous = "k:" + request.key, opened.get(request.key), request.previous
    if token in tokens and (
        held is None
        or held.file != request.file
        or any(token in theirs for file, theirs in linked.items() if file != request.file)
    ):
        return False
    return not (previous and previous not in known and "k:" + previous in tokens)


def _chain(request: Request) -> tuple[str, str]:
    return (request.session_id, request.agent_id)


def merge_order(request: Request) -> tuple[datetime, str, int]:
    """The merge's order of requests (`ingest.merge`)."""
    return (request.ended_at, request.file, request.line)
