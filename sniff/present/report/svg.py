"""Provides the few SVG shapes the report's charts are made of: a plot area, its scales, axes
with round ticks, bars, lines and marks.

Why drawn here and not by a plotting library: the report's charts are bars and lines on a time
axis, which SVG says in a handful of elements. matplotlib drew the same charts in 175 ms each
after a 0.4 s import, most of a cold report's time; the charting libraries that draw faster
place bars in categories, not on a time axis. Every text is escaped (`shown.html_text`), the
same numbers give the same bytes, and text stays text (searchable, sharp in print).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from sniff.shown import html_text

FONT = 12
"""Text size in drawing units; a narrow drawing is shown at about its own size on a phone."""
STEPS = (1, 2, 5)


@dataclass(frozen=True, slots=True)
class Scale:
    """A linear (or log10) map from data values to drawing units."""

    low: float
    high: float
    start: float
    end: float
    log: bool = False

    def __call__(self, value: float) -> float:
        low, high, value = (
            (math.log10(v) for v in (self.low, self.high, value))
            if self.log
            else (self.low, self.high, value)
        )
        share = 0.5 if high == low else (value - low) / (high - low)
        return round(self.start + share * (self.end - self.start), 2)


@dataclass(slots=True)
class Plot:
    """One chart: its size, margins, and the elements drawn so far."""

    width: int
    height: int
    left: int = 56
    right: int = 14
    top: int = 30
    bottom: int = 40
    parts: list[str] = field(default_factory=list)

    def x(self, low: float, high: float, *, log: bool = False) -> Scale:
        return Scale(low, high, self.left, self.width - self.right, log)

    def y(self, low: float, high: float) -> Scale:
        return Scale(low, high, self.height - self.bottom, self.top)

    def text(self, x: float, y: float, words: str, anchor: str = "middle", **extra: str) -> None:
        attributes = _attributes(extra)
        self.parts.append(
            f"<text x='{x:g}' y='{y:g}' text-anchor='{anchor}'{attributes}>"
            f"{html_text(words)}</text>"
        )

    def rect(
        self, x: float, y: float, width: float, height: float, colour: str, kind: str, at: str = ""
    ) -> None:
        """A bar; `at` names the value it stands at (a day), for a reader of the drawing."""
        where = f" data-at='{html_text(at)}'" if at else ""
        self.parts.append(
            f"<rect class='{kind}'{where} x='{x:g}' y='{y:g}' width='{max(width, 0.5):g}' "
            f"height='{max(height, 0):g}' fill='{colour}'/>"
        )

    def line(self, points: Sequence[tuple[float, float]], colour: str, **extra: str) -> None:
        path = " ".join(f"{x:g},{y:g}" for x, y in points)
        attributes = "".join(f" {key.replace('_', '-')}='{value}'" for key, value in extra.items())
        self.parts.append(f"<polyline points='{path}' fill='none' stroke='{colour}'{attributes}/>")

    def dot(self, x: float, y: float, colour: str) -> None:
        self.parts.append(f"<circle class='dot' cx='{x:g}' cy='{y:g}' r='3' fill='{colour}'/>")

    def svg(self, title: str) -> str:
        """The drawing, scaled to its box by the page (`viewBox`), titled for screen readers."""
        return (
            f"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 {self.width} {self.height}' "
            f"role='img' font-size='{FONT}' font-family='system-ui, sans-serif'>"
            f"<title>{html_text(title)}</title>{''.join(self.parts)}</svg>"
        )


def _attributes(extra: dict[str, str]) -> str:
    """`stroke_width="2"` as ` stroke-width='2'`; `class_` as `class`."""
    return "".join(
        f" {key.rstrip('_').replace('_', '-')}='{value}'" for key, value in extra.items()
    )


def round_ticks(high: float, most: int = 5) -> list[float]:
    """0 and round steps (1, 2 or 5 times a power of ten) up to at least `high`."""
    if high <= 0:
        return [0.0, 1.0]
    for power in range(math.floor(math.log10(high / most)), 40):
        for step in (s * 10.0**power for s in STEPS):
            count = math.ceil(high / step - 1e-9)
            if count <= most:
                return [round(i * step, 12) for i in range(count + 1)]
    return [0.0, high]


def value_axis(
    plot: Plot, scale: Scale, ticks: Sequence[float], label: Callable[[float], str]
) -> None:
    """Grid lines across the plot at each tick, labelled on the left."""
    for tick in ticks:
        y = scale(tick)
        plot.line([(plot.left, y), (plot.width - plot.right, y)], "#e4e4e4")
        plot.text(plot.left - 6, y + FONT / 3, label(tick), anchor="end", fill="#555")


def time_ticks(first: date, last: date, room: float) -> list[date]:
    """Round dates between `first` and `last` (month starts, or every n days), at most one
    per `room` drawing units of a 1-day-per-unit axis scaled to fit."""
    days = (last - first).days + 1
    most = max(2, int(room))
    for step in (1, 2, 7, 14):
        if days / step <= most:
            ticks = [first + timedelta(days=d) for d in range(0, days, step)]
            return ticks
    for months in (1, 2, 3, 6, 12, 24, 60):
        ticks = _month_starts(first, last, months)
        if len(ticks) <= most:
            return ticks or [first]
    return [first, last]


def _month_starts(first: date, last: date, every: int) -> list[date]:
    found: list[date] = []
    month = first.year * 12 + first.month - 1
    if first.day != 1:
        month += 1
    while True:
        day = date(month // 12, month % 12 + 1, 1)
        if day > last:
            return found
        if (month % 12) % every == 0 or every == 1:
            found.append(day)
        month += 1


def time_axis(plot: Plot, scale: Scale, first: date, last: date) -> None:
    """Dates under the plot, at their true place, in ISO form (a month start reads `2026-03`)."""
    width = plot.width - plot.left - plot.right
    room = width / (FONT * 6.5)
    baseline = plot.height - plot.bottom
    plot.line([(plot.left, baseline), (plot.width - plot.right, baseline)], "#888")
    ticks = time_ticks(first, last, room)
    monthly = len(ticks) > 1 and all(tick.day == 1 for tick in ticks)
    for tick in ticks:
        x = scale(tick.toordinal())
        plot.line([(x, baseline), (x, baseline + 4)], "#888")
        words = f"{tick:%Y-%m}" if monthly else f"{tick:%Y-%m-%d}"
        plot.text(x, baseline + FONT + 6, words, fill="#555")


def day_scale(plot: Plot, first: date, last: date) -> Scale:
    """Days on the x axis, half a day of room on either side of the first and the last."""
    return plot.x(first.toordinal() - 0.5, last.toordinal() + 0.5)


def day_width(scale: Scale) -> float:
    """How wide one day is drawn."""
    return abs(scale(1.0) - scale(0.0))


def legend(plot: Plot, entries: Sequence[tuple[str, str]]) -> None:
    """Colour swatches and names in a row above the plot, wrapping when the row is full."""
    x, y = float(plot.left), FONT + 2.0
    for name, colour in entries:
        width = 14 + len(name) * FONT * 0.55 + 12
        if x + width > plot.width - plot.right and x > plot.left:
            x, y = float(plot.left), y + FONT + 4
        plot.parts.append(
            f"<rect x='{x:g}' y='{y - FONT + 2:g}' width='10' height='10' fill='{colour}'/>"
        )
        plot.text(x + 14, y, name, anchor="start")
        x += width
    plot.top = max(plot.top, int(y + 10))
