"""Provides what each cache-break cause means, in one sentence a person can act on."""

from __future__ import annotations

EXPLANATIONS = {
    "cold_start": "The first request of its chain: its prefix had never been cached. Expected.",
    "model_switch": "The model changed: each model has its own cache, so the prefix was "
    "written again for the new one.",
    "compaction": "The conversation was compacted (or cleared): its history was replaced by a "
    "summary, so the old prefix no longer matched.",
    "version_change": "The agent was updated between requests: a new version sends a different "
    "system prompt or tools, which changes the prefix from the start.",
    "below_minimum": "The prefix was shorter than the model's smallest cacheable prompt, so "
    "nothing could be read back.",
    "prefix_changed": "Something early in the prompt changed (system, tools or an edited "
    "message): everything after the first changed block was written again.",
    "ttl_expired": "The gap since the previous request outlived the cache's lifetime (TTL): "
    "the cached prefix had expired and was written again.",
    "resume": "The conversation went on in another session or file (resumed or forked) and "
    "its cached prefix was not read back there.",
    "unexplained": "Reads dropped with nothing in the log to explain it: often a cache "
    "eviction or a request routed to another machine.",
}


def explain(cause: str) -> str:
    """The sentence for a cause (or the cause itself when unknown)."""
    return EXPLANATIONS.get(cause, cause)
