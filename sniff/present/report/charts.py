"""Provides the HTML report's charts as inline SVG: cost per day and the cache hit rate on a true
time axis, and each model group's latency.

Why SVG inside the page: the report must open offline and print to PDF as it looks on screen.
An SVG is part of the document, needs no script or network, and stays sharp on paper. Each chart
is drawn twice, for a page and for a phone (`WIDE`, `NARROW`): the wide one shrunk to a phone
would make its text too small to read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date

from sniff.analyses.latency.timing import median
from sniff.numbers import axis_seconds
from sniff.present.report.svg import (
    FONT,
    Plot,
    Scale,
    day_scale,
    day_width,
    legend,
    round_ticks,
    time_axis,
    value_axis,
)

CLASSES = (
    ("input", "uncached input", "#c0504d"),
    ("cache_read", "cache reads", "#4e9a52"),
    ("cache_write_5m", "cache writes 5m", "#e8a33d"),
    ("cache_write_1h", "cache writes 1h", "#b5762a"),
    ("output", "output", "#4a6fa5"),
)
"""Token classes in stacking order, with their colours (chosen to survive greyscale print)."""
WIDE, NARROW = 800, 400
"""Drawing widths: one for a page, one for a phone."""
HEIGHT = 280
MARK = "#c0504d"
LINE = "#4e9a52"
BINS_PER_DECADE = 10


def daily_cost(days: Sequence[str], costs: Sequence[dict[str, float]], width: int) -> str:
    """Cost per day, stacked by token class, each day at its place in time."""
    plot = Plot(width, HEIGHT)
    legend(plot, [(label, colour) for _, label, colour in CLASSES])
    dates = [date.fromisoformat(day) for day in days]
    x = day_scale(plot, dates[0], dates[-1])
    totals = [sum(day.get(key, 0.0) for key, _, _ in CLASSES) for day in costs]
    ticks = round_ticks(max(totals, default=0.0))
    y = plot.y(0.0, ticks[-1])
    value_axis(plot, y, ticks, _dollars)
    bar = max(1.0, min(day_width(x) * 0.8, 24.0))
    for when, day in zip(dates, costs, strict=True):
        bottom = 0.0
        for key, _, colour in CLASSES:
            height = day.get(key, 0.0)
            if height > 0:
                top = bottom + height
                plot.rect(x(when.toordinal()) - bar / 2, y(top), bar, y(bottom) - y(top), colour,
                          "bar", when.isoformat())  # fmt: skip
                bottom = top
    time_axis(plot, x, dates[0], dates[-1])
    return plot.svg("Cost per day by token class")


def hit_rate(
    days: Sequence[str], rates: Sequence[float | None], marks: Sequence[str], width: int
) -> str:
    """The cache hit rate per day at its place in time, consecutive days joined by a line;
    each day `sniff drift` found a change on marked by a dashed line and its number."""
    plot = Plot(width, HEIGHT - 40, top=16)
    dates = [date.fromisoformat(day) for day in days]
    x = day_scale(plot, dates[0], dates[-1])
    y = plot.y(0.0, 100.0)
    value_axis(plot, y, [0, 25, 50, 75, 100], lambda tick: f"{tick:g}%")
    run: list[tuple[float, float]] = []
    for index, (when, rate) in enumerate(zip(dates, rates, strict=True)):
        if rate is None:
            continue
        point = (x(when.toordinal()), y(rate * 100))
        follows = index and (when - dates[index - 1]).days == 1 and rates[index - 1] is not None
        if not follows and len(run) > 1:
            plot.line(run, LINE, stroke_width="1.5")
        run = [*run, point] if follows else [point]
        plot.dot(*point, LINE)
    if len(run) > 1:
        plot.line(run, LINE, stroke_width="1.5")
    for number, day in enumerate(marks, 1):
        at = x(date.fromisoformat(day).toordinal())
        plot.line([(at, plot.top), (at, y(0))], MARK, stroke_dasharray="4 3")
        plot.text(at + 3, plot.top + FONT, str(number), anchor="start", fill=MARK)
    time_axis(plot, x, dates[0], dates[-1])
    return plot.svg("Cache hit rate per day")


def latency(series: Sequence[tuple[str, str, Sequence[float]]], width: int) -> str:
    """Histograms of latencies on one log axis in seconds: the first series as bars, the others
    as outlines over them, each with its median marked by a dashed line."""
    values = [value for _, _, found in series for value in found if value > 0]
    low = 10 ** (math.floor(math.log10(min(values)) * BINS_PER_DECADE) / BINS_PER_DECADE)
    high = 10 ** (math.ceil(math.log10(max(values)) * BINS_PER_DECADE + 1e-9) / BINS_PER_DECADE)
    plot = Plot(width, HEIGHT)
    legend(plot, [(name, colour) for name, colour, _ in series])
    x = plot.x(low, high, log=True)
    counts = [_histogram(found, low, high) for _, _, found in series]
    ticks = round_ticks(max((max(c, default=0) for c in counts), default=1), most=4)
    y = plot.y(0.0, ticks[-1])
    value_axis(plot, y, ticks, lambda tick: f"{tick:g}")
    edges = [x(low * 10 ** (i / BINS_PER_DECADE)) for i in range(len(counts[0]) + 1)]
    for index, ((_, colour, found), bins) in enumerate(zip(series, counts, strict=True)):
        if index == 0:
            for left, right, count in zip(edges, edges[1:], bins, strict=False):
                if count:
                    plot.rect(left, y(count), right - left, y(0) - y(count), colour, "bar")
        else:
            outline = [(edges[0], y(0))]
            for left, right, count in zip(edges, edges[1:], bins, strict=False):
                outline += [(left, y(count)), (right, y(count))]
            plot.line([*outline, (edges[-1], y(0))], colour, stroke_width="2", class_="outline")
        middle = median(found)  # the latency table's p50
        plot.line([(x(middle), plot.top), (x(middle), y(0))], colour, stroke_dasharray="4 3")
    _seconds_axis(plot, x, low, high)
    return plot.svg("Latency distribution")


def _histogram(values: Sequence[float], low: float, high: float) -> list[int]:
    """Counts in bins of a tenth of a decade from `low` to `high`."""
    bins = [0] * round(math.log10(high / low) * BINS_PER_DECADE)
    for value in values:
        if value > 0:
            index = int(math.log10(value / low) * BINS_PER_DECADE)
            bins[min(max(index, 0), len(bins) - 1)] += 1
    return bins


def _seconds_axis(plot: Plot, x: Scale, low: float, high: float) -> None:
    """Ticks at 1, 2 and 5 times each power of ten within two decades, else at each power."""
    baseline = plot.height - plot.bottom
    plot.line([(plot.left, baseline), (plot.width - plot.right, baseline)], "#888")
    steps = (1, 2, 5) if math.log10(high / low) < 2 else (1,)
    for power in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for step in steps:
            tick = step * 10.0**power
            if low <= tick <= high:
                at = x(tick)
                plot.line([(at, baseline), (at, baseline + 4)], "#888")
                plot.text(at, baseline + FONT + 6, axis_seconds(tick), fill="#555")
    plot.text(plot.width - plot.right, plot.height - 4, "seconds (log scale)", anchor="end",
              fill="#555")  # fmt: skip


def _dollars(value: float) -> str:
    return f"${value:,.0f}" if value >= 10 or value == 0 else f"${value:g}"
