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
from datetime import date, tzinfo
from typing import NamedTuple

from sniff.analyses.break_report import (
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
    start_of,
)
from sniff.analyses.break_rules import CacheRules
from sniff.model import Agent, Request
from sniff.present.formats import duration
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
SHRINK_SHARE = 0.5
"""A chain whose prompt falls below half its previous size was compacted (or cleared)."""
TTL_5M, TTL_1H = 300.0, 3600.0
IDLE_TTL = 600.0
"""OpenAI's automatic cache lives 5 to 10 minutes idle (the bundled `openai` policy)."""
THINKING = frozenset({"thinking", "redacted_thinking"})
TURN_STEPS = 10_000
"""How far back a request's turn is looked for: a tool loop longer than this is not judged."""


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
) -> BreakPart:
    """The breaks among `requests` (see `find_breaks`), as a part to join."""
    rules = rules or CacheRules()
    chains = _Chains.of(requests)
    starts = chains.starts
    ordered = chains.ordered if keep is None else [r for r in chains.ordered if keep(r)]
    breaks: list[Break] = []
    tolerated: list[Tolerated] = []
    gap_requests = [0] * len(GAP_BUCKETS)
    first_requests = 0
    for request in ordered:
        previous = chains.previous(request)
        if previous is None:
            first_requests += 1
            if _rewritten(request):
                breaks.append(_chain_start(request, prices))
            continue
        gap = starts[request.key] - starts[previous.key]
        gap_requests[gap_bucket(gap)] += 1
        if request.usage.cache_read_tokens > previous.usage.cache_read_tokens:
            continue  # reads grew: never a break
        verdict = _judge(request, previous, chains, prices, rules, gap)
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
    return BreakPart(breaks, tolerated, gap_requests, _written_5m(ordered), avoided, first_requests)


def chain_links(requests: Sequence[Request]) -> dict[str, Link]:
    """Each request's predecessor in its chain, with the TTL and gap between them and the
    prefix they share.

    The same links and gaps `find_breaks` follows; a browser uses them to show what changed
    since the previous request and which idle gaps outlived the cache.
    """
    chains = _Chains.of(requests)
    links: dict[str, Link] = {}
    for request in chains.ordered:
        previous = chains.previous(request)
        if previous is not None:
            gap = chains.starts[request.key] - chains.starts[previous.key]
            shared = _shared_prefix(request, previous, chains.linked(request)).tokens
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


class _Prefix(NamedTuple):
    """The prefix a request shares with its predecessor, and what its logged prompt tells."""

    tokens: int
    """In the request's own tokens."""
    detail: str = ""
    """The first block that differs, where both prompts are logged and one does."""
    estimated: bool = False
    """Counted from blocks by a tokenizer, not from reported usage."""
    dropped: str = ""
    """The kind of the predecessor's first block the request does not repeat."""


def _judge(
    request: Request,
    previous: Request,
    chains: _Chains,
    prices: PriceBook,
    rules: CacheRules,
    gap: float,
) -> Break | Tolerated | None:
    usage, before = request.usage, previous.usage
    prefix = _shared_prefix(request, previous, chains.linked(request))
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
    written = min(missing, _rewritten(request))
    # what was neither read nor written again was paid as uncached input (nothing cacheable)
    as_input = min(missing - written, usage.input_tokens) if _reports_writes(request) else 0
    rebuilt = written + as_input
    if rebuilt <= 0:
        return None
    cause, detail = _cause(request, previous, chains, rules, gap, prefix, tolerance)
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
    rules: CacheRules,
    gap: float,
    prefix: _Prefix,
    tolerance: int,
) -> tuple[str, str]:
    """The break's cause and the evidence for it, from what the log holds."""
    if request.model != previous.model:
        return "model_switch", f"{previous.model} → {request.model}"
    compacted = _compaction(request, previous, chains)
    if compacted:
        return "compaction", compacted
    if request.version and previous.version and request.version != previous.version:
        return "version_change", f"version {previous.version} → {request.version}"
    size, minimum = request.usage.prompt_tokens, rules.minimum(request)
    if size < minimum and not request.usage.cache_write_tokens:
        return "below_minimum", f"{size:,}-token prompt; {request.model} caches from {minimum:,}"
    dropped = _thinking_dropped(request, previous, chains, rules, prefix, tolerance)
    if dropped:
        return "thinking_dropped", dropped
    if prefix.detail:
        return "prefix_changed", prefix.detail
    ttl = chains.ttl(request, previous)
    if size < prefix.tokens:  # without a logged prompt, all the log tells is that it shrank
        shrank = f"the prompt ({size:,} tokens) is shorter than the {prefix.tokens:,} cached"
        if gap > ttl:  # the expiry alone explains the whole rebuild
            return "ttl_expired", f"{_idle(gap, ttl)}; {shrank}"
        return "prefix_changed", f"{shrank} before it: part of it was removed or rewritten"
    if gap > ttl:
        return "ttl_expired", _idle(gap, ttl)
    if request.session_id != previous.session_id:
        return "resume", "continued in another session"
    if request.file != previous.file:
        return "resume", "continued in another file"
    return "unexplained", ""


