"""Provides the cache-break analysis: every request that re-paid for a prefix it had cached.

Why from usage alone: it must work on every log, and most logs (Claude Code, Codex) hold no
prompt. Within a chain (a session's agent, following the call each request continues), a
request should read at least what its predecessor read and wrote: the prefix they share. When
its reads drop below that by more than a tolerance, the tokens it wrote again were rebuilt, at
the write price instead of the read price: that difference is the break's price. Each break
gets one cause, in the precedence of docs/prompt-caching.md §5.5: what changed the prefix
first, then what let it expire.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo

from sniff.model import Agent, Request
from sniff.pricing import PriceBook

TOLERANCE_TOKENS = 256
TOLERANCE_SHARE = 0.02
"""A drop within max(256 tokens, 2 % of the shared prefix) is the uncached tail, not a break."""
SHRINK_SHARE = 0.5
"""A chain whose prompt falls below half its previous size was compacted (or cleared)."""
TTL_5M, TTL_1H = 300.0, 3600.0
IDLE_TTL = 600.0
"""OpenAI's automatic cache lives 5 to 10 minutes idle (the bundled `openai` policy)."""

CAUSES = (
    "cold_start",
    "model_switch",
    "compaction",
    "version_change",
    "prefix_changed",
    "below_minimum",
    "ttl_expired",
    "resume",
    "unexplained",
)
"""Every cause, in precedence order."""
GAP_BUCKETS = (60.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, float("inf"))
GAP_LABELS = ("< 1m", "1–5m", "5–10m", "10–30m", "30–60m", "1–2h", "> 2h")


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

    @property
    def fault(self) -> bool:
        """A cold start is expected; every other cause cost money that could have been saved."""
        return self.cause != "cold_start"


@dataclass(frozen=True, slots=True)
class Tolerated:
    """A request whose reads dropped, but within the tolerance for the uncached tail."""

    request: Request
    drop: int
    tolerance: int


@dataclass(slots=True)
class CauseTotals:
    """Breaks of one cause (or project, or week)."""

    key: str
    breaks: int = 0
    rebuilt_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, found: Break) -> None:
        """Count a break in."""
        self.breaks += 1
        self.rebuilt_tokens += found.rebuilt_tokens
        self.cost_usd += found.cost_usd or 0.0


@dataclass(frozen=True, slots=True)
class GapBucket:
    """Idle gaps before requests, of one range of lengths."""

    label: str
    upper_seconds: float
    requests: int
    breaks: int
    cost_usd: float


@dataclass(frozen=True, slots=True)
class TtlAdvice:
    """What a 1-hour TTL would have changed, from the observed gaps."""

    extra_write_cost_usd: float
    """5-minute writes paid again at the 1-hour price."""
    avoided_rebuild_cost_usd: float
    """Breaks of expired 5-minute entries with a gap under an hour, no longer paid."""
    avoided_breaks: int
    net_saving_usd: float
    recommend_1h: bool


@dataclass(frozen=True, slots=True)
class BreakReport:
    """`sniff cache --breaks`."""

    breaks: list[Break]
    """Every break, cold starts included, dearest first."""
    tolerated: list[Tolerated]
    by_cause: list[CauseTotals]
    by_project: list[CauseTotals]
    by_week: list[CauseTotals]
    gaps: list[GapBucket]
    ttl_advice: TtlAdvice
    notes: list[str] = field(default_factory=list)

    @property
    def faults(self) -> list[Break]:
        """The breaks that were not cold starts."""
        return [found for found in self.breaks if found.fault]


def find_breaks(
    requests: Sequence[Request],
    prices: PriceBook,
    min_tokens: dict[str, int] | None = None,
    zone: tzinfo | None = None,
) -> BreakReport:
    """Every break among `requests`.

    Args:
        min_tokens: model → smallest cacheable prefix (for `below_minimum`).
        zone: the time zone weeks are counted in.
    """
    ordered = sorted((r for r in requests if r.error is None), key=_start)
    chains = _Chains(ordered)
    breaks: list[Break] = []
    tolerated: list[Tolerated] = []
    gaps: list[tuple[float, Break | None]] = []
    for request in ordered:
        previous = chains.previous(request)
        if previous is None:
            if _rewritten(request):
                breaks.append(_cold_start(request, prices))
            continue
        gap = _start(request) - _start(previous)
        verdict = _judge(request, previous, chains, prices, min_tokens or {}, gap)
        if isinstance(verdict, Break):
            breaks.append(verdict)
        elif isinstance(verdict, Tolerated):
            tolerated.append(verdict)
        gaps.append((gap, verdict if isinstance(verdict, Break) else None))
    breaks.sort(key=lambda found: -(found.cost_usd or 0.0))
    return BreakReport(
        breaks=breaks,
        tolerated=tolerated,
        by_cause=_group(breaks, lambda found: found.cause, CAUSES),
        by_project=_group(breaks, lambda found: found.request.project),
        by_week=_group(breaks, lambda found: _week(found.request, zone)),
        gaps=_gap_buckets(gaps),
        ttl_advice=_ttl_advice(ordered, breaks, prices, chains),
    )


