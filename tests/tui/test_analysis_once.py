"""The screens that analyse (behaviour, latency) run their analysis once per archive: a theme
change or a repaint presents the same report again, and a covered screen waits until uncovered."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Static

from sniff.analyses.agents import activity as agents
from sniff.analyses.browse import build_archive
from sniff.analyses.latency import measures as latency
from sniff.analyses.latency import timing
from sniff.model import Agent, Dataset, Request, Usage
from sniff.pricing import PriceBook
from sniff.tui import SniffApp
from sniff.tui.screens import behaviour as behaviour_screen
from sniff.tui.screens import latency as latency_screen
from sniff.tui.screens.behaviour import BehaviourScreen
from sniff.tui.screens.findings import FindingsScreen
from sniff.tui.screens.latency import LatencyScreen
from sniff.workspace.batches import Progress
from tests.tui.conftest import settle


def title(app: SniffApp) -> str:
    content = app.screen.query_one("#title", Static).render()
    return content.plain if isinstance(content, Text) else str(content)


def reread(app: SniffApp, dataset: Dataset) -> None:
    """Hand the app a new archive of the same data, as a reload that changed nothing does."""
    total = len(dataset.files)
    app._show(build_archive(dataset, PriceBook(), UTC), Progress(dataset, total, total, 1, 1, 0))


async def test_behaviour_is_analysed_once_per_archive_across_theme_changes(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []

    def counting(*args: Any, **kwargs: Any) -> agents.AgentReport:
        calls.append(1)
        return agents.analyze_agents(*args, **kwargs)

    monkeypatch.setattr(behaviour_screen, "analyze_agents", counting)
    app = new_app()
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, BehaviourScreen) and len(calls) == 1
        shown = title(app)
        app.theme = "textual-light"
        await settle(pilot)
        app.theme = "textual-dark"
        await settle(pilot)
        assert len(calls) == 1 and title(app) == shown  # presented again, not analysed again

        # Covered by another screen, a new archive waits until the screen is uncovered.
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, FindingsScreen)
        reread(app, archive_dataset)
        await settle(pilot)
        assert len(calls) == 1
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, BehaviourScreen)
        assert len(calls) == 2 and title(app) == shown


async def test_latency_is_measured_once_per_archive_and_metric_across_theme_changes(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    metrics: list[str] = []

    def counting(requests: Any, metric: str, *args: Any, **kwargs: Any) -> latency.LatencyReport:
        metrics.append(metric)
        return latency.analyze_latency(requests, metric, *args, **kwargs)

    monkeypatch.setattr(latency_screen, "analyze_latency", counting)
    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LatencyScreen)
        shown = title(app)
        app.theme = "textual-light"
        await settle(pilot)
        for _ in latency.METRICS:  # every metric, and back to the first
            await pilot.press("m")
            await settle(pilot)
        app.theme = "textual-dark"
        await settle(pilot)
        assert metrics == list(latency.METRICS)
        assert title(app) == shown

        reread(app, archive_dataset)  # a new archive: measured again, the shown metric only
        await settle(pilot)
        assert metrics == [*latency.METRICS, latency.METRICS[0]]
        assert title(app) == shown


def test_a_requests_latency_is_end_to_end_as_sniff_latency_measures_it() -> None:
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def request(seconds: float, error: str | None = None) -> Request:
        return Request(
            source="request-log",
            key="r",
            project="p",
            session_id="s",
            agent=Agent.MAIN,
            agent_id="main",
            model="claude-sonnet-4-5-20250929",
            provider="anthropic",
            ended_at=start + timedelta(seconds=seconds),
            started_at=start,
            usage=Usage(input_tokens=10, output_tokens=10),
            file="requests.jsonl",
            line=1,
            error=error,
        )

    assert timing.end_to_end(request(3.5)) == 3.5
    assert timing.end_to_end(request(-1.0)) is None  # clocks disagree
    assert timing.end_to_end(request(3.5, error="overloaded")) is None  # failed: not timed
