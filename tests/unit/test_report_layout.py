"""The report's charts: a true time axis, legends and labels clear of the bars and inside the
drawing, seconds on log axes, round ticks; and short paths in its tables."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree
from datetime import date
from typing import Any

import pytest

from sniff.numbers import axis_seconds
from sniff.present.report import charts
from sniff.present.report.svg import Plot, round_ticks, time_ticks
from sniff.present.report.tables import relative_path

WIDTHS = [charts.WIDE, charts.NARROW]
SVG = "{http://www.w3.org/2000/svg}"


def parsed(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def bars(svg: ElementTree.Element) -> list[tuple[float, float, float, float]]:
    """Each bar's x, y, width and height."""
    return [
        tuple(float(bar.get(key, 0)) for key in ("x", "y", "width", "height"))  # type: ignore[misc]
        for bar in svg.iter(f"{SVG}rect")
        if bar.get("class") == "bar"
    ]


def texts(svg: ElementTree.Element) -> list[tuple[float, float, str]]:
    return [
        (float(t.get("x", 0)), float(t.get("y", 0)), t.text or "") for t in svg.iter(f"{SVG}text")
    ]


def size(svg: ElementTree.Element) -> tuple[float, float]:
    _, _, width, height = (float(v) for v in svg.get("viewBox", "").split())
    return width, height


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("tallest", [0.5, 5.0, 11.0])
def test_the_cost_legend_clears_every_bar(width: int, tallest: float) -> None:
    days = ["2026-02-01", "2026-02-02", "2026-02-09"]
    costs = [{"input": tallest, "output": 1.0}, {"cache_read": 2.0}, {"cache_write_5m": 0.3}]
    svg = parsed(charts.daily_cost(days, costs, width))
    drawn = bars(svg)
    assert len(drawn) == 4  # one segment per day and token class with a cost
    legend_bottom = max(y for _, y, words in texts(svg) if words in {"output", "cache reads"})
    assert legend_bottom < min(y for _, y, _, _ in drawn)
    svg_width, svg_height = size(svg)
    for x, y, w, h in drawn:
        assert x >= 0 and x + w <= svg_width and y >= 0 and y + h <= svg_height


def test_days_sit_at_their_dates_not_side_by_side() -> None:
    """A week's gap is seven times a day's: the axis is time, not a list of days."""
    days = ["2025-06-10", "2025-06-11", "2025-06-18"]
    svg = parsed(charts.daily_cost(days, [{"input": 1.0}] * 3, charts.WIDE))
    first, second, third = sorted(x + w / 2 for x, _, w, _ in bars(svg))
    assert third - second == pytest.approx(7 * (second - first), rel=0.01)


def test_the_hit_rate_joins_only_consecutive_days_and_marks_the_changes() -> None:
    days = ["2026-01-01", "2026-01-02", "2026-01-03", "2026-01-20"]
    svg = parsed(charts.hit_rate(days, [0.5, 0.6, None, 0.9], ["2026-01-20"], charts.WIDE))
    assert len([c for c in svg.iter(f"{SVG}circle") if c.get("class") == "dot"]) == 3
    dashed = [line for line in svg.iter(f"{SVG}polyline") if line.get("stroke-dasharray")]
    assert len(dashed) == 1
    assert "1" in [words for _, _, words in texts(svg)]


@pytest.mark.parametrize(
    ("first", "last", "room", "expected"),
    [
        (date(2026, 1, 1), date(2026, 1, 5), 6, ["2026-01-01", "2026-01-02", "2026-01-03"]),
        (date(2026, 1, 1), date(2026, 1, 5), 3, ["2026-01-01", "2026-01-03", "2026-01-05"]),
        (date(2025, 6, 10), date(2026, 2, 24), 6, ["2025-07-01", "2025-09-01", "2025-11-01"]),
    ],
)
def test_time_ticks_are_round_dates(
    first: date, last: date, room: int, expected: list[str]
) -> None:
    ticks = [tick.isoformat() for tick in time_ticks(first, last, room)]
    assert ticks[: len(expected)] == expected and len(ticks) <= room
    assert all(first <= date.fromisoformat(tick) <= last for tick in ticks)


@pytest.mark.parametrize(
    ("high", "ticks"),
    [(11.0, [0, 5, 10, 15]), (0.3, [0, 0.1, 0.2, 0.3]), (0.0, [0, 1]),
     (96.0, [0, 20, 40, 60, 80, 100])],
)  # fmt: skip
def test_value_ticks_are_round_and_reach_the_top(high: float, ticks: list[float]) -> None:
    assert round_ticks(high) == ticks


def latency_values(misses: float) -> list[float]:
    hits = [0.5 + 0.01 * i for i in range(60)]
    return hits + [misses * (1 + 0.01 * i) for i in range(40)]


@pytest.mark.parametrize(
    ("misses", "expected"),
    [(4.0, {"0.5 s", "1 s", "2 s", "5 s"}), (60.0, {"1 s", "10 s", "100 s"})],
)
def test_a_log_axis_reads_in_seconds(misses: float, expected: set[str]) -> None:
    """Within two decades the ticks are 1, 2 and 5 of each; across more, each decade."""
    values = latency_values(misses)
    svg = parsed(charts.latency([("ttft", "#4a6fa5", values), ("e2e", "#e8a33d", values)], 800))
    shown = {words for _, _, words in texts(svg) if words.endswith((" s", " ms"))}
    assert expected <= shown
    assert misses < 10 or "2 s" not in shown
    assert len(bars(svg)) >= 2  # the hits and the misses each fill bars


def test_every_label_is_inside_the_drawing() -> None:
    for width in WIDTHS:
        svg = parsed(charts.latency([("ttft", "#4a6fa5", latency_values(60.0))], width))
        svg_width, svg_height = size(svg)
        for x, y, _ in texts(svg):
            assert 0 <= x <= svg_width and 0 <= y <= svg_height


def test_a_charts_text_and_title_are_text_never_markup() -> None:
    plot = Plot(400, 200)
    plot.text(10, 10, "<script>alert(1)</script> & 'x'")
    svg = parsed(plot.svg("<b>title</b>"))
    assert [t.text for t in svg.iter(f"{SVG}text")] == ["<script>alert(1)</script> & 'x'"]
    assert svg.find(f"{SVG}title").text == "<b>title</b>"  # type: ignore[union-attr]
    assert svg.find(f".//{SVG}script") is None


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
