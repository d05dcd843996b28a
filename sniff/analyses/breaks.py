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

from collections.abc import Callable, Sequence
from datetime import tzinfo
from typing import Any

from sniff.analyses.break_report import (
    CAUSES,
    GAP_BUCKETS,
    Break,
    BreakPart,
    BreakReport,
    CauseTotals,
    Tolerated,
    break_report,
    dearest_first,
    gap_bucket,
    start_of,
)
from sniff.analyses.ttl_advice import ttl_part
from sniff.model import Agent, Request
from sniff.pricing import PriceBook

__all__ = [
    "CAUSES",
    "Break",
    "BreakPart",
    "BreakReport",
    "CauseTotals",
    "Tolerated",
    "break_part",
    "break_report",
    "chain_links",
    "dearest_first",
    "find_breaks",
    "policy_minimum",
]

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


def break_part(
    requests: Sequence[Request],
    prices: PriceBook,
    minimum: Callable[[Request], int] | None = None,
    keep: Callable[[Request], bool] | None = None,
) -> BreakPart:
    """The breaks among `requests` (see `find_breaks`), as a part to join."""
    minimum = minimum or policy_minimum()
    chains = _Chains.of(requests)
    starts = chains.starts
    ordered = chains.ordered if keep is None else [r for r in chains.ordered if keep(r)]
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
        gap_requests[gap_bucket(gap)] += 1
        if request.usage.cache_read_tokens > previous.usage.cache_read_tokens:
            continue  # reads grew: never a break
        verdict = _judge(request, previous, chains, prices, minimum, gap)
        if isinstance(verdict, Break):
            breaks.append(verdict)
        elif isinstance(verdict, Tolerated):
            tolerated.append(verdict)
    breaks.sort(key=dearest_first)
    ttl = ttl_part(ordered, breaks, lambda found: chains.ttl(found.request, found.previous), prices)
    return BreakPart(breaks, tolerated, gap_requests, ttl)


def chain_links(requests: Sequence[Request]) -> dict[str, tuple[Request, float, float]]:
    """Each request's predecessor in its chain, how long the cache it left was kept (TTL), and
    the gap between their starts (seconds).

    The same links and gaps `find_breaks` follows; a browser uses them to show what changed
    since the previous request and which idle gaps outlived the cache.
    """
    chains = _Chains.of(requests)
    links: dict[str, tuple[Request, float, float]] = {}
    for request in chains.ordered:
        previous = chains.previous(request)
        if previous is not None:
            gap = chains.starts[request.key] - chains.starts[previous.key]
            links[request.key] = (previous, chains.ttl(request, previous), gap)
    return links


class _Chains:
    """Who continues whom: the logged link where there is one, else the chain's previous request.

    A chain is a session's agent (its main conversation, or one subagent). The logged link
    (`Request.previous`) crosses files and sessions where a resumed session replays its history;
    without a link, the chain's previous request by time stands in.
    """

    @classmethod
    def of(cls, requests: Sequence[Request]) -> _Chains:
        """The chains of the requests that got a response, ordered by when they started."""
        timed = sorted(
            ((start_of(request), request) for request in requests if request.error is None),
            key=lambda pair: pair[0],
        )
        return cls([request for _, request in timed], {r.key: start for start, r in timed})

    def __init__(self, ordered: list[Request], starts: dict[str, float]) -> None:
        self.ordered = ordered
        """The requests by start."""
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
