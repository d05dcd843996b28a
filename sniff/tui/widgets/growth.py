"""Provides the session screen's context-growth strip: a sparkline of the main chain's prompt
sizes, a line of markers under it (compactions, the crossing), and the flag's computation.

Why the series is bucketed here rather than by Textual: the markers must sit under the bars
they mark, so the sparkline gets exactly one value per column (the largest prompt of the
requests that column stands for) and is as wide as its data.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Sparkline, Static

from sniff.analyses.cache.context_growth import SessionGrowth
from sniff.numbers import compact, plural
from sniff.tui.palette import Palette
from sniff.tui.widgets.shown import ShownStatic

WIDEST = 72
"""The most columns the sparkline takes: it fits an 80-column terminal."""
COMPACTION, CROSSING = "▲", "◆"


def columns(count: int, width: int = WIDEST) -> list[range]:
    """The positions of `count` requests each column stands for: one each, or as evenly as
    whole requests allow when there are more than `width`."""
    shown = min(count, width)
    return [range(i * count // shown, (i + 1) * count // shown) for i in range(shown)]


def bucketed(values: Sequence[int], spans: Sequence[range]) -> list[float]:
    """The largest value of each column's requests."""
    return [float(max(values[i] for i in span)) for span in spans]


def markers(growth: SessionGrowth, spans: Sequence[range], colours: Palette) -> Text:
    """Under each column: a compaction, the crossing, or nothing."""
    compacted = {i for i, point in enumerate(growth.points) if point.compacted}
    crossing = growth.crossing.index if growth.crossing is not None else None
    line = Text()
    for span in spans:
        if crossing in span:
            line.append(CROSSING, style=f"bold {colours.uncached}")
        elif compacted.intersection(span):
            line.append(COMPACTION, style=f"bold {colours.written}")
        else:
            line.append(" ")
    return line


def note(growth: SessionGrowth, colours: Palette) -> Text:
    """What the strip shows, and the flag with its computation (or why there is none)."""
    from sniff.present.terminal.context import computation

    first = growth.points[0].prompt_tokens
    text = Text(
        f"prompt per request (main chain, {plural(len(growth.points), 'request')}): "
        f"{compact(first)} → peak {compact(growth.peak_tokens)}",
        style=colours.muted,
    )
    if growth.compactions:
        text.append(f"  ·  {COMPACTION} {plural(growth.compactions, 'compaction')}")
    if growth.unpriced is not None:
        text.append(f"\nnot judged: {growth.unpriced}", style="italic")
    elif growth.crossing is not None:
        text.append(f"\n{CROSSING} a fresh session was cheaper: ", style=f"bold {colours.uncached}")
        text.append(computation(growth.crossing))
    else:
        text.append("  ·  a fresh session would not have been cheaper", style=colours.muted)
    return text


class GrowthStrip(Vertical):
    """The sparkline, its markers and its note; hidden where there is no series."""

    DEFAULT_CSS = """
    GrowthStrip { height: auto; padding: 0 1; }
    GrowthStrip > Sparkline { height: 2; width: auto; }
    GrowthStrip > #growth-marks { height: 1; }
    GrowthStrip > #growth-note { height: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Sparkline([], id="growth-line")
        yield ShownStatic(id="growth-marks")
        yield ShownStatic(id="growth-note")

    def show(self, growth: SessionGrowth | None, colours: Palette) -> None:
        """Draw `growth` (None: hide the strip)."""
        self.display = growth is not None and bool(growth.points)
        if growth is None or not growth.points:
            return
        spans = columns(len(growth.points))
        line = self.query_one(Sparkline)
        line.styles.width = len(spans)
        line.data = bucketed([point.prompt_tokens for point in growth.points], spans)
        self.query_one("#growth-marks", Static).update(markers(growth, spans, colours))
        self.query_one("#growth-note", Static).update(note(growth, colours))