class _Chains:
    """Who continues whom: the logged link where there is one, else the chain's previous request.

    A chain is a session's agent (its main conversation, or one subagent). The logged link
    (`Request.previous`) crosses files and sessions where a resumed session replays its history;
    without a link, the chain's previous request by time stands in.
    """

    def __init__(self, ordered: list[Request]) -> None:
        self.by_key = {request.key: request for request in ordered}
        self.before: dict[str, Request] = {}
        self.last: dict[tuple[str, str], Request] = {}
        self.one_hour: set[tuple[str, str]] = set()
        self.compactions: dict[str, list[float]] = {}
        for request in ordered:
            chain = (request.session_id, request.agent_id)
            earlier = self.last.get(chain)
            if earlier is not None:
                self.before[request.key] = earlier
            self.last[chain] = request
            if request.usage.cache_write_1h_tokens:
                self.one_hour.add(chain)
            if request.agent is Agent.COMPACTION:
                self.compactions.setdefault(request.session_id, []).append(_start(request))

    def previous(self, request: Request) -> Request | None:
        linked = self.by_key.get(request.previous or "")
        return linked if linked is not None else self.before.get(request.key)

    def linked(self, request: Request) -> bool:
        return request.previous is not None and request.previous in self.by_key

    def ttl(self, request: Request) -> float:
        """The TTL in force: 1 hour where the chain wrote 1-hour entries."""
        if not _reports_writes(request):
            return IDLE_TTL
        return TTL_1H if (request.session_id, request.agent_id) in self.one_hour else TTL_5M

    def compacted_between(self, request: Request, start: float, end: float) -> bool:
        return any(
            start <= moment <= end for moment in self.compactions.get(request.session_id, [])
        )


def _judge(
    request: Request,
    previous: Request,
    chains: _Chains,
    prices: PriceBook,
    min_tokens: dict[str, int],
    gap: float,
) -> Break | Tolerated | None:
    usage, before = request.usage, previous.usage
    shared, detail = _shared_prefix(request, previous)
    expected = min(shared, usage.prompt_tokens)
    read = usage.cache_read_tokens
    tolerance = max(TOLERANCE_TOKENS, round(TOLERANCE_SHARE * expected))
    drop = before.cache_read_tokens - read
    if read >= expected - tolerance or drop <= 0:
        return None
    if drop <= tolerance:
        return Tolerated(request, drop, tolerance)
    rebuilt = min(expected - read, _rewritten(request))
    if rebuilt <= 0:
        return None
    cause = _cause(request, previous, chains, min_tokens, gap, shared, detail)
    rebuilt_1h = min(rebuilt, usage.cache_write_1h_tokens)
    return Break(
        request,
        previous,
        cause,
        gap,
        expected,
        rebuilt,
        rebuilt_1h,
        _price(prices, request, rebuilt - rebuilt_1h, rebuilt_1h),
        detail,
    )


def _cause(
    request: Request,
    previous: Request,
    chains: _Chains,
    min_tokens: dict[str, int],
    gap: float,
    shared: int,
    detail: str,
) -> str:
    if request.model != previous.model:
        return "model_switch"
    size, before = request.usage.prompt_tokens, previous.usage.prompt_tokens
    if size < SHRINK_SHARE * before or (
        not chains.linked(request)
        and chains.compacted_between(request, _start(previous), _start(request))
    ):
        return "compaction"
    if request.version and previous.version and request.version != previous.version:
        return "version_change"
    if detail or size < shared:
        return "prefix_changed"
    if size < min_tokens.get(request.model, 0):
        return "below_minimum"
    if gap > chains.ttl(request):
        return "ttl_expired"
    if request.session_id != previous.session_id or request.file != previous.file:
        return "resume"
    return "unexplained"


def _rewritten(request: Request) -> int:
    """Prompt tokens the request paid more for than a read: its writes, or, where the provider
    does not report writes (caching is automatic), its uncached input."""
    usage = request.usage
    return usage.cache_write_tokens if _reports_writes(request) else usage.input_tokens


def _reports_writes(request: Request) -> bool:
    return request.provider != "openai"


