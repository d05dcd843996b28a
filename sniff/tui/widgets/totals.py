"""Provides the lines of totals at the top of the overview, a project and a session."""

from __future__ import annotations

from rich.text import Text

from sniff.analyses.browse import BreakCost
from sniff.analyses.cost.summary import Totals
from sniff.numbers import compact, money, percent, plural
from sniff.tui.palette import Palette


def totals_text(totals: Totals, breaks: BreakCost, colours: Palette) -> Text:
    """Cost, savings, hit rate and breaks; then the tokens by class."""
    text = Text()
    text.append("Cost ", style="bold")
    text.append(money(totals.cost), style="bold")
    if totals.unpriced_requests:
        text.append(f" (+{totals.unpriced_requests:,} unpriced requests)", style="italic")
    text.append("  ·  saved by caching ")
    text.append(money(totals.savings), style=colours.read)
    text.append("  ·  hit rate ")
    text.append(percent(totals.hit_rate), style="bold")
    text.append("  ·  breaks ")
    text.append(f"{breaks.count:,} costing {money(breaks.usd)}", style=colours.uncached)
    text.append("\n")
    text.append(f"{plural(totals.requests, 'request')}  ·  ")
    text.append(f"uncached {compact(totals.input_tokens)}", style=colours.uncached)
    text.append("  ·  ")
    text.append(f"read {compact(totals.cache_read_tokens)}", style=colours.read)
    text.append("  ·  ")
    written = totals.cache_write_5m_tokens + totals.cache_write_1h_tokens
    text.append(f"written {compact(written)}", style=colours.written)
    if totals.cache_write_1h_tokens:
        text.append(f" (1h {compact(totals.cache_write_1h_tokens)})", style=colours.written)
    text.append(f"  ·  output {compact(totals.output_tokens)}")
    return text
