"""Provides what each cache-break cause means, in one sentence a person can act on, and the
one line that counts a report's faults and expected breaks.

Each sentence says only what the cause itself establishes; what a log showed for one break
(the block that changed, the idle time, how far the prompt shrank) is that break's `detail`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sniff.numbers import money

if TYPE_CHECKING:
    from sniff.analyses.cache.break_report import BreakReport

EXPECTED_LABELS = (
    ("cold_start", "cold starts"),
    ("compaction", "compactions"),
    ("thinking_dropped", "thinking"),
)

EXPLANATIONS = {
    "cold_start": "The first request of its chain: its prefix had never been cached. Expected.",
    "model_switch": "The model changed: each model has its own cache, so the prefix was "
    "written again for the new one.",
    "compaction": "The conversation was compacted (or cleared): the call that summarised it, "
    "or the first request after, whose history is now the summary, so the old prefix no "
    "longer matched. The expected cost of compacting.",
    "version_change": "The agent was updated between requests: a new version sends a different "
    "system prompt or tools, which changes the prefix from the start.",
    "below_minimum": "The prefix was shorter than the model's smallest cacheable prompt, so "
    "nothing could be read back.",
    "thinking_dropped": "A new user message came after turns with extended thinking: this model "
    "drops earlier thinking blocks from the context then, so the prompt changed at the first "
    "one and everything after it was written again. Expected: a cost of thinking mode "
    "(models that keep thinking blocks do not pay it).",
    "tools_changed": "The provider says the tool definitions changed (names, descriptions, "
    "parameters or their order): the cache is keyed on them first, so everything was written "
    "again.",
    "system_changed": "The provider says the system prompt changed: everything after its first "
    "difference was written again.",
    "messages_changed": "The provider says an earlier message changed (edited, truncated or "
    "re-serialised): everything after it was written again.",
    "prompt_cache_key_changed": "The provider says the request's `prompt_cache_key` changed: "
    "requests under another key share no cache.",
    "service_tier_changed": "The provider says the service tier changed: each tier keeps its "
    "own cache.",
    "text_format_changed": "The provider says the response format (`text.format`, a schema) "
    "changed: it is part of the cached prefix.",
    "reasoning_effort_changed": "The provider says the reasoning effort changed: it is part of "
    "the cached prefix.",
    "verbosity_changed": "The provider says the verbosity setting changed: it is part of the "
    "cached prefix.",
    "input_changed": "The provider says the input changed from the compared response's: the "
    "prompt no longer began with what it cached.",
    "prefix_changed": "The prompt no longer began with the prefix its predecessor cached: part "
    "of it was changed or removed, and everything after that point was written again.",
    "ttl_expired": "The gap since the previous request outlived the cache's lifetime (TTL): "
    "the cached prefix had expired and was written again.",
    "resume": "The conversation went on in another session or file (resumed or forked) and "
    "its cached prefix was not read back there.",
    "unexplained": "Reads dropped with nothing in the log to explain it: often a cache "
    "eviction or a request routed to another machine.",
}


FIXES = {
    "model_switch": "Keep one model per conversation: start a new session (or a subagent) for "
    "another model rather than switching mid-conversation.",
    "version_change": "Update the agent between sessions, not while one is running.",
    "below_minimum": "Usually short helper calls, and cheap: nothing to do unless they are many; "
    "a longer stable system prompt would make them cacheable.",
    "prefix_changed": "Keep the start of the prompt stable: no dates, ids or reordered tools in "
    "the system prompt, and add to the conversation instead of editing earlier messages "
    "(`sniff lint` finds such patterns).",
    "tools_changed": "Keep the tool list stable within a session: the same tools, descriptions "
    "and order (an MCP server that reorders or renames its tools breaks the cache).",
    "system_changed": "Keep the system prompt stable: no dates, ids or paths that change per "
    "request (`sniff lint` finds them).",
    "messages_changed": "Add to the conversation instead of editing or trimming earlier messages.",
    "prompt_cache_key_changed": "Keep one `prompt_cache_key` per conversation (not per "
    "request, nor one with a time in it).",
    "service_tier_changed": "Keep one service tier within a conversation.",
    "text_format_changed": "Keep one response format (schema) within a conversation.",
    "reasoning_effort_changed": "Keep one reasoning effort within a conversation, or start a "
    "new one to change it.",
    "verbosity_changed": "Keep one verbosity setting within a conversation.",
    "input_changed": "Keep earlier input as it was sent: add to it rather than rewriting it.",
    "ttl_expired": "Pauses outlived the cache: where pauses are long, the 1-hour cache lifetime "
    "pays (`sniff cache --breaks` says whether it does), or start afresh after a long break.",
    "resume": "Resuming or forking a session writes its prefix again: go on in the same "
    "session where you can.",
    "unexplained": "Nothing in the logs explains these (often the provider evicting the cache): "
    "if they are many, show the provider the requests `sniff cache --breaks` lists.",
}
"""How to stop each cause of faults, in one sentence (expected causes have none)."""


def explain(cause: str) -> str:
    """The sentence for a cause (or the cause itself when unknown)."""
    return EXPLANATIONS.get(cause, cause)


def fix(cause: str) -> str:
    """How to stop the cause's faults ("" for an expected cause, or one sniff has no fix for)."""
    return FIXES.get(cause, "")


def headline(report: BreakReport) -> str:
    """`N faults ($X) and M expected: a cold starts, b compactions, c thinking ($Y)`."""
    totals = report.totals
    kinds = ", ".join(
        f"{report.expected_count(cause):,} {label}" for cause, label in EXPECTED_LABELS
    )
    return (
        f"{totals.faults:,} faults ({money(totals.fault_cost_usd)}) and {totals.expected:,} "
        f"expected: {kinds} ({money(totals.expected_cost_usd)})"
    )