def _cached_after(request: Request) -> int:
    """What a request left in the cache for the next one: what it read and wrote, or, where
    caching is automatic, its whole prompt in 128-token steps from 1,024 tokens on."""
    usage = request.usage
    if _reports_writes(request):
        return usage.cache_read_tokens + usage.cache_write_tokens
    whole = usage.prompt_tokens
    return whole // 128 * 128 if whole >= 1024 else 0


def _shared_prefix(request: Request, previous: Request) -> tuple[int, str]:
    """What the two prompts share, in the request's tokens, and where they part if known.

    With prompts (request logs), the blocks they share; without, all the predecessor cached,
    since a conversation only ever appends.
    """
    cached_before = _cached_after(previous)
    if not request.blocks or not previous.blocks:
        return cached_before, ""
    common = 0
    for mine, theirs in zip(request.blocks, previous.blocks, strict=False):
        if mine.content_hash != theirs.content_hash:
            break
        common += 1
    counted = sum(block.tokens for block in request.blocks) or 1
    shared = round(
        sum(b.tokens for b in request.blocks[:common]) * request.usage.prompt_tokens / counted
    )
    if common >= len(previous.blocks):
        return max(shared, cached_before), ""
    block = request.blocks[common] if common < len(request.blocks) else previous.blocks[common]
    shared = min(shared, cached_before)
    return shared, f"block {common + 1} changed: {block.kind} ({block.role})"


def _cold_start(request: Request, prices: PriceBook) -> Break:
    usage = request.usage
    rebuilt = _rewritten(request)
    one_hour = usage.cache_write_1h_tokens
    return Break(
        request,
        None,
        "cold_start",
        None,
        0,
        rebuilt,
        one_hour,
        _price(prices, request, rebuilt - one_hour, one_hour),
    )


def _price(prices: PriceBook, request: Request, five_minute: int, one_hour: int) -> float | None:
    """What the rebuilt tokens cost more than reads would have."""
    rates = prices.rates(request.model, request.when, request.usage.prompt_tokens)
    if rates is None:
        return None
    if not _reports_writes(request):  # rebuilt at the input price
        return (five_minute + one_hour) * (rates.input - rates.cache_read)
    return five_minute * (rates.cache_write_5m - rates.cache_read) + one_hour * (
        rates.cache_write_1h - rates.cache_read
    )


def _start(request: Request) -> float:
    return (request.started_at or request.first_token_at or request.ended_at).timestamp()


def _group(breaks: list[Break], key: object, order: Sequence[str] = ()) -> list[CauseTotals]:
    assert callable(key)
    groups: dict[str, CauseTotals] = {name: CauseTotals(name) for name in order}
    for found in breaks:
        name = str(key(found))
        groups.setdefault(name, CauseTotals(name)).add(found)
    rows = [row for row in groups.values() if row.breaks]
    return sorted(rows, key=lambda row: -row.cost_usd) if not order else rows


def _week(request: Request, zone: tzinfo | None) -> str:
    moment: datetime = request.when.astimezone(zone) if zone else request.when
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def _gap_buckets(gaps: list[tuple[float, Break | None]]) -> list[GapBucket]:
    counts = [[0, 0, 0.0] for _ in GAP_BUCKETS]
    for gap, found in gaps:
        index = next(i for i, upper in enumerate(GAP_BUCKETS) if gap < upper)
        counts[index][0] += 1
        if found is not None and found.fault:
            counts[index][1] += 1
            counts[index][2] += found.cost_usd or 0.0
    return [
        GapBucket(label, upper, int(requests), int(broken), float(cost))
        for label, upper, (requests, broken, cost) in zip(
            GAP_LABELS, GAP_BUCKETS, counts, strict=True
        )
    ]


def _ttl_advice(
    ordered: list[Request], breaks: list[Break], prices: PriceBook, chains: _Chains
) -> TtlAdvice:
    """A 1-hour TTL: every 5-minute write costs the 1-hour price, and every break of an entry
    that expired after 5 minutes but less than an hour becomes a read."""
    extra = 0.0
    for request in ordered:
        written = request.usage.cache_write_5m_tokens
        if written:
            rates = prices.rates(request.model, request.when, request.usage.prompt_tokens)
            if rates is not None:
                extra += written * (rates.cache_write_1h - rates.cache_write_5m)
    avoided = [
        found
        for found in breaks
        if found.cause == "ttl_expired"
        and found.gap_seconds is not None
        and found.gap_seconds <= TTL_1H
        and chains.ttl(found.request) == TTL_5M
    ]
    saved = sum(found.cost_usd or 0.0 for found in avoided)
    return TtlAdvice(extra, saved, len(avoided), saved - extra, saved > extra)
