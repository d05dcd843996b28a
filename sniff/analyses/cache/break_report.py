"""Provides what the cache-break analysis reports, and joining the reports of separate logs.

Why apart from the detection (`analyses.cache.breaks`): a report is built from parts, one per set of
requests that share no chain (`BreakPart`), so that a run over units of logs (kept parts, a
cluster's workers) gives exactly the report of all requests at once. The sums here run in a
fixed order (dearest first, keys sorted) for the same reason.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, tzinfo

from sniff.analyses.cache.chains import start_of
from sniff.analyses.cache.provider_word import PROVIDER_CAUSES, Agreement, Tally, agreement
from sniff.analyses.cache.ttl_advice import TtlAdvice, TtlPart, advise, join
from sniff.first_hand import CacheDiagnosis
from sniff.model import Request
from sniff.pricing import PriceBook

CAUSES = (
    "cold_start",
    "model_switch",
    "compaction",
    "version_change",
    "below_minimum",
    "thinking_dropped",
    *PROVIDER_CAUSES,
    "prefix_changed",
    "ttl_expired",
    "resume",
    "unexplained",
)
"""Every cause, in precedence order (the causes only a provider names before sniff's
`prefix_changed`, which they make precise)."""
EXPECTED = frozenset({"cold_start", "compaction", "thinking_dropped"})
"""Causes that are how caching works, not faults: a chain's first write, a compaction's, and the
thinking blocks a model drops at a new user turn."""


GAP_BUCKETS = (60.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, float("inf"))


GAP_LABELS = ("≤ 1m", "1–5m", "5–10m", "10–30m", "30–60m", "1–2h", "> 2h")
FIRST_LABEL = "first"
"""The gaps row of requests that follow none (the first of their chain)."""


@dataclass(frozen=True, slots=True)
class Break:
    """A request that rebuilt cached prefix it should have read."""

    request: Request
    previous: Request | None
    """The request of its chain before it (None for a cold start)."""
    cause: str
    gap_seconds: float | None
    """From the previous request's start to this one's."""
    expected_read: int
    """The prefix it shared with its predecessor: what it should have read."""
    rebuilt_tokens: int
    rebuilt_1h_tokens: int
    """The part of the rebuild written with the 1-hour TTL."""
    cost_usd: float | None
    """rebuilt × (write price − read price), None for an unpriced model."""
    detail: str = ""
    """What changed, where the log tells (the first block that differs)."""
    said: CacheDiagnosis | None = None
    """What the provider said of the request's cache, where the log keeps it."""
    inferred: str | None = None
    """sniff's own cause where the provider's replaced it (`provider_word.NO_BREAK` where
    sniff found no break the provider reported); None where the cause is sniff's."""

    @property
    def fault(self) -> bool:
        """Whether the money could have been saved: every cause but the EXPECTED ones."""
        return self.cause not in EXPECTED


@dataclass(frozen=True, slots=True)
class Tolerated:
    """A request whose reads dropped, but within the tolerance for the uncached tail."""

    request: Request
    drop: int
    tolerance: int


@dataclass(slots=True)
class CauseTotals:
    """Breaks of one cause (or project, or week, or gap): faults and expected ones apart."""

    key: str
    faults: int = 0
    fault_rebuilt_tokens: int = 0
    fault_cost_usd: float = 0.0
    expected: int = 0
    expected_rebuilt_tokens: int = 0
    expected_cost_usd: float = 0.0

    def add(self, found: Break) -> None:
        """Count a break in."""
        if found.fault:
            self.faults += 1
            self.fault_rebuilt_tokens += found.rebuilt_tokens
            self.fault_cost_usd += found.cost_usd or 0.0
        else:
            self.expected += 1
            self.expected_rebuilt_tokens += found.rebuilt_tokens
            self.expected_cost_usd += found.cost_usd or 0.0

    @property
    def breaks(self) -> int:
        """Faults and expected breaks."""
        return self.faults + self.expected

    @property
    def rebuilt_tokens(self) -> int:
        """What all its breaks wrote again."""
        return self.fault_rebuilt_tokens + self.expected_rebuilt_tokens

    @property
    def cost_usd(self) -> float:
        """What all its breaks cost more than reads would have."""
        return self.fault_cost_usd + self.expected_cost_usd


@dataclass(frozen=True, slots=True)
class GapBucket:
    """Idle gaps before requests, of one range of lengths (or none: the first of a chain)."""

    label: str
    upper_seconds: float | None
    """None for the first requests of their chains, which follow no gap."""
    requests: int
    breaks: CauseTotals


