"""Provides what Claude Code tells the status line of itself, read without trusting its types:
its own usage limits (`rate_limits`), its prompt cache's state (`prompt_cache`) and its own
session cost (`cost.total_cost_usd`).

Why so wary: these fields came with Claude Code 2.1.25x and may be absent, renamed or of another
shape in any version, and the status bar must show the rest of the line whatever they hold. So
each value is taken only when it has the type and a plausible range (a bool is no number, NaN,
infinities and negatives are nothing, an epoch far from now is nothing); any other value counts
as absent, and drops only what depends on it (a bad `resets_at` drops the reset, not the
percentage).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

WINDOWS = ("five_hour", "seven_day", "spend_limit")
"""Claude Code's limit windows, in the order the line shows them."""
MAX_PERCENT = 1000.0
"""Above any share a limit can be used; a larger one is not a percentage."""
EPOCH_RANGE = (1e9, 1e11)
"""Plausible epoch seconds (2001 to 5138): milliseconds or a small count are not a moment."""
MAX_TOKENS = 1e9
"""More tokens than any context holds."""
MAX_COST_USD = 1e6
MAX_CAUSE_CHARS = 40
"""A cause is a short name (`ttl_expired_5m`); a longer text is cut, not given the whole bar."""
TTLS = ("5m", "1h")


@dataclass(frozen=True, slots=True)
class Limit:
    """One of Claude Code's usage limits, as it said it."""

    window: str
    """`five_hour`, `seven_day` or `spend_limit`."""
    used_percent: float
    resets_at: float | None = None
    """Epoch seconds."""


@dataclass(frozen=True, slots=True)
class PromptCache:
    """Claude Code's prompt cache, as it said it (each field None when absent or odd)."""

    warm: bool | None = None
    caching_observed: bool | None = None
    ttl: str | None = None
    """`5m` or `1h`."""
    expires_at: float | None = None
    """Epoch seconds."""
    recache_tokens_if_cold: int | None = None
    """What the next request writes again if the cache has gone cold."""
    causes: tuple[str, ...] = ()
    """The last miss's causes, e.g. `ttl_expired_5m`."""


def number(value: Any, low: float, high: float) -> float | None:
    """`value` when it is a finite number within [low, high]; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        as_float = float(value)
    except OverflowError:  # an integer too big for a float
        return None
    return as_float if math.isfinite(as_float) and low <= as_float <= high else None


def _flag(data: dict[str, Any], key: str) -> bool | None:
    value = data.get(key)
    return value if isinstance(value, bool) else None


def limits(data: dict[str, Any]) -> tuple[Limit, ...]:
    """The limits `rate_limits` gives, in `WINDOWS` order; a window without a usable share is
    left out."""
    given = data.get("rate_limits")
    if not isinstance(given, dict):
        return ()
    found = []
    for window in WINDOWS:
        reading = given.get(window)
        if not isinstance(reading, dict):
            continue
        used = number(reading.get("used_percentage"), 0.0, MAX_PERCENT)
        if used is None:
            continue
        found.append(Limit(window, used, number(reading.get("resets_at"), *EPOCH_RANGE)))
    return tuple(found)


def prompt_cache(data: dict[str, Any]) -> PromptCache | None:
    """The prompt cache's state; None when `prompt_cache` is absent or says nothing usable."""
    given = data.get("prompt_cache")
    if not isinstance(given, dict):
        return None
    ttl = given.get("ttl")
    tokens = number(given.get("recache_tokens_if_cold"), 0.0, MAX_TOKENS)
    cache = PromptCache(
        warm=_flag(given, "warm"),
        caching_observed=_flag(given, "caching_observed"),
        ttl=ttl if ttl in TTLS else None,
        expires_at=number(given.get("expires_at"), *EPOCH_RANGE),
        recache_tokens_if_cold=None if tokens is None else int(tokens),
        causes=_causes(given.get("last_miss_cause")),
    )
    return None if cache == PromptCache() else cache


def _causes(given: Any) -> tuple[str, ...]:
    """The names in `{causes: [...]}`, each cut to `MAX_CAUSE_CHARS`; other items are dropped."""
    causes = given.get("causes") if isinstance(given, dict) else None
    if not isinstance(causes, list):
        return ()
    names = (cause.strip() for cause in causes[:8] if isinstance(cause, str))
    return tuple(name[:MAX_CAUSE_CHARS] for name in names if name)


def claude_cost(data: dict[str, Any]) -> float | None:
    """Claude Code's own cost of the session (`cost.total_cost_usd`), when usable."""
    cost = data.get("cost")
    return number(cost.get("total_cost_usd"), 0.0, MAX_COST_USD) if isinstance(cost, dict) else None