def _compaction(request: Request, previous: Request, chains: _Chains) -> str:
    """What shows the conversation was compacted since its predecessor ("" when nothing)."""
    size, before = request.usage.prompt_tokens, previous.usage.prompt_tokens
    if request.compacted:
        return "the log marks the conversation compacted before it"
    if size < SHRINK_SHARE * before:
        return f"the prompt fell from {before:,} to {size:,} tokens"
    if not chains.linked(request) and chains.compacted_between(
        request, chains.starts[previous.key], chains.starts[request.key]
    ):
        return "a compaction call ran since the previous request"
    return ""


def _thinking_dropped(
    request: Request,
    previous: Request,
    chains: _Chains,
    rules: CacheRules,
    prefix: _Prefix,
    tolerance: int,
) -> str:
    """The evidence that the model dropped earlier thinking blocks at a new user turn ("" when
    there is none).

    Logged prompts show it: the first block of the predecessor's that the request does not
    repeat is a thinking block. Transcripts show it by usage: responses sent back in the
    predecessor's prompt since its last user turn held thinking blocks, and the request read
    at least the prefix before the first of them (what comes after it was written again).
    """
    if not request.opens_turn or not rules.strips_thinking(request):
        return ""
    dropped = f"a new user turn: {request.model} drops earlier thinking blocks"
    if request.blocks and previous.blocks:
        return f"{dropped} ({prefix.detail})" if prefix.dropped in THINKING else ""
    first = _first_thought(previous, chains)
    if first is None or request.usage.cache_read_tokens + tolerance < _cached_after(first):
        return ""
    return f"{dropped}, rewritten from token {_cached_after(first):,} on"


def _first_thought(previous: Request, chains: _Chains) -> Request | None:
    """The earliest request whose response (thinking included) the predecessor's prompt sent
    back since its last user turn; None when none thought or the turn's start is not known."""
    first: Request | None = None
    request: Request | None = previous
    for _ in range(TURN_STEPS):
        if request is None:
            return None
        if request.opens_turn:
            return first
        request = chains.previous(request)
        if request is not None and request.thinks:
            first = request
    return None


def _idle(gap: float, ttl: float) -> str:
    return f"idle {duration(gap)}, longer than the {duration(ttl)} TTL"


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


def _shared_prefix(request: Request, previous: Request, linked: bool) -> _Prefix:
    """The prefix the request shares with its predecessor, in its own tokens, and what changed.

    Without prompts, a conversation only ever appends: it shares all its predecessor cached.
    With prompts (request logs), the first block that differs is named; a request the log links
    to its predecessor continues that conversation and still shares all it cached (the change
    is why it read less), while an unlinked one shares the blocks up to the change.
    """
    cached_before = _cached_after(previous)
    if not request.blocks or not previous.blocks:
        return _Prefix(cached_before)
    common = 0
    for mine, theirs in zip(request.blocks, previous.blocks, strict=False):
        if mine.content_hash != theirs.content_hash:
            break
        common += 1
    if common >= len(previous.blocks):
        return _Prefix(cached_before)
    dropped = previous.blocks[common].kind
    if common < len(request.blocks):
        block = request.blocks[common]
        detail = f"block {common + 1} changed: {block.kind} ({block.role})"
    else:
        detail = f"blocks {common + 1}+ removed"
    if linked:
        return _Prefix(cached_before, detail, False, dropped)
    counted = sum(block.tokens for block in request.blocks) or 1
    shared_tokens = sum(block.tokens for block in request.blocks[:common])
    shared = min(round(shared_tokens * request.usage.prompt_tokens / counted), cached_before)
    return _Prefix(shared, detail, True, dropped)


def _chain_start(request: Request, prices: PriceBook) -> Break:
    """The first request of a chain wrote its whole prefix: a cold start, or, for the call
    that summarises a compacted conversation (and the first after a compaction), the
    expected cost of the compaction."""
    usage = request.usage
    rebuilt = _rewritten(request)
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


def _written_5m(ordered: list[Request]) -> dict[tuple[str, date], tuple[int, Request]]:
    written: dict[tuple[str, date], tuple[int, Request]] = {}
    for request in ordered:  # 5-minute writes per model and day: one price lookup each
        tokens = request.usage.cache_write_5m_tokens
        if tokens:
            key = (request.model, request.when.date())
            total, first = written.get(key, (0, request))
            written[key] = (total + tokens, first)
    return written
