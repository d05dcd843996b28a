"""Provides what a provider's cache diagnosis means for a break: its cause in sniff's words
(`provider_cause`), its label (`provider_label`), and the tally of how often sniff's own
inference agrees with it (`Agreement`).

Why the provider's reason wins where it gives one: it saw the prefix; sniff infers from usage.
sniff's inference stays beside it as evidence (`Break.inferred`), and the agreement table shows
how often the two agree. A reason that names a change sniff has a word for takes that word
(`model_changed` is sniff's `model_switch`, OpenAI's `context_compacted` a `compaction`); the
others keep the provider's word, more precise than sniff's `prefix_changed`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sniff.first_hand import CacheDiagnosis

SAME_WORD = {"model_changed": "model_switch", "context_compacted": "compaction"}
"""A provider's reason sniff has its own word for."""
PROVIDER_CAUSES = (
    "tools_changed",
    "system_changed",
    "messages_changed",
    "prompt_cache_key_changed",
    "service_tier_changed",
    "text_format_changed",
    "reasoning_effort_changed",
    "verbosity_changed",
    "input_changed",
)
"""The causes only a provider names (Anthropic's types, OpenAI's reasons), in the order of
docs/prompt-caching.md §5.5: tools before parameters before the system prompt and messages."""
NO_BREAK = "no break"
"""sniff's side of the agreement where it found no break."""


def provider_cause(said: CacheDiagnosis) -> str | None:
    """The cause a diagnosis names, in sniff's words; None where it names none (a hit, no
    verdict, Anthropic's `previous_message_not_found`, a miss without a reason)."""
    if not said.missed:
        return None
    word = said.reason if said.provider == "openai" else said.kind
    if word in SAME_WORD:
        return SAME_WORD[word]
    return word if word in PROVIDER_CAUSES else None


def provider_label(said: CacheDiagnosis) -> str:
    """The provider's verdict as one label: its type, and OpenAI's reason for a miss."""
    if said.provider == "openai" and said.kind == "cache_miss" and said.reason:
        return f"cache_miss: {said.reason}"
    return said.kind


@dataclass(frozen=True, slots=True)
class Agreement:
    """How many requests the provider diagnosed one way and sniff another, and their tokens."""

    sniff: str
    """sniff's inferred cause, or `NO_BREAK`."""
    provider: str
    """`provider_label`."""
    requests: int
    missed_tokens: int
    """The tokens the provider said missed the cache (0 where it did not say)."""

    @property
    def agrees(self) -> bool:
        """Whether the two name the same thing (a hit and no break agree too)."""
        if self.provider in ("cache_hit",):
            return self.sniff == NO_BREAK
        word = self.provider.removeprefix("cache_miss: ")
        return self.sniff == SAME_WORD.get(word, word)


Tally = dict[tuple[str, str], tuple[int, int]]
"""(sniff's word, the provider's label) → (requests, missed tokens): joinable by summing."""


def tally(into: Tally, sniff: str, said: CacheDiagnosis) -> None:
    """Count one diagnosed request in."""
    key = (sniff, provider_label(said))
    requests, tokens = into.get(key, (0, 0))
    into[key] = (requests + 1, tokens + (said.missed_tokens or 0))


def agreement(tallies: Iterable[Tally]) -> list[Agreement]:
    """The rows of all parts' tallies, most requests first (then by name: a fixed order)."""
    joined: Tally = {}
    for part in tallies:
        for key, (requests, tokens) in part.items():
            had_requests, had_tokens = joined.get(key, (0, 0))
            joined[key] = (had_requests + requests, had_tokens + tokens)
    rows = [Agreement(sniff, said, *counts) for (sniff, said), counts in joined.items()]
    return sorted(rows, key=lambda row: (-row.requests, row.sniff, row.provider))
