"""Provides table cells: right-aligned figures, the cache bar, marks for breaks and gaps."""

from __future__ import annotations

from rich.text import Text

from sniff.model import Usage
from sniff.numbers import compact, money, percent
from sniff.tui.palette import Palette

BAR = "█"


def figure(text: str, style: str = "") -> Text:
    """A right-aligned cell."""
    return Text(text, style=style, justify="right")


def usd(value: float | None, colours: Palette | None = None) -> Text:
    """Dollars, or `unpriced` (dimmed) when the model has no known price."""
    if value is None:
        return figure("unpriced", f"italic {colours.muted}" if colours else "italic")
    return figure(money(value))


def count(value: int) -> Text:
    """A token count, compact."""
    return figure(compact(value))


def rate(value: float | None) -> Text:
    """A hit rate."""
    return figure(percent(value))


def cache_bar(usage: Usage, colours: Palette, width: int = 12) -> Text:
    """The prompt as one bar: read from cache, written to it, uncached, in proportion."""
    total = usage.prompt_tokens
    text = Text()
    if not total:
        return Text("·" * width, style=colours.muted)
    parts = [
        (usage.cache_read_tokens, colours.bar_read),
        (usage.cache_write_tokens, colours.bar_written),
        (usage.input_tokens, colours.bar_uncached),
    ]
    widths = _apportion([share for share, _ in parts], total, width)
    for cells, (_, colour) in zip(widths, parts, strict=True):
        text.append(BAR * cells, style=colour)
    return text


def _apportion(shares: list[int], total: int, width: int) -> list[int]:
    """Whole cells per share summing to `width`; any non-zero share gets at least one."""
    exact = [share * width / total for share in shares]
    cells = [
        max(1, round(value)) if share else 0 for value, share in zip(exact, shares, strict=True)
    ]
    while sum(cells) > width:
        largest = cells.index(max(cells))
        cells[largest] -= 1
    while sum(cells) < width:
        largest = exact.index(max(exact))
        cells[largest] += 1
        exact[largest] = -1.0
    return cells
