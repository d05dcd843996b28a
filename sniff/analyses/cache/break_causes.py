"""Provides the cause of a cache break, and the evidence for it the log holds.

Why apart from the detection (`analyses.cache.breaks`): a break is found from usage alone, but its
cause is read from whatever else the log tells: models and versions, the prompt's size, a
compaction marked or run in between, thinking blocks and user turns, the logged prompt's
blocks, the gap. One cause per break, in the precedence of docs/prompt-caching.md §5.5.
"""

from __future__ import annotations

from typing import NamedTuple

from sniff.analyses.cache.break_rules import CacheRules
from sniff.analyses.cache.chains import Chains, cached_after
from sniff.model import Request
from sniff.numbers import duration

SHRINK_SHARE = 0.5
"""A chain whose prompt falls below half its previous size was compacted (or cleared)."""
THINKING = frozenset({"thinking", "redacted_thinking"})


class Prefix(NamedTuple):
    """The prefix a request shares with its predecessor, and what its logged prompt tells."""

    tokens: int
    """In the request's own tokens."""
    detail: str = ""
    """The first block that differs, where both prompts are logged and one does."""
    estimated: bool = False
    """Counted from blocks by a tokenizer, not from reported usage."""
    dropped: str = ""
    """The kind of the predecessor's first block the request does not repeat."""


def shared_prefix(request: Request, previous: Request, linked: bool) -> Prefix:
    """The prefix the request shares with its predecessor, in its own tokens, and what changed.

    Without prompts, a conversation only ever appends: it shares all its predecessor cached.
    With prompts (request logs), the first block that differs is named; a request the log links
    to its predecessor continues that conversation and still shares all it cached (the change
    is why it read less), while an unlinked one shares the blocks up to the change.
    """
    cached_before = cached_after(previous)
    if not request.blocks or not previous.blocks:
        return Prefix(cached_before)
    common = 0
    for mine, theirs in zip(request.blocks, previous.blocks, strict=False):
        if mine.content_hash != theirs.content_hash:
            break
        common += 1
    if common >= len(previous.blocks):
        return Prefix(cached_before)
    dropped = previous.blocks[common].kind
    if common < len(request.blocks):
        block = request.blocks[common]
        detail = f"block {common + 1} changed: {block.kind} ({block.role})"
    else:
        detail = f"blocks {common + 1}+ removed"
    if linked:
        return Prefix(cached_before, detail, False, dropped)
    counted = sum(block.tokens for block in request.blocks) or 1
    shared_tokens = sum(block.tokens for block in request.blocks[:common])
    shared = min(round(shared_tokens * request.usage.prompt_tokens / counted), cached_before)
    return Prefix(shared, detail, True, dropped)


def cause(
    request: Request,
    previous: Request,
    chains: Chains,
    rules: CacheRules,
    gap: float,
    prefix: Prefix,
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


def _compaction(request: Request, previous: Request, chains: Chains) -> str:
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
    chains: Chains,
    rules: CacheRules,
    prefix: Prefix,
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
    first = chains.first_thought(previous)
    if first is None or request.usage.cache_read_tokens + tolerance < cached_after(first):
        return ""
    return f"{dropped}, rewritten from token {cached_after(first):,} on"


def _idle(gap: float, ttl: float) -> str:
    return f"idle {duration(gap)}, longer than the {duration(ttl)} TTL"
