"""Provides what an agent or a provider reports first-hand of a call, beside what sniff infers:
the agent's own telemetry joined to a transcript (`FirstHand`, `JoinRule`) and the provider's
word on a cache miss (`CacheDiagnosis`). Records (`model.Request`) carry them."""

from __future__ import annotations

from enum import StrEnum

import msgspec


class CacheDiagnosis(msgspec.Struct, frozen=True, gc=False):
    """What the provider said of a request's prompt cache, where the log keeps it: Anthropic's
    `diagnostics.cache_miss_reason`, OpenAI's `prompt_cache_diagnostics`."""

    provider: str
    """`anthropic` or `openai`."""
    kind: str
    """The provider's type: Anthropic's `model_changed`, `system_changed`, `tools_changed`,
    `messages_changed`, `previous_message_not_found`, `unavailable`; OpenAI's `cache_miss`,
    `cache_hit`, `comparison_response_not_found`, `unavailable`."""
    missed_tokens: int | None = None
    """The prompt tokens the miss cost a read (`cache_missed_input_tokens`,
    `cache_missed_tokens`), where said."""
    reason: str | None = None
    """OpenAI's words for a miss (`reason`)."""
    reusable_tokens: int | None = None
    """OpenAI's `comparison_reusable_tokens`: what the compared response could have reused."""

    @property
    def missed(self) -> bool:
        """Whether the provider says the cache missed (not a hit, nor no verdict)."""
        return self.kind not in ("cache_hit", "unavailable", "comparison_response_not_found")


class JoinRule(StrEnum):
    """How a call seen in the agent's own telemetry was found in its transcript."""

    REQUEST_ID = "request id"
    """Both carry the same provider request id."""
    TOKENS_AND_TIME = "tokens and time"
    """The same model and four token counts, started within `telemetry.JOIN_SECONDS`."""
    RESPONSE_ID = "response id"
    """`sniff proxy` recorded the call the transcript holds: the same response id."""


class FirstHand(msgspec.Struct, frozen=True, gc=False):
    """What was measured first-hand of a call, where it was: the agent's own telemetry
    (OpenTelemetry) or `sniff proxy`'s record of its bytes. The call's times (and the agent's
    cost) are then those, and sniff's own estimates from the transcript stay beside."""

    joined_by: JoinRule | None
    """How it was joined to its transcript; None: known from telemetry alone."""
    ttft: bool
    """The telemetry timed the first token (a span's `ttft_ms`), not only start and end."""
    estimated_started_at: float | None = None
    """sniff's estimates from the transcript's line times (epoch seconds), before the join."""
    estimated_first_at: float | None = None
    estimated_ended_at: float | None = None
