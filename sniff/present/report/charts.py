"""Provides the HTML report's charts as inline SVG, drawn with matplotlib.

Why SVG drawn here rather than a chart script in the page: the report must open offline and
print to PDF as it looks on screen. An SVG is part of the document, needs no script or network,
and stays sharp on paper. matplotlib is imported only when a report is written.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from sniff.analyses.cache.breaks import CauseTotals
    from sniff.analyses.latency.measures import LatencyReport

CLASSES = (
    ("input", "uncached input", "#c0504d"),
    ("cache_read", "cache reads", "#4e9a52"),
    ("cache_write_5m", "cache writes 5m", "#e8a33d"),
    ("cache_write_1h", "cache writes 1h", "#b5762a"),
    ("output", "output", "#4a6fa5"),
)
"""Token classes in stacking order, with their colours (chosen to survive greyscale print)."""
WIDE, NARROW = 8.0, 4.2
"""Figure widths in inches: one drawing for a page, one for a phone, where the wide one
shrunk would make its text too small to read."""
HEIGHT = 3.0


def _figure(width: float, height: float = HEIGHT) -> tuple[Figure, Any]:
    import matplotlib

    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, small
    matplotlib.rcParams["svg.hashsalt"] = "sniff"  # the same report gives the same SVG
    matplotlib.rcParams["font.size"] = 9
    from matplotlib.figure import Figure

    # constrained: the layout makes room for everything drawn outside the axes (the legend)
    figure = Figure(figsize=(width, height), layout="constrained")
    axes = figure.add_subplot()
    axes.spines[["top", "right"]].set_visible(False)
    return figure, axes


def svg(figure: Figure) -> str:
    """The figure as an SVG element to put inside an HTML page."""
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    text = text[text.index("<svg") :]  # drop the XML prolog and DOCTYPE: it sits inside HTML
    # and the RDF metadata block, which names schema URLs a reader might take for links
    start, end = text.find("<metadata>"), text.find("</metadata>")
    return text[:start] + text[end + len("</metadata>") :] if start >= 0 < end else text


def daily_cost(days: Sequence[str], costs: Sequence[dict[str, float]], width: float) -> Figure:
    """Cost per day, stacked by token class; the legend above the axes, clear of every bar."""
    figure, axes = _figure(width)
    positions = range(len(days))
    bottom = [0.0] * len(days)
    for key, label, colour in CLASSES:
        heights = [day.get(key, 0.0) for day in costs]
        axes.bar(positions, heights, bottom=bottom, label=label, color=colour, width=0.8)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    axes.set_ylabel("USD")
    _day_ticks(axes, days, width)
    columns = len(CLASSES) if width >= WIDE else 3
    figure.legend(loc="outside upper center", fontsize=8, frameon=False, ncols=columns)
    return figure


def hit_rate(days: Sequence[str], rates: Sequence[float | None], width: float) -> Figure:
    """Cache hit rate per day (token-weighted)."""
    figure, axes = _figure(width, 2.4)
    points = [(i, r * 100) for i, r in enumerate(rates) if r is not None]
    if points:
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", color="#4e9a52")
    axes.set_ylim(0, 100)
    axes.set_ylabel("hit rate (%)")
    _day_ticks(axes, days, width)
    return figure


def drift_hit_rate(
    weeks: Sequence[str], rates: Sequence[float | None], marks: Sequence[str], width: float
) -> Figure:
    """Cache hit rate per ISO week (token-weighted), each week holding a change point of
    `sniff drift` marked by a dashed line and its event's number."""
    figure, axes = _figure(width, 2.4)
    points = [(i, r * 100) for i, r in enumerate(rates) if r is not None]
    if points:
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", color="#4e9a52")
    for number, week in enumerate(marks, 1):
        if week in weeks:
            at = weeks.index(week)
            axes.axvline(at, color="#c0504d", linestyle="--", linewidth=1)
            axes.text(at, 98, f" {number}", color="#c0504d", va="top", fontsize=8)
    axes.set_ylim(0, 100)
    axes.set_ylabel("hit rate (%)")
    _day_ticks(axes, weeks, width)
    return figure


def breaks_by_cause(rows: Sequence[CauseTotals], width: float) -> Figure:
    """What each cause of faults cost (expected breaks are left out)."""
    shown = [row for row in rows if row.faults]
    figure, axes = _figure(width, max(1.6, 0.35 * len(shown) + 0.8))
    labels = [f"{row.key} ({row.faults})" for row in shown]
    axes.barh(range(len(shown)), [row.fault_cost_usd for row in shown], color="#c0504d")
    axes.set_yticks(range(len(shown)), labels)
    axes.invert_yaxis()
    axes.set_xlabel("USD paid to rebuild cached prefixes")
    if not shown:
        axes.text(0.5, 0.5, "no cache breaks", ha="center", va="center", transform=axes.transAxes)
    return figure


def latency_histogram(report: LatencyReport, width: float) -> Figure:
    """The distribution on a log axis in seconds, each peak marked at its place and labelled
    in a band kept free above the tallest bar."""
    from matplotlib.transforms import blended_transform_factory

    from sniff.numbers import seconds
    from sniff.present.terminal.latency import NAMES

    figure, axes = _figure(width)
    bins = report.peaks.bins
    lows = [low for low, _, _ in bins]
    widths = [high - low for low, high, _ in bins]
    axes.bar(lows, [count for _, _, count in bins], width=widths, align="edge", color="#4a6fa5")
    _seconds_axis(axes, min(lows, default=1.0), max((high for _, high, _ in bins), default=1.0))
    axes.set_xlabel(f"{NAMES[report.metric]} (log scale)")
    axes.set_ylabel("requests")
    peaks = report.explained
    band = LABEL_LINE * len(peaks)
    top = max((count for _, _, count in bins), default=1)
    axes.set_ylim(0, top / (1 - band - LABEL_LINE / 2) if peaks else None)
    low, high = (math.log(limit) for limit in axes.get_xlim())
    place = blended_transform_factory(axes.transData, axes.transAxes)
    for index, item in enumerate(peaks, start=1):
        where = item.peak.location
        axes.axvline(where, color="#c0504d", linestyle="--", linewidth=1)
        hits = "" if item.hit_share is None else f", {item.hit_share * 100:.0f}% hits"
        right = math.log(where) > (low + high) / 2  # label on the side with room
        axes.text(
            where,
            1 - LABEL_LINE * (index - 1),
            f" peak {index}: {seconds(where)}{hits} ",
            transform=place,
            ha="right" if right else "left",
            va="top",
            fontsize=8,
        )
    return figure


LABEL_LINE = 0.1
"""The height of one peak's label, as a fraction of the axes."""


def _seconds_axis(axes: Any, low: float, high: float) -> None:
    """A log axis whose ticks read `0.1 s`, `1 s`, `10 s` (and 2 s, 5 s within two decades)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    from sniff.numbers import axis_seconds

    axes.set_xscale("log")
    narrow = high <= 0 or low <= 0 or math.log10(high / low) < 2
    axes.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0) if narrow else (1.0,)))
    axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: axis_seconds(value)))
    axes.xaxis.set_minor_formatter(NullFormatter())


def _day_ticks(axes: Any, days: Sequence[str], width: float) -> None:
    step = max(1, math.ceil(len(days) / (1.5 * width)))
    ticks = list(range(0, len(days), step))
    axes.set_xticks(ticks, [days[i] for i in ticks], rotation=30, ha="right", fontsize=8)
