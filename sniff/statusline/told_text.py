"""Provides the texts of what Claude Code tells the status line (`statusline.told`): its usage
limits (`limits_text`) and its prompt cache (`cache_text`), and the short money and time
formats every part uses (`usd`, `ago`, `countdown`).

Why marked `CC`: the block and today parts are sniff's own estimates from the logs; these
percentages are Claude Code's word, and a reader should know which is which. The cache part
counts down while the cache is warm and, in its last minute, says what letting it go cold
costs: the tokens Claude Code would write again (`recache_tokens_if_cold`) at the cache-write
price less the cache-read price the next request would otherwise pay. That price comes only
from the tables earlier runs kept (`CachedPrices`, loaded only then); a model not among them
is shown in tokens, never $0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from sniff.statusline.told import Limit, PromptCache

WINDOW_LABELS = {"five_hour": "5h", "seven_day": "7d", "spend_limit": "spend"}
NEAR_LIMIT = 80.0
"""From this share used, a window's reset time is shown (the 5-hour window's always is)."""
WARN_SECONDS = 60.0
"""Under this long left, the cache part warns."""


def usd(value: float) -> str:
    """Dollars as the status line shows them."""
    return f"${value:,.2f}"


def ago(seconds: float) -> str:
    """A short age or time left: `45s`, `4m`, `2h13m`, `3d`."""
    seconds = max(seconds, 0.0)
    if seconds < 60:
        return f"{int(seconds)}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        hours, minutes = divmod(int(seconds // 60), 60)
        return f"{hours}h{minutes:02d}m"
    return f"{int(seconds // 86400)}d"


def countdown(seconds: float) -> str:
    """Time left to the second while under an hour: `42s`, `3m12s`, then `1h02m`."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return ago(whole)


def tokens(count: int) -> str:
    """A token count, short: `840`, `12.3k`, `184k`, `1.2M`."""
    if count < 1000:
        return str(count)
    if count < 10_000:
        return f"{count / 1000:.1f}k"
    if count < 1_000_000:
        return f"{count // 1000}k"
    return f"{count / 1_000_000:.1f}M"


def limits_text(limits: Sequence[Limit], now: float) -> str:
    """`CC 5h 42% (resets 1h12m), 7d 18%`: each limit's share used (rounded down: 100% is
    reached, never rounded to), and when it resets where that matters."""
    shown = []
    for limit in limits:
        text = f"{WINDOW_LABELS.get(limit.window, limit.window)} {math.floor(limit.used_percent)}%"
        left = None if limit.resets_at is None else limit.resets_at - now
        wanted = limit.window == "five_hour" or limit.used_percent >= NEAR_LIMIT
        if left is not None and left > 0 and wanted:
            text += f" (resets {ago(left)})"
        shown.append(text)
    return "CC " + ", ".join(shown) if shown else ""


def cache_text(cache: PromptCache | None, model_id: str | None, now: datetime) -> str:
    """`cache 3m12s` while warm; `⚠ cache 42s: re-sending cold ≈ $0.31` in its last minute;
    `cache cold: ttl_expired_5m` once cold (`warm` false, or its expiry past). Nothing before
    Claude Code has seen caching at all."""
    if cache is None or cache.caching_observed is False:
        return ""
    left = None if cache.expires_at is None else cache.expires_at - now.timestamp()
    if cache.warm is False or (left is not None and left <= 0):
        causes = "+".join(cache.causes)
        return f"cache cold: {causes}" if causes else "cache cold"
    if left is None:
        return "cache warm" if cache.warm else ""
    if left >= WARN_SECONDS:
        return f"cache {countdown(left)}"
    cost = cold_cost(cache, model_id, now)
    return f"⚠ cache {countdown(left)}" + (f": re-sending cold ≈ {cost}" if cost else "")


def cold_cost(cache: PromptCache, model_id: str | None, now: datetime) -> str:
    """What the cache going cold costs the next request, in dollars at the kept prices, else
    in tokens; "" when Claude Code did not say how much it would write again."""
    count = cache.recache_tokens_if_cold
    if not count:
        return ""
    extra = None if model_id is None else _extra_per_token(model_id, cache.ttl, count, now)
    if extra is None:
        return f"{tokens(count)} tokens"
    dollars = count * extra
    return usd(dollars) if dollars >= 0.005 else "<$0.01"


def _extra_per_token(model_id: str, ttl: str | None, count: int, now: datetime) -> float | None:
    """The cache-write price (of the cache's TTL) less the cache-read price, per token, from
    the kept price tables; None when the model is not priced there, or writing is no dearer."""
    try:
        from sniff.statusline.prices import CachedPrices

        rates = CachedPrices().rates(model_id, now, count)
    except Exception:  # noqa: BLE001 - a damaged table costs the dollars, never the line
        return None
    if rates is None:
        return None
    write = rates.cache_write_1h if ttl == "1h" else rates.cache_write_5m
    extra = write - rates.cache_read
    return extra if math.isfinite(extra) and extra > 0 else None
