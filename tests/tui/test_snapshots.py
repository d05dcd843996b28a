"""Screenshots of every screen over the sample logs, compared with the approved ones.

Run `pytest tests/tui --snapshot-update` after an intended change of the screens, and look at
the report before committing the new SVGs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC
from typing import Any

from sniff.analyses.browse import build_archive
from sniff.model import Dataset
from sniff.pricing import PriceBook
from sniff.tui import SniffApp
from sniff.tui.screens.request import RequestScreen
from sniff.tui.screens.session import SessionScreen
from tests.tui.conftest import GROWN_SESSION, settle

Snap = Callable[..., bool]


def pressing(keys: list[str]) -> Callable[[Any], Awaitable[None]]:
    """Settle, press `keys`, settle again: a key's screen may load in a worker too."""

    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press(*keys)
        await settle(pilot)

    return run


def test_overview(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(100, 30), run_before=settle)


def test_overview_in_80_by_24(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(80, 24), run_before=settle)


def test_overview_in_a_light_theme(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    app = new_app()

    async def light(pilot: Any) -> None:
        pilot.app.theme = "textual-light"
        await settle(pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=light)


def test_project(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(100, 30), run_before=pressing(["enter"]))


def test_session_with_breaks_and_an_idle_gap(
    snap_compare: Snap, new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    expired = next(b for b in archive.breaks.breaks if b.cause == "ttl_expired")

    async def open_session(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.push_screen(SessionScreen(expired.request.session_id))
        await settle(pilot)

    assert snap_compare(new_app(), terminal_size=(120, 30), run_before=open_session)


def test_session_with_its_context_growth(
    snap_compare: Snap, grown_app: Callable[[], SniffApp]
) -> None:
    """A planted session that grew past the point a fresh one pays off, then was compacted."""

    async def open_session(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.push_screen(SessionScreen(GROWN_SESSION))
        await settle(pilot)

    assert snap_compare(grown_app(), terminal_size=(120, 30), run_before=open_session)


def test_request_with_its_prompt_blocks(
    snap_compare: Snap, new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    changed = next(
        b for b in archive.breaks.breaks if b.cause == "prefix_changed" and b.request.blocks
    )

    async def open_request(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.push_screen(RequestScreen(changed.request.key))
        await settle(pilot)

    assert snap_compare(new_app(), terminal_size=(100, 40), run_before=open_request)


def test_findings(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(120, 30), run_before=pressing(["f"]))


def test_help(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    assert snap_compare(new_app(), terminal_size=(100, 40), run_before=pressing(["question_mark"]))


def test_filtered_table(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    assert snap_compare(
        new_app(), terminal_size=(100, 30), run_before=pressing(["slash", *"src/", "enter"])
    )


def test_latency(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    async def open_latency(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)

    assert snap_compare(new_app(), terminal_size=(100, 40), run_before=open_latency)


def test_agents(snap_compare: Snap, new_app: Callable[[], SniffApp]) -> None:
    async def open_agents(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)

    assert snap_compare(new_app(), terminal_size=(100, 40), run_before=open_agents)
