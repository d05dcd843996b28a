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

import bisect
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from typing import Any

from sniff.model import Agent, Request
from sniff.pricing import PriceBook

TOLERANCE_TOKENS = 256
TOLERANCE_SHARE = 0.02
"""A drop within max(256 tokens, 2 % of the shared prefix) is the uncached tail, not a break."""
ESTIMATE_SHARE = 0.2
"""Where the shared prefix is counted by a tokenizer (logged prompts), 20 %: its error."""
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
    "below_minimum",
    "prefix_changed",
    "ttl_expired",
    "resume",
    "unexplained",
)
"""Every cause, in precedence order."""
GAP_BUCKETS = (60.0, 300.0, 600.0, 1800.0, 3600.0, 7200.0, float("inf"))
GAP_LABELS = ("≤ 1m", "1–5m", "5–10m", "10–30m", "30–60m", "1–2h", "> 2h")


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
    minimum: Callable[[Request], int] | None = None,
    zone: tzinfo | None = None,
    keep: Callable[[Request], bool] | None = None,
) -> BreakReport:
    """Every break among `requests`.

    Args:
        minimum: a request's smallest cacheable prefix (default: its provider's policy).
        zone: the time zone weeks are counted in.
        keep: which requests the report covers; chains are followed through all of them.
    """
    return break_report([break_part(requests, prices, minimum, keep)], prices, zone)


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
    written_5m: dict[tuple[str, date], tuple[int, Request]]
    """5-minute write tokens per model and day, with the day's first such request."""
    avoided: list[Break]
    """Breaks a 1-hour TTL would have spared (expired 5-minute entries, gaps under an hour)."""


def break_part(
    requests: Sequence[Request],
    prices: PriceBook,
    minimum: Callable[[Request], int] | None = None,
    keep: Callable[[Request], bool] | None = None,
) -> BreakPart:
    """The breaks among `requests` (see `find_breaks`), as a part to join."""
    minimum = minimum or policy_minimum()
    timed = sorted(
        ((_start(request), request) for request in requests if request.error is None),
        key=lambda pair: pair[0],
    )
    everything = [request for _, request in timed]
    starts = {request.key: start for start, request in timed}
    chains = _Chains(everything, starts)
    ordered = everything if keep is None else [r for r in everything if keep(r)]
    breaks: list[Break] = []
    tolerated: list[Tolerated] = []
    gap_requests = [0] * len(GAP_BUCKETS)
    for request in ordered:
        previous = chains.previous(request)
        if previous is None:
            if _rewritten(request):
                breaks.append(_cold_start(request, prices))
            continue
        gap = starts[request.key] - starts[previous.key]
        gap_requests[_bucket(gap)] += 1
        if request.usage.cache_read_tokens > previous.usage.cache_read_tokens:
            continue  # reads grew: never a break
        verdict = _judge(request, previous, chains, prices, minimum, gap)
        if isinstance(verdict, Break):
            breaks.append(verdict)
        elif isinstance(verdict, Tolerated):
            tolerated.append(verdict)
    breaks.sort(key=dearest_first)
    avoided = [
        found
        for found in breaks
        if found.cause == "ttl_expired"
        and found.gap_seconds is not None
        and found.gap_seconds <= TTL_1H
        and chains.ttl(found.request, found.previous) == TTL_5M
    ]
    return BreakPart(breaks, tolerated, gap_requests, _written_5m(ordered), avoided)


def break_report(
    parts: Sequence[BreakPart], prices: PriceBook, zone: tzinfo | None = None
) -> BreakReport:
    """The report of all parts' requests together (their sets must share no chain)."""
    breaks = list(heapq.merge(*(part.breaks for part in parts), key=dearest_first))
    tolerated = sorted(
        (found for part in parts for found in part.tolerated),
        key=lambda found: (_start(found.request), found.request.key),
    )
    written: dict[tuple[str, date], tuple[int, Request]] = {}
    for part in parts:
        for key, (tokens, first) in part.written_5m.items():
            total, earliest = written.get(key, (0, first))
            written[key] = (total + tokens, min(earliest, first, key=_order))
    avoided = list(heapq.merge(*(part.avoided for part in parts), key=dearest_first))
    gap_requests = [sum(part.gap_requests[i] for part in parts) for i in range(len(GAP_BUCKETS))]
    faults = [found for found in breaks if found.fault]
    return BreakReport(
        breaks=breaks,
        tolerated=tolerated,
        by_cause=_group(breaks, lambda found: found.cause, CAUSES),
        by_project=_group(faults, lambda found: found.request.project),
        by_week=sorted(
            _group(faults, lambda found: _week(found.request, zone)),
            key=lambda row: row.key,
            reverse=True,
        ),
        gaps=_gap_buckets(gap_requests, faults),
        ttl_advice=_ttl_advice(written, avoided, prices),
    )


