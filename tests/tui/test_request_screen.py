"""What the request and session screens call things: a request by its place in its session (not
sniff's composite key), times with their year, and where a prompt the log lacks can be found."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Static

from sniff.model import Dataset, Request
from sniff.tui import SniffApp
from sniff.tui.screens.request import RequestScreen
from sniff.tui.screens.session import SessionScreen
from sniff.tui.widgets.table import BrowseTable
from tests.tui.conftest import settle


def shown(app: SniffApp, selector: str) -> str:
    content = app.screen.query_one(selector, Static).render()
    return content.plain if isinstance(content, Text) else str(content)


def session_of(dataset: Dataset, source: str) -> list[Request]:
    """The requests of the first session read from this log format, in time order."""
    first = next(r for r in dataset.requests if r.source == source)
    return sorted((r for r in dataset.requests if r.session_id == first.session_id),
                  key=lambda r: r.when)  # fmt: skip


async def test_a_codex_request_is_named_by_its_place_in_its_session(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    session = session_of(archive_dataset, "codex")
    request = session[3]
    assert request.key.startswith("codex:")  # sniff's composite: no name for a person
    app = new_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.push_screen(RequestScreen(request.key))
        await settle(pilot)
        when = request.when.strftime("%Y-%m-%d %H:%M:%S")  # the app is in UTC
        label = f"codex request 4 of {len(session)} in session {request.session_id[:8]}, {when}"
        assert app.screen.sub_title == label
        assert "codex:" not in shown(app, "#usage")
        # where the log holds no prompt and is not Claude Code's, it is only said so
        assert shown(app, "#compare") == "the log does not hold this request's prompt"


async def test_a_claude_code_request_says_where_its_prompt_can_be_found(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    request = session_of(archive_dataset, "claude-code")[1]
    assert not request.blocks
    app = new_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.push_screen(RequestScreen(request.key))
        await settle(pilot)
        note = shown(app, "#compare")
        assert "Claude Code's transcript does not keep the prompt sent to the API" in note
        assert "claude-trace log (npx @mariozechner/claude-trace)" in note
        assert request.key in shown(app, "#usage")  # the API's own id, to search the log by
        assert app.screen.sub_title.startswith("claude-code request 2 of ")


async def test_a_claude_trace_request_shows_its_blocks_not_the_note(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    request = next(r for r in session_of(archive_dataset, "claude-trace") if r.blocks)
    app = new_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.push_screen(RequestScreen(request.key))
        await settle(pilot)
        assert "transcript" not in shown(app, "#compare")
        assert app.screen.query_one(BrowseTable).shown == len(request.blocks)


async def test_the_session_timeline_dates_requests_with_their_year(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    session = session_of(archive_dataset, "codex")
    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.push_screen(SessionScreen(session[0].session_id))
        await settle(pilot)
        table = app.screen.query_one(BrowseTable).table
        times = [str(table.get_cell_at((row, 0))) for row in range(table.row_count)]
        assert times == [r.when.strftime("%Y-%m-%d %H:%M:%S") for r in session]