@dataclass(frozen=True, slots=True)
class BreakReport:
    """`sniff cache --breaks`.

    Every table counts every break, faults and expected ones apart in its columns, so each sums
    to `totals`.
    """

    breaks: list[Break]
    """Every break, expected ones included, dearest first."""
    tolerated: list[Tolerated]
    totals: CauseTotals
    """All breaks."""
    by_cause: list[CauseTotals]
    by_project: list[CauseTotals]
    by_week: list[CauseTotals]
    gaps: list[GapBucket]
    ttl_advice: TtlAdvice
    notes: list[str] = field(default_factory=list)
    agreement: list[Agreement] = field(default_factory=list)
    """Requests the provider diagnosed: its verdict beside sniff's, counted."""

    @property
    def faults(self) -> list[Break]:
        """The breaks that were faults."""
        return [found for found in self.breaks if found.fault]

    def expected_count(self, cause: str) -> int:
        """How many expected breaks had this cause."""
        return sum(row.expected for row in self.by_cause if row.key == cause)

    @property
    def fault_cost_usd(self) -> float:
        """What the faults cost more than reads would have (unpriced ones count 0).

        Summed in the order of `breaks` (dearest first), which is the same however the breaks
        were found; `scan_parts.BreakDigest.cost_usd` sums the same costs exactly instead.
        """
        return sum(found.cost_usd or 0.0 for found in self.faults)


@dataclass(frozen=True, slots=True)
class BreakPart:
    """The breaks of one set of requests closed under chains (a unit of logs), joinable.

    Parts of sets that share no chain join (`break_report`) into exactly the report of all
    their requests together.
    """

    breaks: list[Break]
    """Dearest first."""
    tolerated: list[Tolerated]
    gap_requests: list[int]
    """Requests whose gap since their predecessor falls in each of GAP_BUCKETS."""
    ttl: TtlPart
    """What the part brings to the longer-TTL advice."""
    first_requests: int = 0
    """Requests that follow none: the first of their chains."""
    agreement: Tally = field(default_factory=dict)
    """The requests the provider diagnosed, by sniff's verdict and the provider's."""


def break_report(
    parts: Sequence[BreakPart], prices: PriceBook, zone: tzinfo | None = None
) -> BreakReport:
    """The report of all parts' requests together (their sets must share no chain)."""
    breaks = list(heapq.merge(*(part.breaks for part in parts), key=dearest_first))
    tolerated = sorted(
        (found for part in parts for found in part.tolerated),
        key=lambda found: (start_of(found.request), found.request.key),
    )
    gap_requests = [sum(part.gap_requests[i] for part in parts) for i in range(len(GAP_BUCKETS))]
    chain_starts = sum(part.first_requests for part in parts)
    return BreakReport(
        breaks=breaks,
        tolerated=tolerated,
        totals=_group(breaks, lambda _: "all", ("all",))[0],
        by_cause=_group(breaks, lambda found: found.cause, CAUSES),
        by_project=_group(breaks, lambda found: found.request.project),
        by_week=sorted(
            _group(breaks, lambda found: _week_of(found.request, zone)),
            key=lambda row: row.key,
            reverse=True,
        ),
        gaps=_gap_buckets(chain_starts, gap_requests, breaks),
        ttl_advice=advise(join([part.ttl for part in parts]), prices),
        agreement=agreement(part.agreement for part in parts),
    )


def dearest_first(found: Break) -> tuple[float, float, str]:
    """Sort key of breaks: dearest first, then earliest; the same however they were found."""
    return (-(found.cost_usd or 0.0), start_of(found.request), found.request.key)


def _group(
    breaks: list[Break], key: Callable[[Break], str], order: Sequence[str] = ()
) -> list[CauseTotals]:
    """Breaks grouped by `key`: the groups of `order` in its order (all kept when it is
    `("all",)`), else the groups that had breaks, dearest first."""
    groups: dict[str, CauseTotals] = {name: CauseTotals(name) for name in order}
    for found in breaks:  # dearest first: sums come out the same however parts were joined
        name = key(found)
        groups.setdefault(name, CauseTotals(name)).add(found)
    if order == ("all",):
        return list(groups.values())
    rows = [row for row in groups.values() if row.breaks]
    return sorted(rows, key=lambda row: -row.cost_usd) if not order else rows


def _week_of(request: Request, zone: tzinfo | None) -> str:
    return iso_week(request.when.astimezone(zone) if zone else request.when)


def iso_week(day: date) -> str:
    """The ISO week `day` (or a moment) falls in: `2026-W07`."""
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def gap_bucket(gap: float) -> int:
    # a bucket includes its upper bound: 300 s is not past a 5-minute TTL
    return min(bisect.bisect_left(GAP_BUCKETS, gap), len(GAP_BUCKETS) - 1)


def _gap_buckets(first: int, requests: list[int], breaks: list[Break]) -> list[GapBucket]:
    """The first requests of chains, then the others by the gap since their predecessor."""
    firsts = CauseTotals(FIRST_LABEL)
    rows = [CauseTotals(label) for label in GAP_LABELS]
    for found in breaks:  # dearest first: sums come out the same however parts were joined
        if found.gap_seconds is None or found.previous is None:
            firsts.add(found)
        else:
            rows[gap_bucket(found.gap_seconds)].add(found)
    return [GapBucket(FIRST_LABEL, None, first, firsts)] + [
        GapBucket(label, upper, count, row)
        for label, upper, count, row in zip(GAP_LABELS, GAP_BUCKETS, requests, rows, strict=True)
    ]