def dearest_first(found: Break) -> tuple[float, float, str]:
    """Sort key of breaks: dearest first, then earliest; the same however they were found."""
    return (-(found.cost_usd or 0.0), _start(found.request), found.request.key)


def chain_links(requests: Sequence[Request]) -> dict[str, tuple[Request, float]]:
    """Each request's predecessor in its chain, and how long the cache it left was kept (TTL).

    The same links `find_breaks` follows; a browser uses them to show what changed since the
    previous request and which idle gaps outlived the cache.
    """
    timed = sorted(
        ((_start(request), request) for request in requests if request.error is None),
        key=lambda pair: pair[0],
    )
    chains = _Chains([request for _, request in timed], {r.key: start for start, r in timed})
    links: dict[str, tuple[Request, float]] = {}
    for _, request in timed:
        previous = chains.previous(request)
        if previous is not None:
            links[request.key] = (previous, chains.ttl(request, previous))
    return links


class _Chains:
    """Who continues whom: the logged link where there is one, else the chain's previous request.

    A chain is a session's agent (its main conversation, or one subagent). The logged link
    (`Request.previous`) crosses files and sessions where a resumed session replays its history;
    without a link, the chain's previous request by time stands in.
    """

    def __init__(self, ordered: list[Request], starts: dict[str, float]) -> None:
        self.starts = starts
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
                self.compactions.setdefault(request.session_id, []).append(starts[request.key])

    def previous(self, request: Request) -> Request | None:
        linked = self.by_key.get(request.previous or "")
        return linked if linked is not None else self.before.get(request.key)

    def linked(self, request: Request) -> bool:
        return request.previous is not None and request.previous in self.by_key

    def ttl(self, request: Request, previous: Request | None = None) -> float:
        """The TTL in force for what the predecessor left: 5 minutes if it wrote any 5-minute
        entries (the moving tail expires first), 1 hour if it wrote only 1-hour ones, else
        what the chain used."""
        if not _reports_writes(request):
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


def _judge(
    request: Request,
    previous: Request,
    chains: _Chains,
    prices: PriceBook,
    minimum: Callable[[Request], int],
    gap: float,
) -> Break | Tolerated | None:
    usage, before = request.usage, previous.usage
    shared, detail = _shared_prefix(request, previous)
    expected = min(shared, usage.prompt_tokens)
    read = usage.cache_read_tokens
    # a prefix measured in counted (not reported) tokens is an estimate: allow for its error
    share = ESTIMATE_SHARE if detail else TOLERANCE_SHARE
    tolerance = max(TOLERANCE_TOKENS, round(share * expected))
    missing = expected - read
    if missing <= 0 or read > before.cache_read_tokens:
        return None  # read all it should have, or more than before: never a break
    if missing <= tolerance:
        return Tolerated(request, missing, tolerance) if read < before.cache_read_tokens else None
    written = min(missing, _rewritten(request))
    # what was neither read nor written again was paid as uncached input (nothing cacheable)
    as_input = min(missing - written, usage.input_tokens) if _reports_writes(request) else 0
    rebuilt = written + as_input
    if rebuilt <= 0:
        return None
    cause = _cause(request, previous, chains, minimum, gap, shared, detail)
    rebuilt_1h = min(written, usage.cache_write_1h_tokens)
    return Break(
        request,
        previous,
        cause,
        gap,
        expected,
        rebuilt,
        rebuilt_1h,
        _price(prices, request, written - rebuilt_1h, rebuilt_1h, as_input),
        detail,
    )


def _cause(
    request: Request,
    previous: Request,
    chains: _Chains,
    minimum: Callable[[Request], int],
    gap: float,
    shared: int,
    detail: str,
) -> str:
    if request.model != previous.model:
        return "model_switch"
    size, before = request.usage.prompt_tokens, previous.usage.prompt_tokens
    if size < SHRINK_SHARE * before or (
        not chains.linked(request)
        and chains.compacted_between(
            request, chains.starts[previous.key], chains.starts[request.key]
        )
    ):
        return "compaction"
    if request.version and previous.version and request.version != previous.version:
        return "version_change"
    if size < minimum(request) and not request.usage.cache_write_tokens:
        return "below_minimum"
    if detail or size < shared:
        return "prefix_changed"
    if gap > chains.ttl(request, previous):
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
    """The prefix the request shares with its predecessor, in its own tokens, and what changed.

    Without prompts, a conversation only ever appends: it shares all its predecessor cached.
    With prompts (request logs), it shares the blocks up to the first one that differs (named),
    and at most what the predecessor cached.
    """
    cached_before = _cached_after(previous)
    if not request.blocks or not previous.blocks:
        return cached_before, ""
    common = 0
    for mine, theirs in zip(request.blocks, previous.blocks, strict=False):
        if mine.content_hash != theirs.content_hash:
            break
        common += 1
    if common >= len(previous.blocks):
        return cached_before, ""
    counted = sum(block.tokens for block in request.blocks) or 1
    shared_tokens = sum(block.tokens for block in request.blocks[:common])
    shared = min(round(shared_tokens * request.usage.prompt_tokens / counted), cached_before)
    if common < len(request.blocks):
        block = request.blocks[common]
        return shared, f"block {common + 1} changed: {block.kind} ({block.role})"
    return shared, f"blocks {common + 1}+ removed"


