"""The session screen's context-growth strip: the sparkline, its markers and the flag."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Sparkline, Static

from sniff.analyses.cache.context_growth import context_growth
from sniff.model import Dataset
from sniff.pricing import PriceBook
from sniff.tui import SniffApp
from sniff.tui.screens.session import SessionScreen
from sniff.tui.widgets.growth import COMPACTION, CROSSING, GrowthStrip, columns
from tests.tui.conftest import GROWN_PROMPTS, GROWN_SESSION, settle


def plain(app: SniffApp, selector: str) -> str:
    content = app.screen.query_one(selector, Static).render()
    return content.plain if isinstance(content, Text) else str(content)


def test_columns_stand_for_every_request_once() -> None:
    assert columns(3) == [range(0, 1), range(1, 2), range(2, 3)]
    spans = columns(150, 72)
    assert len(spans) == 72 and spans[0].start == 0 and spans[-1].stop == 150
    assert all(a.stop == b.start for a, b in zip(spans, spans[1:], strict=False))


async def test_the_session_screen_draws_the_prompt_sizes_with_compaction_and_crossing(
    grown_app: Callable[[], SniffApp], grown_dataset: Dataset
) -> None:
    (growth,) = context_growth(grown_dataset.requests, PriceBook()).sessions
    assert growth.crossing is not None and growth.crossing.index == 1
    assert [point.prompt_tokens for point in growth.points] == GROWN_PROMPTS
    app = grown_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(SessionScreen(GROWN_SESSION))
        await settle(pilot)
        line = app.screen.query_one(Sparkline)
        assert list(line.data or []) == [float(p.prompt_tokens) for p in growth.points]
        marks = plain(app, "#growth-marks")
        assert marks.index(CROSSING) == growth.crossing.index
        compacted = [i for i, point in enumerate(growth.points) if point.compacted]
        assert [i for i, mark in enumerate(marks) if mark == COMPACTION] == compacted
        note = " ".join(plain(app, "#growth-note").split())
        assert f"from request #{growth.crossing.index + 1}" in note
        assert "a fresh session was cheaper" in note and "1 compaction" in note


async def test_a_session_that_did_not_grow_says_so(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    report = context_growth(archive_dataset.requests, PriceBook())
    quiet = next(s for s in report.sessions if s.crossing is None and s.unpriced is None)
    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(SessionScreen(quiet.session_id))
        await settle(pilot)
        assert app.screen.query_one(GrowthStrip).display
        assert "would not have been cheaper" in plain(app, "#growth-note")
        assert CROSSING not in plain(app, "#growth-marks")
