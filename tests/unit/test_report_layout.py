"""The report's layout: charts whose labels clear the bars, seconds on log axes, short paths."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from datetime import UTC, timedelta
from typing import Any

import pytest

from sniff.analyses.latency.measures import analyze_latency
from sniff.numbers import axis_seconds
from sniff.present.report import charts
from sniff.present.report.tables import relative_path
from tests.unit.test_latency import START, call

WIDTHS = [charts.WIDE, charts.NARROW]


def drawn(figure: Any) -> Any:
    """The renderer of `figure`, laid out as it is saved."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def bars(axes: Any, renderer: Any) -> Iterator[Any]:
    for patch in axes.patches:
        box = patch.get_window_extent(renderer)
        if box.height > 0 and box.width > 0:
            yield box


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("tallest", [0, 5, 11])
def test_the_cost_legend_clears_every_bar(width: float, tallest: int) -> None:
    days = [f"2026-03-{day:02d}" for day in range(1, 13)]
    costs = [{"input": 0.2, "cache_read": 0.1, "output": 0.1} for _ in days]
    costs[tallest] = {"input": 1.0, "cache_write_1h": 2.0, "output": 0.5}
    figure = charts.daily_cost(days, costs, width)
    renderer = drawn(figure)
    (legend,) = figure.legends
    box = legend.get_window_extent(renderer)
    (axes,) = figure.axes
    found = list(bars(axes, renderer))
    assert len(found) >= len(days)
    assert not [bar for bar in found if bar.overlaps(box)]
    assert figure.bbox.x0 <= box.x0 and box.x1 <= figure.bbox.x1 and box.y1 <= figure.bbox.y1


def latency(hits: float = 0.3, misses: float = 4.0, seed: int = 7) -> Any:
    """Two populations: cache hits near `hits` seconds beside misses near `misses`."""
    rng = random.Random(seed)
    requests = []
    for index in range(600):
        hit = index % 5 < 2
        ttft = rng.lognormvariate(0, 0.2) * (hits if hit else misses)
        started = START + timedelta(seconds=30 * index)
        read = 9_000 if hit else 0
        requests.append(call(started, ttft, ttft + 2, read=read, key=f"r{index}"))
    return analyze_latency(requests, "ttft", UTC)


@pytest.mark.parametrize("width", WIDTHS)
def test_peak_labels_sit_above_the_bars_and_inside_the_figure(width: float) -> None:
    report = latency()
    assert len(report.explained) >= 2
    figure = charts.latency_histogram(report, width)
    renderer = drawn(figure)
    (axes,) = figure.axes
    labels = [text.get_window_extent(renderer) for text in axes.texts]
    assert len(labels) == len(report.explained)
    found = list(bars(axes, renderer))
    for index, label in enumerate(labels):
        assert not [bar for bar in found if bar.overlaps(label)]
        assert not [other for other in labels[index + 1 :] if other.overlaps(label)]
        assert figure.bbox.x0 <= label.x0 and label.x1 <= figure.bbox.x1


@pytest.mark.parametrize(
    ("misses", "expected"),
    [(4.0, {"0.2 s", "0.5 s", "1 s", "2 s", "5 s"}), (60.0, {"0.1 s", "1 s", "10 s", "100 s"})],
)
def test_a_log_axis_reads_in_seconds(misses: float, expected: set[str]) -> None:
    """Within two decades the ticks are 1, 2 and 5 of each; across more, each decade."""
    figure = charts.latency_histogram(latency(misses=misses), charts.WIDE)
    drawn(figure)
    (axes,) = figure.axes
    shown = {label.get_text() for label in axes.get_xticklabels()} - {""}
    assert expected <= shown
    assert all(text.endswith((" s", " ms")) for text in shown), shown
    assert misses < 10 or "2 s" not in shown


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.001, "1 ms"), (0.005, "5 ms"), (0.01, "0.01 s"), (0.1, "0.1 s"), (0.5, "0.5 s"),
     (1.0, "1 s"), (2.0, "2 s"), (10.0, "10 s"), (1000.0, "1,000 s"), (1.5, "1.5 s")],
)  # fmt: skip
def test_axis_seconds(value: float, text: str) -> None:
    assert axis_seconds(value) == text


def test_a_path_reads_from_the_deepest_root_holding_it(tmp_path: Any) -> None:
    logs = tmp_path / "logs"
    inner = logs / "team"
    log = inner / "p" / "a.jsonl"
    assert relative_path(str(log), [str(logs)]) == os.path.join("team", "p", "a.jsonl")
    assert relative_path(str(log), [str(logs), str(inner)]) == os.path.join("p", "a.jsonl")
    assert relative_path(str(log), [str(log)]) == "a.jsonl"  # a root that is the file itself
    assert relative_path("elsewhere/b.jsonl", [str(logs)]) == "elsewhere/b.jsonl"
    assert relative_path("logs-x/b.jsonl", ["logs"]) == "logs-x/b.jsonl"  # not a prefix match