def policy_minimum() -> Callable[[Request], int]:
    """The smallest cacheable prefix of a request under its provider's bundled policy.

    The policies are loaded on the first question: most runs over an index never ask.
    """
    found: dict[tuple[str, str, object], int] = {}
    loaded: list[dict[str, Any]] = []

    def minimum(request: Request) -> int:
        name = "openai" if request.provider == "openai" else "anthropic"
        key = (name, request.model, request.when.date())
        if key not in found:
            if not loaded:
                from sniff.engine.policies import load_policies

                loaded.append(load_policies())
            found[key] = loaded[0][name].min_tokens_for(request.model, request.when.date())
        return found[key]

    return minimum


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


def _price(
    prices: PriceBook, request: Request, five_minute: int, one_hour: int, as_input: int = 0
) -> float | None:
    """What the rebuilt tokens cost more than reads would have."""
    rates = prices.rates(request.model, request.when, request.usage.prompt_tokens)
    if rates is None:
        return None
    if not _reports_writes(request):  # rebuilt at the input price
        return (five_minute + one_hour + as_input) * (rates.input - rates.cache_read)
    return (
        five_minute * (rates.cache_write_5m - rates.cache_read)
        + one_hour * (rates.cache_write_1h - rates.cache_read)
        + as_input * (rates.input - rates.cache_read)
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


def _bucket(gap: float) -> int:
    # a bucket includes its upper bound: 300 s is not past a 5-minute TTL
    return min(bisect.bisect_left(GAP_BUCKETS, gap), len(GAP_BUCKETS) - 1)


def _gap_buckets(requests: list[int], faults: list[Break]) -> list[GapBucket]:
    broken = [0] * len(GAP_BUCKETS)
    cost = [0.0] * len(GAP_BUCKETS)
    for found in faults:  # dearest first: sums come out the same however parts were joined
        if found.gap_seconds is not None and found.previous is not None:
            index = _bucket(found.gap_seconds)
            broken[index] += 1
            cost[index] += found.cost_usd or 0.0
    return [
        GapBucket(label, upper, count, broken[index], cost[index])
        for index, (label, upper, count) in enumerate(
            zip(GAP_LABELS, GAP_BUCKETS, requests, strict=True)
        )
    ]


def _written_5m(ordered: list[Request]) -> dict[tuple[str, date], tuple[int, Request]]:
    written: dict[tuple[str, date], tuple[int, Request]] = {}
    for request in ordered:  # 5-minute writes per model and day: one price lookup each
        tokens = request.usage.cache_write_5m_tokens
        if tokens:
            key = (request.model, request.when.date())
            total, first = written.get(key, (0, request))
            written[key] = (total + tokens, first)
    return written


def _order(request: Request) -> tuple[float, str]:
    return (_start(request), request.key)


def _ttl_advice(
    written: dict[tuple[str, date], tuple[int, Request]], avoided: list[Break], prices: PriceBook
) -> TtlAdvice:
    """A 1-hour TTL: every 5-minute write costs the 1-hour price, and every break of an entry
    that expired after 5 minutes but less than an hour becomes a read."""
    extra = 0.0
    for key in sorted(written):
        tokens, request = written[key]
        rates = prices.rates(request.model, request.when)
        if rates is not None:
            extra += tokens * (rates.cache_write_1h - rates.cache_write_5m)
    saved = sum(found.cost_usd or 0.0 for found in avoided)
    for found in avoided:  # their rewrites would not happen, at either price
        rewritten = found.rebuilt_tokens - found.rebuilt_1h_tokens
        rates = prices.rates(found.request.model, found.request.when)
        if rates is not None:
            extra -= rewritten * (rates.cache_write_1h - rates.cache_write_5m)
    return TtlAdvice(extra, saved, len(avoided), saved - extra, saved > extra)
