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

from sniff.analyses.cache.appended import Refused, judge_appended, merge_order
from sniff.analyses.cache.breaks import Break, CacheRules, break_part, dearest_first
from sniff.analyses.cache.chains import Frontier
from sniff.analyses.cost.summary import Cell, Summary, Totals, summary_cells, summary_of_cells
from sniff.model import Request
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
        last = sorted((r for r in self.frontier.requests if r.key in opened), key=merge_order)
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
        if isinstance(part, ScanPart):
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
) -> ScanPart | Refused:
    """`part` with `requests` (what lines appended to its files yield, dated) added: the part
    of all of them; `Refused` when that needs more of its requests than it keeps.

    Args:
        linked: file → what tied its requests to others (`ingest.index.rows.links_of`).
    """
    frontier = part.frontier
    if frontier is None or part.open_breaks is None:
        return Refused("its part keeps no frontier (its chains did not allow one)")
    judged = judge_appended(frontier, requests, linked, prices, rules, keep)
    if isinstance(judged, Refused):
        return judged
    every, still = judged.every, judged.still
    cells = _copied(part.cells)
    try:
        summary_cells((r for r in every if r.key not in still and keep(r)), zone, cells)
        summary_cells((r for r in every if r.key in still and keep(r)), zone, _copied(cells))
    except ValueError:  # ends before a request summed already (or to be: `whole`)
        return Refused("a new request ends before one summed already")
    settled = digest([b for b in judged.breaks if b.request.key not in still])
    return ScanPart(
        cells,
        join_digests([part.breaks, settled]),
        judged.frontier(frontier),
        digest([b for b in judged.breaks if b.request.key in still]),
    )


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
