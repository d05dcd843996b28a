"""Provides the providers' own word on a request's prompt cache, read from a response body.

Anthropic (beta header `cache-diagnosis-2026-04-07`) answers `diagnostics.cache_miss_reason`:
`type` (`model_changed`, `system_changed`, `tools_changed`, `messages_changed`,
`previous_message_not_found`, `unavailable`) and, for the `*_changed` types,
`cache_missed_input_tokens`; streamed, it arrives on `message_start`'s message. Claude Code
sends the header and writes the result into its transcripts (`message.diagnostics`). OpenAI
(Responses API) answers `prompt_cache_diagnostics`: `type` (`cache_miss`, `cache_hit`,
`comparison_response_not_found`, `unavailable`) and, for a miss, `reason`,
`cache_missed_tokens` and `comparison_reusable_tokens`. Anthropic's is checked against a real
Claude Code transcript; OpenAI's only against its documentation. A value of the wrong shape
reads as no diagnosis: a log's text never fails a read.
"""

from __future__ import annotations

from typing import Any

from sniff.first_hand import CacheDiagnosis

ANTHROPIC_TYPES = frozenset({
    "model_changed", "system_changed", "tools_changed", "messages_changed",
    "previous_message_not_found", "unavailable",
})  # fmt: skip
OPENAI_TYPES = frozenset(
    {"cache_miss", "cache_hit", "comparison_response_not_found", "unavailable"}
)
NAME_LIMIT = 64
"""A reason longer than this is no reason a provider gives."""
TOKEN_LIMIT = 100_000_000


def anthropic_diagnosis(diagnostics: Any) -> CacheDiagnosis | None:
    """A message's `diagnostics` as Anthropic writes it; None without a known miss type."""
    reason = diagnostics.get("cache_miss_reason") if isinstance(diagnostics, dict) else None
    if not isinstance(reason, dict) or reason.get("type") not in ANTHROPIC_TYPES:
        return None
    return CacheDiagnosis(
        "anthropic", reason["type"], _tokens(reason.get("cache_missed_input_tokens"))
    )


def openai_diagnosis(diagnostics: Any) -> CacheDiagnosis | None:
    """A response's `prompt_cache_diagnostics` as OpenAI writes it; None without a known type."""
    if not isinstance(diagnostics, dict) or diagnostics.get("type") not in OPENAI_TYPES:
        return None
    reason = diagnostics.get("reason")
    named = reason if isinstance(reason, str) and 0 < len(reason) <= NAME_LIMIT else None
    return CacheDiagnosis(
        "openai", diagnostics["type"], _tokens(diagnostics.get("cache_missed_tokens")), named,
        _tokens(diagnostics.get("comparison_reusable_tokens")),
    )  # fmt: skip


def diagnosis_of(body: Any) -> CacheDiagnosis | None:
    """The diagnosis a response body holds, whichever provider's (None without one)."""
    if not isinstance(body, dict):
        return None
    return anthropic_diagnosis(body.get("diagnostics")) or openai_diagnosis(
        body.get("prompt_cache_diagnostics")
    )


def _tokens(value: Any) -> int | None:
    if type(value) is int and 0 <= value <= TOKEN_LIMIT:
        return value
    return None
