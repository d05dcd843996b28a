"""Provides `ScanPart`: what `sniff scan` reports of one unit of logs, and joining units.

Why: files whose calls never meet (no shared session, no shared call, no call continuing
another's) can be analysed apart and the answers joined, exactly. A run that finds most units
unchanged since the last one reuses their parts and analyses only the rest; a cluster could
analyse units where they are stored and send back only parts.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import tzinfo

from sniff.analyses.breaks import Break, break_part, dearest_first
from sniff.analyses.summary import Cell, Summary, Totals, summary_cells, summary_of_cells
from sniff.model import Request
from sniff.pricing import PriceBook


@dataclass(frozen=True, slots=True)
class ScanPart:
    """One unit's share of a scan: its summary cells and its breaks, dearest first."""

    cells: dict[Cell, Totals]
    breaks: list[Break]


def scan_part(
    requests: Sequence[Request],
    prices: PriceBook,
    zone: tzinfo,
    keep: Callable[[Request], bool],
    minimum: Callable[[Request], int],
) -> ScanPart:
    """The part of one unit's requests (all of them: chains are followed through every one)."""
    cells = summary_cells((request for request in requests if keep(request)), zone)
    return ScanPart(cells, break_part(requests, prices, minimum, keep).breaks)


def join(parts: Iterable[ScanPart]) -> tuple[Summary, list[Break]]:
    """The summary and the breaks (dearest first) of all parts together."""
    cells: dict[Cell, Totals] = {}
    breaks: list[list[Break]] = []
    for part in parts:
        cells.update(part.cells)  # units share no session, so no cell
        breaks.append(part.breaks)
    return summary_of_cells(cells), list(heapq.merge(*breaks, key=dearest_first))
