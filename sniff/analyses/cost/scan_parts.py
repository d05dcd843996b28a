"""Provides `ScanPart`: what `sniff scan` reports of one unit of logs, and joining units.

Why: files whose calls never meet (no shared session, no shared call, no call continuing
another's) can be analysed apart and the answers joined, exactly. A run that finds most units
unchanged since the last one reuses their parts and analyses only the rest; a cluster could
analyse units where they are stored and send back only parts.

Parts are kept as msgpack (`encode_part`), as the index keeps what files yield. A part keeps
what requests logged later need of it (`chains.Frontier`): after lines are appended to its
files, the requests they add are analysed alone and joined to it (`extend_part`).
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo

import msgspec

from sniff.analyses.cache.breaks import Break, CacheRules, break_part, dearest_first
from sniff.analyses.cache.chains import Chains, Frontier, start_of
from sniff.analyses.cost.summary import Cell, Summary, Totals, summary_cells, summary_of_cells
from sniff.model import Agent, Request
from sniff.pricing import PriceBook

TOP_BREAKS = 5
"""The dearest breaks `sniff scan` shows."""


@dataclass(frozen=True, slots=True)
class BreakDigest:
    """What `sniff scan` tells of cache breaks: how many faults and what they cost, how many
    expected breaks (cold starts, compactions, dropped thinking), and the dearest faults.

    Why not every break: a scan shows only the dearest few, and each unit's digest is kept in
    the index and loaded on every run; the dearest of all units are among each unit's dearest.
    """

    faults: int
    expected: int
    fault_costs: tuple[float, ...]
    """Every fault's cost (unpriced ones count 0), ascending; summed exactly in `cost_usd`."""
    top: tuple[Break, ...]
    """The dearest faults, dearest first, at most `TOP_BREAKS`."""
    latest: Break | None = None
    """The last break of any kind (by its request's end): what a status line warns of."""

    @property
    def cost_usd(self) -> float:
        """What the faults cost more than reads would have (an exact sum: the same however
        the breaks were grouped)."""
        return math.fsum(self.fault_costs)


def digest(breaks: Sequence[Break]) -> BreakDigest:
    """The digest of `breaks`, dearest first."""
    faults = [found for found in breaks if found.fault]
    return BreakDigest(
        faults=len(faults),
        expected=len(breaks) - len(faults),
        fault_costs=tuple(sorted(found.cost_usd or 0.0 for found in faults)),
        top=tuple(faults[:TOP_BREAKS]),
        latest=max(breaks, key=_ended, default=None),
    )


def join_digests(digests: Sequence[BreakDigest]) -> BreakDigest:
    """The digest of all the digests' breaks together."""
    top = heapq.merge(*(found.top for found in digests), key=dearest_first)
    return BreakDigest(
        faults=sum(found.faults for found in digests),
        expected=sum(found.expected for found in digests),
        fault_costs=tuple(sorted(cost for found in digests for cost in found.fault_costs)),
        top=tuple(found for _, found in zip(range(TOP_BREAKS), top, strict=False)),
        latest=max(
            (found.latest for found in digests if found.latest is not None),
            key=_ended,
            default=None,
        ),
    )


def _ended(found: Break) -> datetime:
    return found.request.ended_at


@dataclass(frozen=True, slots=True)
class ScanPart:
    """One unit's share of a scan: its summary cells and the digest of its breaks."""

    cells: dict[Cell, Totals]
    breaks: BreakDigest
    frontier: Frontier | None = None
    """What later requests need of its chains, where its files may grow (`extend_part`): its
    chains' last requests, which later lines may still change (`Frontier.open`), are then
    summed and judged apart (`open_breaks`), and join the rest in `whole`."""
    open_breaks: BreakDigest | None = None

    def all_priced(self) -> bool:
        """Whether every request of the part (its open ones too) has a price."""
        opened = set(self.frontier.open) if self.frontier is not None else set()
        held = self.frontier.requests if self.frontier is not None else []
        return not any(totals.unpriced_requests for totals in self.cells.values()) and all(
            request.cost is not None for request in held if request.key in opened
        )

    def whole(self, zone: tzinfo, keep: Callable[[Request], bool]) -> ScanPart:
        """The part with its open requests in its cells and breaks."""
        if self.frontier is None or self.open_breaks is None:
            return self
        opened = set(self.frontier.open)
        last = sorted((r for r in self.frontier.requests if r.key in opened), key=_order)
        cells = summary_cells((r for r in last if keep(r)), zone, _copied(self.cells))
        return ScanPart(cells, join_digests([self.breaks, self.open_breaks]))


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(ScanPart)


def encode_part(part: ScanPart) -> bytes:
    """A part as msgpack: how the index keeps it and workers send it back."""
    return _ENCODER.encode(part)


