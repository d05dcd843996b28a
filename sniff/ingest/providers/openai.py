"""Provides the OpenAI Chat Completions and Responses API shapes: tokens and SSE.

OpenAI reports cached tokens as a *subset* of prompt/input tokens (and, on newer models, cache
writes too); sniff's classes are disjoint, so the subset is subtracted here, exactly once.
Output includes reasoning tokens, which are kept apart as `reasoning` as well.
"""

from __future__ import annotations

from typing import Any

from sniff.ingest.plausible import count, usage_object, usage_part
from sniff.ingest.providers.anthropic import sse_events
from sniff.ingest.record import NO_TOKENS, Tokens

CHAT = "openai-chat"
RESPONSES = "openai-responses"
SYSTEM_ROLES = frozenset({"system", "developer"})


def chat_tokens(usage: Any) -> Tokens:
    """Chat Completions usage → disjoint classes.

    Some proxies add Anthropic's `cache_read_input_tokens` / `cache_creation_input_tokens`
    beside `prompt_tokens`; whether `prompt_tokens` includes them depends on the proxy, so it is
    decided by the numbers: it includes them when it is at least their sum.

    Raises:
        Implausible: a count is present but no plausible count (`plausible.count`).
    """
    usage = usage_object(usage)
    if usage is None:
        return NO_TOKENS
    prompt = count(usage.get("prompt_tokens"))
    details = usage_part(usage, "prompt_tokens_details")
    cached = count(details.get("cached_tokens"))
    written = count(details.get("cache_write_tokens"))
    if "cache_read_input_tokens" in usage or "cache_creation_input_tokens" in usage:
        read = count(usage.get("cache_read_input_tokens"))
        written = count(usage.get("cache_creation_input_tokens"))
        cached = max(cached, read)
        uncached = prompt - cached - written if prompt >= cached + written else prompt
    else:
        cached = min(cached, prompt)
        written = min(written, prompt - cached)
        uncached = prompt - cached - written
    reasoning = count(usage_part(usage, "completion_tokens_details").get("reasoning_tokens"))
    return Tokens(uncached, cached, written, 0, count(usage.get("completion_tokens")), reasoning)


def responses_tokens(usage: Any) -> Tokens:
    """Responses API (and Codex) usage → disjoint classes.

    Raises:
        Implausible: a count is present but no plausible count (`plausible.count`).
    """
    usage = usage_object(usage)
    if usage is None:
        return NO_TOKENS
    total_input = count(usage.get("input_tokens"))
    details = usage_part(usage, "input_tokens_details")
    cached = count(details.get("cached_tokens"))
    written = count(details.get("cache_write_tokens"))
    reasoning = count(usage_part(usage, "output_tokens_details").get("reasoning_tokens"))
    output = count(usage.get("output_tokens"))
    return inclusive_tokens(total_input, cached, written, output, reasoning)


def inclusive_tokens(
    total_input: int, cached: int, written: int, output: int, reasoning: int
) -> Tokens:
    """Counts whose input includes cached input and cache writes (Responses API, Codex) →
    disjoint classes."""
    cached = min(cached, total_input)
    written = min(written, total_input - cached)
    return Tokens(total_input - cached - written, cached, written, 0, output, reasoning)


def chat_from_sse(text: str) -> dict[str, Any]:
    """A streamed Chat Completion's id, model and usage (the final chunk's, with include_usage)."""
    found: dict[str, Any] = {}
    for chunk in sse_events(text, ('"id"', '"usage"')):
        for key in ("id", "model"):
            if key in chunk and key not in found:
                found[key] = chunk[key]
        if isinstance(chunk.get("usage"), dict):
            found["usage"] = chunk["usage"]
    return found


def responses_from_sse(text: str) -> dict[str, Any]:
    """A streamed Response: the `response` object of its completed (or last) event."""
    found: dict[str, Any] = {}
    for event in sse_events(text, ('"response.',)):
        response = event.get("response")
        if isinstance(response, dict):
            found = response
    return found
