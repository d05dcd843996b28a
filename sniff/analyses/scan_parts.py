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

import heapq
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import tzinfo

import msgspec

from sniff.analyses.breaks import Break, CacheRules, break_part, dearest_first
from sniff.analyses.chains import Chains, Frontier
from sniff.analyses.summary import Cell, Summary, Totals, summary_cells, summary_of_cells
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
    )


def join_digests(digests: Sequence[BreakDigest]) -> BreakDigest:
    """The digest of all the digests' breaks together."""
    top = heapq.merge(*(found.top for found in digests), key=dearest_first)
    return BreakDigest(
        faults=sum(found.faults for found in digests),
        expected=sum(found.expected for found in digests),
        fault_costs=tuple(sorted(cost for found in digests for cost in found.fault_costs)),
        top=tuple(found for _, found in zip(range(TOP_BREAKS), top, strict=False)),
    )


@dataclass(frozen=True, slots=True)
class ScanPart:
    """One unit's share of a scan: its summary cells and the digest of its breaks."""

    cells: dict[Cell, Totals]
    breaks: BreakDigest
    frontier: Frontier | None = None
    """What later requests need of its chains, where its files may grow (`extend_part`)."""


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
    in the merge's order); with its frontier if `extendable`."""
    cells = summary_cells((request for request in requests if keep(request)), zone)
    chains = Chains.of(requests)
    found = break_part(requests, prices, rules, keep, chains).breaks
    return ScanPart(cells, digest(found), chains.frontier() if extendable else None)


def extend_part(
    part: ScanPart,
    requests: Sequence[Request],
    linked: set[str],
    prices: PriceBook,
    zone: tzinfo,
    keep: Callable[[Request], bool],
    rules: CacheRules,
) -> ScanPart | None:
    """`part` with `requests` (logged after its own, dated) added: the part of all of them;
    None when that needs more of its requests than it keeps.

    Args:
        linked: what tied the part's requests together (`ingest.index_rows.links_of`).
    """
    frontier, own = part.frontier, {request.key for request in requests}
    if frontier is None:
        return None
    known = own | {request.key for request in frontier.requests}
    chains = Chains.resumed(frontier, requests)
    ends: dict[tuple[str, str], float] = {}  # each chain's latest start before `requests`
    for request in frontier.requests:
        chain = (request.session_id, request.agent_id)
        ends[chain] = max(ends.get(chain, -math.inf), chains.starts.get(request.key, -math.inf))
    unsure = ends.keys() - set(frontier.one_hour)
    for request in requests:
        chain, previous = (request.session_id, request.agent_id), request.previous
        start = chains.starts.get(request.key, math.inf)  # (failed calls are in no chain)
        if (
            "k:" + request.key in linked  # a response counted already, or continued
            or (previous and previous not in known and "k:" + previous in linked)
            or start <= ends.get(chain, -math.inf)
            or (request.agent is Agent.COMPACTION and start <= frontier.started)
            or (request.usage.cache_write_1h_tokens and chain in unsure)  # TTLs judged
        ):
            return None
    try:
        cells = summary_cells((r for r in requests if keep(r)), zone, part.cells)
    except ValueError:  # ends before a request summed already
        return None
    found = break_part(chains.ordered, prices, rules, lambda r: r.key in own and keep(r), chains)
    breaks = join_digests([part.breaks, digest(found.breaks)])
    return ScanPart(cells, breaks, chains.frontier())


def join(parts: Iterable[ScanPart]) -> tuple[Summary, BreakDigest]:
    """The summary and the breaks' digest of all parts together."""
    cells: dict[Cell, Totals] = {}
    digests: list[BreakDigest] = []
    for part in parts:
        cells.update(part.cells)  # units share no session, so no cell
        digests.append(part.breaks)
    return summary_of_cells(cells), join_digests(digests)