def decode_part(data: bytes) -> ScanPart | None:
    """The part `encode_part` made; None for data that is not one (kept by other code)."""
    try:
        return _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def scan_part(
    requests: Sequence[Request],
    prices: PriceBook,
    zone: tzinfo,
    keep: Callable[[Request], bool],
    rules: CacheRules,
    extendable: bool = False,
) -> ScanPart:
    """The part of one unit's requests (all of them: chains are followed through every one,
    in the merge's order); with its frontier if `extendable` (and its chains allow)."""
    if extendable:
        start = Frontier([], [], {}, -math.inf, [], {})
        nothing = ScanPart({}, digest([]), start, digest([]))
        part = extend_part(nothing, requests, {}, prices, zone, keep, rules)
        if part is not None:
            return part
    cells = summary_cells((request for request in requests if keep(request)), zone)
    found = break_part(requests, prices, rules, keep, advise_ttl=False)
    return ScanPart(cells, digest(found.breaks))


def extend_part(
    part: ScanPart,
    requests: Sequence[Request],
    linked: dict[str, set[str]],
    prices: PriceBook,
    zone: tzinfo,
    keep: Callable[[Request], bool],
    rules: CacheRules,
) -> ScanPart | None:
    """`part` with `requests` (what lines appended to its files yield, dated) added: the part
    of all of them; None when that needs more of its requests than it keeps.

    Args:
        linked: file → what tied its requests to others (`ingest.index.rows.links_of`).
    """
    frontier = part.frontier
    if frontier is None or part.open_breaks is None:
        return None
    was_open = set(frontier.open)
    opened = {r.key: r for r in frontier.requests if r.key in was_open}
    new = {request.key for request in requests}
    # the chains' last requests before, again (or as the new lines change them), then the new
    every = sorted([*(r for k, r in opened.items() if k not in new), *requests], key=_order)
    own, tokens = {r.key for r in every}, set().union(*linked.values())
    known = own | frontier.ways.keys()  # (how far back a request goes is known of these)
    chains = Chains.resumed(frontier, every)
    ends: dict[tuple[str, str], float] = {}  # each chain's latest settled start
    for request in frontier.requests:
        if request.key not in opened:
            chain = (request.session_id, request.agent_id)
            ends[chain] = max(ends.get(chain, -math.inf), chains.starts[request.key])
    for request in every:
        if request.key in new and not _fits(request, opened, (linked, tokens), known):
            return None
        start = chains.starts.get(request.key, math.inf)
        if ends and start <= ends.get(_chain(request), -math.inf):
            return None
        if request.agent is Agent.COMPACTION and start <= frontier.started:
            held = opened.get(request.key)  # where the settled breaks' gaps were judged without it
            if held is None or start_of(held) != start:
                return None
    hours = set(frontier.one_hour)
    judged = hours | {_chain(r) for r in opened.values() if r.usage.cache_write_1h_tokens}
    hours |= {_chain(r) for r in every if r.usage.cache_write_1h_tokens}
    if any((chain in judged) != (chain in hours) for chain in ends):
        return None  # the settled breaks' TTLs would change
    found = break_part(
        chains.ordered, prices, rules, lambda r: r.key in own and keep(r), chains, advise_ttl=False
    )
    still = _still_open([r for r in chains.ordered if r.key in own])
    if any(r.previous in still for r in every if r.key not in still):
        return None  # a settled request continues an open one (the last of another chain)
    cells = _copied(part.cells)
    try:
        summary_cells((r for r in every if r.key not in still and keep(r)), zone, cells)
        summary_cells((r for r in every if r.key in still and keep(r)), zone, _copied(cells))
    except ValueError:  # ends before a request summed already (or to be: `whole`)
        return None
    settled = digest([b for b in found.breaks if b.request.key not in still])
    return ScanPart(
        cells,
        join_digests([part.breaks, settled]),
        chains.frontier(still, frontier.one_hour),
        digest([b for b in found.breaks if b.request.key in still]),
    )


def _still_open(ordered: Sequence[Request]) -> set[str]:
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
    """Whether a request of the new lines can be judged with what the part keeps: it is new,
    or the new copy of an open request of its own file only; and it continues a request the
    part keeps, or none."""
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


def _order(request: Request) -> tuple[datetime, str, int]:
    """The merge's order of requests (`ingest.merge`): cells are summed in it."""
    return (request.ended_at, request.file, request.line)


def _copied(cells: dict[Cell, Totals]) -> dict[Cell, Totals]:
    return {key: dataclasses.replace(totals) for key, totals in cells.items()}


def join(parts: Iterable[ScanPart]) -> tuple[Summary, BreakDigest]:
    """The summary and the breaks' digest of all parts together."""
    cells: dict[Cell, Totals] = {}
    digests: list[BreakDigest] = []
    for part in parts:
        cells.update(part.cells)  # units share no session, so no cell
        digests.append(part.breaks)
    return summary_of_cells(cells), join_digests(digests)
