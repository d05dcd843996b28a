"""Figures are never cut: at 80 and 120 columns every figure a table shows is whole on the screen
(it reads as the value in the data), and the columns that do not fit are left out whole."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC

import pytest

from sniff.analyses.browse import build_archive
from sniff.analyses.latency.timing import end_to_end
from sniff.model import Dataset, Request
from sniff.numbers import compact, money, percent
from sniff.pricing import PriceBook
from sniff.tui import SniffApp
from sniff.tui.screens.session import SessionScreen
from sniff.tui.widgets.fit import fit_columns
from sniff.tui.widgets.table import BrowseTable, Column
from tests.tui.conftest import settle

SIZES = [(80, 24), (120, 40)]

Figures = Callable[[str], dict[str, str]]
"""A row's key to the figures it must show, by column label."""


def screen_lines(app: SniffApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def whole(value: str, line: str) -> bool:
    """The value on the line, not a part of a longer one, nor cut at its end."""
    return re.search(rf"(?<!\S){re.escape(value)}(?!\S)", line) is not None


def check_figures(app: SniffApp, figures: Figures) -> list[str]:
    """Every figure of every row on screen is whole; returns the labels of the columns shown."""
    table = app.screen.query_one(BrowseTable).table
    lines = screen_lines(app)
    header = lines[table.region.y]
    shown = [str(column.label).rstrip(" ▼▲") for column in table.columns.values()]
    assert all(label in header for label in shown), header  # shown columns are shown whole
    visible = min(table.row_count, table.region.height - table.header_height - 1)
    assert visible > 0
    for row in range(visible):
        key = table.coordinate_to_cell_key((row, 0)).row_key.value
        line = lines[table.region.y + table.header_height + row]
        for label, value in figures(str(key)).items():
            if label in shown:
                assert whole(value, line), (label, value, line)
    return shown


def request_figures(requests: dict[str, Request]) -> Figures:
    """A session timeline's figures, from the requests themselves."""

    def figures(key: str) -> dict[str, str]:
        request = requests.get(key)
        if request is None:  # an idle gap's row
            return {}
        usage, seconds = request.usage, end_to_end(request)
        return {
            "cost": money(request.cost.total_usd if request.cost else None),
            "uncached": compact(usage.input_tokens),
            "read": compact(usage.cache_read_tokens),
            "written": compact(usage.cache_write_tokens),
            "output": compact(usage.output_tokens),
            "latency": "–" if seconds is None else f"{seconds:.1f}s",
        }

    return figures


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("source", ["codex", "ttl_expired"])
async def test_a_session_timeline_shows_every_figure_whole(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset, size: tuple[int, int], source: str
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    if source == "codex":  # the widest figures: output in the thousands, reads in the tens of k
        session = next(r for r in archive_dataset.requests if r.source == "codex").session_id
    else:  # an idle gap's row among the requests
        session = next(b for b in archive.breaks.breaks if b.cause == source).request.session_id
    requests = {entry.request.key: entry.request for entry in archive.timeline(session)}
    app = new_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        app.push_screen(SessionScreen(session))
        await settle(pilot)
        shown = check_figures(app, request_figures(requests))
        assert {"time", "cost", "break"} <= set(shown)
        if size[0] >= 120:
            assert {"uncached", "read", "written", "output"} <= set(shown)


@pytest.mark.parametrize("size", SIZES)
async def test_the_projects_show_every_figure_whole(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset, size: tuple[int, int]
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    projects = {row.project: row for row in archive.projects}

    def figures(key: str) -> dict[str, str]:
        totals = projects[key].totals
        return {
            "sessions": compact(projects[key].sessions),
            "requests": compact(totals.requests),
            "cost": money(totals.cost_usd),
            "hit rate": percent(totals.hit_rate),
            "tokens": compact(totals.total_tokens),
        }

    app = new_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert "cost" in check_figures(app, figures)


def test_figures_go_whole_text_narrows_and_the_least_important_go_first() -> None:
    columns = [
        Column("name", numeric=False),
        Column("when", numeric=False, narrow=False),
        Column("cost", priority=1),
        Column("tokens"),
        Column("note", numeric=False),
    ]
    natural = [30, 16, 8, 10, 40]
    # everything fits: the last text column as wide as its content
    assert fit_columns(columns, natural, 200, 1) == [(0, 30), (1, 16), (2, 8), (3, 10), (4, None)]
    # text narrows before any column goes; the name is narrowed, the time is not
    assert fit_columns(columns, natural, 80, 1) == [(0, 24), (1, 16), (2, 8), (3, 10), (4, None)]
    # then the rightmost of the lowest priority goes first: the note, then the tokens
    assert fit_columns(columns, natural, 60, 1) == [(0, 18), (1, 16), (2, 8), (3, 10)]
    assert fit_columns(columns, natural, 45, 1) == [(0, 15), (1, 16), (2, 8)]
