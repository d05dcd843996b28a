"""Provides how numbers read in text: money, token counts, rates, durations and moments."""

from __future__ import annotations

from datetime import UTC, datetime

UNPRICED = "unpriced"


def money(value: float | None) -> str:
    """`$1,234.56`; small amounts keep significant digits; None is `unpriced`, never `$0`."""
    if value is None:
        return UNPRICED
    sign = "-" if value < 0 else ""
    amount = abs(value)
    if amount >= 100:
        return f"{sign}${amount:,.0f}"
    if amount >= 1 or amount == 0:
        return f"{sign}${amount:,.2f}"
    if amount >= 0.01:
        return f"{sign}${amount:.3f}"
    return f"{sign}${amount:.4f}"


def signed_money(value: float) -> str:
    """`+$1.20` or `-$0.35`: a difference, its sign always shown."""
    return ("+" if value > 0 else "") + money(value)


def tokens(value: int) -> str:
    """Exact count with thousands separators."""
    return f"{value:,}"


def compact(value: int) -> str:
    """`4.30M`, `206.6k`, `937`: for tables where exact counts would not fit."""
    if value >= 1_000_000_000:
        return f"{value / 1_000_000_000:.2f}B"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f}M"
    if value >= 10_000:
        return f"{value / 1_000:.1f}k"
    return f"{value:,}"


def short_count(value: int) -> str:
    """`937`, `4.3k`, `207k`, `4.3M`, `1.2B`: a count in at most 4 characters (below 10^12),
    rounded half up, for tables that must fit 80 columns."""
    for size, suffix in ((10**9, "B"), (10**6, "M"), (10**3, "k")):
        if value * 2000 >= size * 1999:  # it would round to 1000 of the next smaller unit
            tenths = (value * 10 + size // 2) // size
            if tenths < 100:
                return f"{tenths // 10}.{tenths % 10}{suffix}"
            return f"{(value + size // 2) // size}{suffix}"
    return f"{value}"


def percent(rate: float | None) -> str:
    """`95.4%`, or `–` when there is no rate."""
    return "–" if rate is None else f"{rate * 100:.1f}%"


DAYS_FROM_HOURS = 48
"""Past this many hours a duration reads in days (`93d 4h`, not `2236h 51m`)."""


def duration(seconds: float) -> str:
    """`93d 04h` (past 48 hours), `2h 05m`, `14m 03s`, `42s`."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if whole > DAYS_FROM_HOURS * 3600:
        days, hours = divmod(hours, 24)
        return f"{days}d {hours:02d}h"
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


def instant(moment: float | None) -> str:
    """`2026-02-23T11:40:29.279Z`: epoch seconds in UTC to the millisecond, as Claude Code and
    Codex log their times; "" when unknown."""
    if moment is None:
        return ""
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def seconds(value: float | None) -> str:
    """`850 ms`, `2.1 s`, `1m 05s`: latency at a readable precision."""
    if value is None:
        return "–"
    if value < 0.001:
        return f"{value * 1e6:.0f} µs"
    if value < 1:
        return f"{value * 1000:.0f} ms"
    if value < 60:
        return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"
    minutes, rest = divmod(round(value), 60)
    return f"{minutes}m {rest:02d}s"


def axis_seconds(value: float) -> str:
    """`0.1 s`, `1 s`, `20 s`, `5 ms`: a round value on a time axis, without the padding
    `seconds` gives a measured value (`1.0 s`)."""
    if value < 0.01:
        return f"{value * 1000:g} ms"
    return f"{value:,.0f} s" if value >= 1 and value == round(value) else f"{value:g} s"


def first_line(text: str) -> str:
    """The first line of `text` that is not blank, stripped ("" for none)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def plural(count: int, noun: str, many: str | None = None) -> str:
    """`1 file`, `2 files`, `1,024 files`; `many` for a noun that does not just take an s."""
    return f"{count:,} {noun if count == 1 else many or noun + 's'}"
