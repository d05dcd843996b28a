"""Provides the cache-break analysis: every request that re-paid for a prefix it had cached.

Why from usage alone: it must work on every log, and most logs (Claude Code, Codex) hold no
prompt. Within a chain (a session's agent, following the call each request continues), a
request should read at least what its predecessor read and wrote: the prefix they share. When
its reads drop below that by more than a tolerance, the tokens it wrote again were rebuilt, at
the write price instead of the read price: that difference is the break's price. Each break
gets one cause, in the precedence of docs/prompt-caching.md §5.5: what changed the prefix
first, then what let it expire, with the evidence the log holds for it (`Break.detail`).
Some breaks are no one's fault (`break_report.EXPECTED`): a chain's cold start, a compaction,
and thinking blocks a model drops at a new user turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import tzinfo
from typing import NamedTuple

from sniff.analyses.cache.break_causes import cause as cause_of
from sniff.analyses.cache.break_causes import shared_prefix
from sniff.analyses.cache.break_report import (
    CAUSES,
    EXPECTED,
    GAP_BUCKETS,
    Break,
    BreakPart,
    BreakReport,
    CauseTotals,
    Tolerated,
    break_report,
    dearest_first,
    gap_bucket,
)
from sniff.analyses.cache.break_rules import CacheRules
from sniff.analyses.cache.chains import Chains, reports_writes, rewritten
from sniff.analyses.cache.provider_word import NO_BREAK, Tally, provider_cause, tally
from sniff.analyses.cache.ttl_advice import ttl_part
from sniff.model import Agent, Request
from sniff.pricing import PriceBook

__all__ = [
    "CAUSES",
    "EXPECTED",
    "Break",
    "BreakPart",
    "BreakReport",
    "CacheRules",
    "CauseTotals",
    "Link",
    "Tolerated",
    "break_part",
    "break_report",
    "chain_links",
    "dearest_first",
    "find_breaks",
]

TOLERANCE_TOKENS = 256
TOLERANCE_SHARE = 0.02
"""A drop within max(256 tokens, 2 % of the shared prefix) is the uncached tail, not a break."""
ESTIMATE_SHARE = 0.2
"""Where the shared prefix is counted by a tokenizer (logged prompts), 20 %: its error."""


def find_breaks(
    requests: Sequence[Request],
    prices: PriceBook,
    rules: CacheRules | None = None,
    zone: tzinfo | None = None,
    keep: Callable[[Request], bool] | None = None,
) -> BreakReport:
    """Every break among `requests`.

    Args:
        rules: the providers' cache rules (default: the bundled policies).
        zone: the time zone weeks are counted in.
        keep: which requests the report covers; chains are followed through all of them.
    """
    return break_report([break_part(requests, prices, rules, keep)], prices, zone)


def break_part(
    requests: Sequence[Request],
    prices: PriceBook,
    rules: CacheRules | None = None,
    keep: Callable[[Request], bool] | None = None,
    chains: Chains | None = None,
    *,
    advise_ttl: bool = True,
) -> BreakPart:
    """The breaks among `requests` (see `find_breaks`), as a part to join.

    Args:
        chains: their chains, when the caller has them (`Chains.of(requests)` otherwise).
        advise_ttl: weigh what a longer TTL would change (False: the part's `ttl` is empty;
            scan's parts keep only the breaks, and the weighing costs a pass over prices).
    """
    rules = rules or CacheRules()
    chains = chains or Chains.of(requests)
    starts = chains.starts
    # a session's totals (Droid, Goose) are no call: nothing to judge a break by
    ordered = [r for r in chains.ordered if not r.rollup and (keep is None or keep(r))]
    breaks: list[Break] = []
    tolerated: list[Tolerated] = []
    gap_requests = [0] * len(GAP_BUCKETS)
    first_requests = 0
    said: Tally = {}
    for request in ordered:
        previous = chains.previous(request)
        gap = None if previous is None else starts[request.key] - starts[previous.key]
        verdict: Break | Tolerated | None
        if previous is None:
            first_requests += 1
            verdict = _chain_start(request, prices) if rewritten(request) else None
        else:
            gap_requests[gap_bucket(gap or 0.0)] += 1
            verdict = _judge(request, previous, chains, prices, rules, gap or 0.0)
        if isinstance(verdict, Tolerated):
            tolerated.append(verdict)
            verdict = None
        if request.cache_diagnosis is not None:  # the provider's word, where it gave one
            tally(said, verdict.cause if verdict else NO_BREAK, request.cache_diagnosis)
            verdict = told(verdict, request, previous, gap, prices)
        if verdict is not None:
            breaks.append(verdict)
    breaks.sort(key=dearest_first)
    ttl = ttl_part(
        ordered if advise_ttl else (),
        breaks if advise_ttl else (),
        lambda found: chains.ttl(found.request, found.previous),
        prices,
    )
    return BreakPart(breaks, tolerated, gap_requests, ttl, first_requests, said)


def chain_links(requests: Sequence[Request]) -> dict[str, Link]:
    """Each request's predecessor in its chain, with the TTL and gap between them and the
    prefix they share.

    The same links and gaps `find_breaks` follows; a browser uses them to show what changed
    since the previous request and which idle gaps outlived the cache.
    """
    chains = Chains.of(requests)
    links: dict[str, Link] = {}
    for request in chains.ordered:
        previous = chains.previous(request)
        if previous is not None:
            gap = chains.starts[request.key] - chains.starts[previous.key]
            shared = shared_prefix(request, previous, chains.linked(request)).tokens
            links[request.key] = Link(previous, chains.ttl(request, previous), gap, shared)
    return links


class Link(NamedTuple):
    """What a request continues."""

    previous: Request
    ttl_seconds: float
    """How long the cache the predecessor left was kept."""
    gap_seconds: float
    """From the predecessor's start to the request's."""
    shared_tokens: int
    """The prefix the request shares with its predecessor: what it should read."""


def _judge(
    request: Request,
    previous: Request,
    chains: Chains,
    prices: PriceBook,
    rules: CacheRules,
    gap: float,
) -> Break | Tolerated | None:
    usage, before = request.usage, previous.usage
    if usage.cache_read_tokens > before.cache_read_tokens:
        return None  # reads grew: never a break
    prefix = shared_prefix(request, previous, chains.linked(request))
    expected = min(prefix.tokens, usage.prompt_tokens)
    read = usage.cache_read_tokens
    # a prefix measured in counted (not reported) tokens is an estimate: allow for its error
    share = ESTIMATE_SHARE if prefix.estimated else TOLERANCE_SHARE
    tolerance = max(TOLERANCE_TOKENS, round(share * expected))
    missing = expected - read
    if missing <= 0 or read > before.cache_read_tokens:
        return None  # read all it should have, or more than before: never a break
    if missing <= tolerance:
        return Tolerated(request, missing, tolerance) if read < before.cache_read_tokens else None
    written = min(missing, rewritten(request))
    # what was neither read nor written again was paid as uncached input (nothing cacheable)
    as_input = min(missing - written, usage.input_tokens) if reports_writes(request) else 0
    rebuilt = written + as_input
    if rebuilt <= 0:
        return None
    cause, detail = cause_of(request, previous, chains, rules, gap, prefix, tolerance)
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


def told(
    found: Break | None,
    request: Request,
    previous: Request | None,
    gap: float | None,
    prices: PriceBook,
) -> Break | None:
    """`found` with what the provider said of the request's cache: its reason as the cause,
    sniff's kept as `inferred`; a miss the provider reports where sniff found no break is a
    break of its own (what the request wrote again, at most what the provider says missed)."""
    said = request.cache_diagnosis
    assert said is not None
    cause = provider_cause(said)
    if found is not None:
        if cause is None or cause == found.cause:
            return replace(found, said=said)
        return replace(found, said=said, cause=cause, inferred=found.cause)
    if not said.missed or (said.missed_tokens == 0 and cause is None):
        return None
    usage = request.usage
    written = rewritten(request)
    missed = said.missed_tokens if said.missed_tokens is not None else written
    if reports_writes(request):
        rebuilt = min(missed, written)
        one_hour = min(rebuilt, usage.cache_write_1h_tokens)
        cost = _price(prices, request, rebuilt - one_hour, one_hour)
    else:  # the provider reports no writes: what missed was paid as input
        rebuilt, one_hour = min(missed, usage.input_tokens), 0
        cost = _price(prices, request, 0, 0, rebuilt)
    return Break(
        request, previous, cause or "unexplained", gap, 0, rebuilt, one_hour, cost,
        f"{said.provider} reports {said.missed_tokens or 0:,} tokens missed the cache; "
        "by usage alone sniff saw no drop in reads",
        said, NO_BREAK,
    )  # fmt: skip


def _chain_start(request: Request, prices: PriceBook) -> Break:
    """The first request of a chain wrote its whole prefix: a cold start, or, for the call
    that summarises a compacted conversation (and the first after a compaction), the
    expected cost of the compaction."""
    usage = request.usage
    rebuilt = rewritten(request)
    one_hour = usage.cache_write_1h_tokens
    compaction = request.agent is Agent.COMPACTION or request.compacted
    return Break(
        request,
        None,
        "compaction" if compaction else "cold_start",
        None,
        0,
        rebuilt,
        one_hour,
        _price(prices, request, rebuilt - one_hour, one_hour),
        "the call that summarised the conversation" if request.agent is Agent.COMPACTION else "",
    )


def _price(
    prices: PriceBook, request: Request, five_minute: int, one_hour: int, as_input: int = 0
) -> float | None:
    """What the rebuilt tokens cost more than reads would have."""
    rates = prices.rates(request.model, request.when, request.usage.prompt_tokens, request.provider)
    if rates is None:
        return None
    if not reports_writes(request):  # rebuilt at the input price
        return (five_minute + one_hour + as_input) * (rates.input - rates.cache_read)
    return (
        five_minute * (rates.cache_write_5m - rates.cache_read)
        + one_hour * (rates.cache_write_1h - rates.cache_read)
        + as_input * (rates.input - rates.cache_read)
    )
