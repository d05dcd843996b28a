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
    from sniff.analyses.breaks import CauseTotals
    from sniff.analyses.latency import LatencyReport

CLASSES = (
    ("input", "uncached input", "#c0504d"),
    ("cache_read", "cache reads", "#4e9a52"),
    ("cache_write_5m", "cache writes 5m", "#e8a33d"),
    ("cache_write_1h", "cache writes 1h", "#b5762a"),
    ("output", "output", "#4a6fa5"),
)
"""Token classes in stacking order, with their colours (chosen to survive greyscale print)."""
WIDTH, HEIGHT = 8.0, 3.0


def _figure(height: float = HEIGHT) -> tuple[Any, Any]:
    import matplotlib

    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: searchable, small
    matplotlib.rcParams["svg.hashsalt"] = "sniff"  # the same report gives the same SVG
    matplotlib.rcParams["font.size"] = 9
    from matplotlib.figure import Figure

    figure = Figure(figsize=(WIDTH, height))
    axes = figure.add_subplot()
    axes.spines[["top", "right"]].set_visible(False)
    return figure, axes


def _svg(figure: Any) -> str:
    figure.tight_layout()
    out = io.StringIO()
    figure.savefig(out, format="svg", metadata={"Date": None})
    text = out.getvalue()
    text = text[text.index("<svg") :]  # drop the XML prolog and DOCTYPE: it sits inside HTML
    # and the RDF metadata block, which names schema URLs a reader might take for links
    start, end = text.find("<metadata>"), text.find("</metadata>")
    return text[:start] + text[end + len("</metadata>") :] if start >= 0 < end else text


def daily_cost(days: Sequence[str], costs: Sequence[dict[str, float]]) -> str:
    """Cost per day, stacked by token class."""
    figure, axes = _figure()
    positions = range(len(days))
    bottom = [0.0] * len(days)
    for key, label, colour in CLASSES:
        heights = [day.get(key, 0.0) for day in costs]
        axes.bar(positions, heights, bottom=bottom, label=label, color=colour, width=0.8)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    axes.set_ylabel("USD")
    _day_ticks(axes, days)
    axes.legend(loc="upper left", fontsize=7, frameon=False, ncols=5)
    return _svg(figure)


def hit_rate(days: Sequence[str], rates: Sequence[float | None]) -> str:
    """Cache hit rate per day (token-weighted)."""
    figure, axes = _figure(2.4)
    points = [(i, r * 100) for i, r in enumerate(rates) if r is not None]
    if points:
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", color="#4e9a52")
    axes.set_ylim(0, 100)
    axes.set_ylabel("hit rate (%)")
    _day_ticks(axes, days)
    return _svg(figure)


def breaks_by_cause(rows: Sequence[CauseTotals]) -> str:
    """What each cause of faults cost (expected breaks are left out)."""
    shown = [row for row in rows if row.faults]
    figure, axes = _figure(max(1.6, 0.35 * len(shown) + 0.8))
    labels = [f"{row.key} ({row.faults})" for row in shown]
    axes.barh(range(len(shown)), [row.fault_cost_usd for row in shown], color="#c0504d")
    axes.set_yticks(range(len(shown)), labels)
    axes.invert_yaxis()
    axes.set_xlabel("USD paid to rebuild cached prefixes")
    if not shown:
        axes.text(0.5, 0.5, "no cache breaks", ha="center", va="center", transform=axes.transAxes)
    return _svg(figure)


def latency_histogram(report: LatencyReport) -> str:
    """The distribution on a log axis, each peak marked at its place."""
    from sniff.present.formats import seconds
    from sniff.present.latency_view import NAMES

    figure, axes = _figure()
    bins = report.peaks.bins
    lows = [low for low, _, _ in bins]
    widths = [high - low for low, high, _ in bins]
    axes.bar(lows, [count for _, _, count in bins], width=widths, align="edge", color="#4a6fa5")
    axes.set_xscale("log")
    axes.set_xlabel(f"{NAMES[report.metric]} (seconds, log scale)")
    axes.set_ylabel("requests")
    top = max((count for _, _, count in bins), default=1)
    for index, item in enumerate(report.explained, start=1):
        where = item.peak.location
        axes.axvline(where, color="#c0504d", linestyle="--", linewidth=1)
        hits = "" if item.hit_share is None else f", {item.hit_share * 100:.0f}% hits"
        axes.text(where, top * (1.02 - 0.1 * (index - 1)), f" peak {index}: {seconds(where)}{hits}")
    return _svg(figure)


def _day_ticks(axes: Any, days: Sequence[str]) -> None:
    step = max(1, math.ceil(len(days) / 12))
    ticks = list(range(0, len(days), step))
    axes.set_xticks(ticks, [days[i] for i in ticks], rotation=30, ha="right", fontsize=7)
