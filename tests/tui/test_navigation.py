"""The browser driven by keys: every screen reached, and what each one shows checked."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC

from rich.text import Text
from textual.widgets import DataTable, Markdown, Static

from sniff.analyses.browse import build_archive
from sniff.ingest.record import Prompts
from sniff.model import Dataset
from sniff.numbers import money, percent
from sniff.pricing import PriceBook
from sniff.tui import SniffApp, make_app
from sniff.tui.palette import Palette
from sniff.tui.screens.findings import FindingsScreen
from sniff.tui.screens.help import HelpScreen
from sniff.tui.screens.overview import OverviewScreen
from sniff.tui.screens.project import ProjectScreen
from sniff.tui.screens.request import RequestScreen, _break_text
from sniff.tui.screens.session import SessionScreen
from sniff.tui.widgets.table import FILTER_PAUSE, BrowseTable
from tests.conftest import SHARED_SAMPLES, needs_shared
from tests.tui.conftest import settle


def shown(app: SniffApp, selector: str) -> str:
    """The text a Static shows."""
    content = app.screen.query_one(selector, Static).render()
    return content.plain if isinstance(content, Text) else str(content)


def column(app: SniffApp, index: int) -> list[str]:
    """The cells of one column of the screen's table, top to bottom, as text."""
    table = app.screen.query_one(BrowseTable).table
    cells = []
    for row in range(table.row_count):
        cell = table.get_cell_at((row, index))
        cells.append((cell.plain if isinstance(cell, Text) else str(cell)).strip())
    return cells


def cursor_key(app: SniffApp) -> str | None:
    return app.screen.query_one(BrowseTable).cursor_key()


async def test_overview_shows_the_archive_totals_and_its_projects_by_cost(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, OverviewScreen)
        totals = shown(app, "#totals")
        assert f"Cost {money(archive.totals.cost)}" in totals
        assert f"hit rate {percent(archive.totals.hit_rate)}" in totals
        assert (
            f"breaks {archive.fault_breaks.count:,} costing {money(archive.fault_breaks.usd)}"
            in totals
        )
        costs = [row.totals.cost_usd for row in archive.projects]
        assert app.screen.query_one(BrowseTable).shown == len(archive.projects)
        assert column(app, 3) == [money(cost) for cost in sorted(costs, reverse=True)]


async def test_s_cycles_the_sort_column_largest_first_and_text_a_to_z(
    new_app: Callable[[], SniffApp],
) -> None:
    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(BrowseTable)
        await pilot.press("s")  # cost -> hit rate
        labels = [str(column.label) for column in table.table.columns.values()]
        assert labels[4] == "hit rate ▼"
        rates = [float(cell.rstrip("%")) for cell in column(app, 4)]
        assert rates == sorted(rates, reverse=True)
        for _ in range(4):  # hit rate -> breaks -> breaks' cost -> tokens -> project
            await pilot.press("s")
        names = column(app, 0)
        assert names == sorted(names, key=str.lower)


async def test_slash_filters_rows_and_escape_clears_the_filter(
    new_app: Callable[[], SniffApp],
) -> None:
    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(BrowseTable)
        everything = table.shown
        await pilot.press("slash", *"tilesrv", "enter")  # Enter keeps it, back to the table
        assert isinstance(app.focused, DataTable)
        assert table.shown == 2
        assert all("tilesrv" in name for name in column(app, 0))
        await pilot.press("slash", *"-release")
        await pilot.pause(FILTER_PAUSE * 2)  # applies once typing pauses
        assert column(app, 0) == ["tilesrv-release-notes"]
        await pilot.press("slash", "escape")
        assert table.shown == everything


async def test_enter_drills_down_to_a_request_and_escape_walks_back(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        project = cursor_key(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ProjectScreen) and app.screen.project == project
        assert project in shown(app, "#title")
        session = cursor_key(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SessionScreen) and app.screen.session_id == session
        requests = [r for r in archive_dataset.requests if r.session_id == session]
        first = min(requests, key=lambda r: r.when)
        assert cursor_key(app) == first.key
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RequestScreen) and app.screen.key == first.key
        assert first.model in shown(app, "#usage")
        assert f"read {first.usage.cache_read_tokens:,}" in shown(app, "#usage")
        for back in (SessionScreen, ProjectScreen, OverviewScreen, OverviewScreen):
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, back), (app.screen, back)


async def test_session_timeline_marks_breaks_with_their_cause_and_idle_gaps(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    expired = next(b for b in archive.breaks.breaks if b.cause == "ttl_expired")
    session = expired.request.session_id
    app = new_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.push_screen(SessionScreen(session))
        await settle(pilot)
        marks = column(app, 5)
        faults = [e for e in archive.timeline(session) if e.found and e.found.fault]
        assert sorted(m for m in marks if m.startswith("✖")) == sorted(
            f"✖ {e.found.cause}" for e in faults if e.found
        )
        gaps = [row for row, cell in enumerate(column(app, 0)) if cell.startswith("┄ idle")]
        assert len(gaps) == sum(entry.idle for entry in archive.timeline(session)) >= 1
        assert column(app, 2)[gaps[0]] == "> TTL 5m 00s"


async def test_request_screen_colours_blocks_and_points_at_the_first_change(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    changed = next(
        b for b in archive.breaks.breaks if b.cause == "prefix_changed" and b.request.blocks
    )
    request = changed.request
    app = new_app()
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        app.push_screen(RequestScreen(request.key))
        await settle(pilot)
        assert "Cache break: prefix_changed" in shown(app, "#break")
        assert f"Evidence: {changed.detail}" in shown(app, "#break")
        assert app.screen.query_one(BrowseTable).shown == len(request.blocks)
        order = ["■ read", "■ written", "■ uncached"]
        states = column(app, 5)
        # along the prompt: first what was read, then what was written, then the uncached tail
        assert [order.index(state) for state in states] == sorted(map(order.index, states))
        assert ("■ read" in states) == (request.usage.cache_read_tokens > 0)
        assert ("■ written" in states) == (request.usage.cache_write_tokens > 0)
        marks = column(app, 6)
        index = marks.index("◀ first change")
        assert f"block {index + 1} differs" in shown(app, "#compare")
        assert cursor_key(app) == str(index + 1)
        # once the reader moves, a redraw (a loading batch, a theme) leaves the cursor be
        app.screen.query_one(BrowseTable).table.focus()
        await pilot.press("up")
        moved = cursor_key(app)
        assert moved != str(index + 1)
        assert isinstance(app.screen, RequestScreen)
        app.screen.show(archive)
        await settle(pilot)
        assert cursor_key(app) == moved


async def test_a_break_and_its_cause_are_two_keys_from_the_overview(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    dearest = max(archive.breaks.faults, key=lambda b: b.cost_usd or 0.0)
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f", "enter")
        await settle(pilot)
        assert isinstance(app.screen, RequestScreen)
        assert app.screen.key == dearest.request.key
        assert f"Cache break: {dearest.cause}" in shown(app, "#break")


async def test_findings_rank_breaks_and_lint_findings_by_dollars(
    new_app: Callable[[], SniffApp], lint_findings: list
) -> None:
    app = new_app()
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, FindingsScreen)
        kinds = column(app, 1)
        assert kinds.count("lint") == len(lint_findings) > 0
        assert kinds.count("break") == len(app.archive.breaks.faults) if app.archive else False
        costs = [cell for cell in column(app, 0)]
        values = [0.0 if c == "unpriced" else float(c.strip("$").replace(",", "")) for c in costs]
        assert values == sorted(values, reverse=True)
        await pilot.press("f")  # already there: stays
        assert isinstance(app.screen, FindingsScreen)


async def test_help_lists_every_key_binding(new_app: Callable[[], SniffApp]) -> None:
    app = new_app()
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        source = app.screen.query_one(Markdown).source
        described = ("Quit", "Findings", "Latency", "Agents", "Reload", "Live", "Help", "Back")
        for description in (*described, "Filter", "Clear", "Sort", "Metric", "Palette"):
            assert f"| {description}" in source
        await pilot.press("escape")
        assert isinstance(app.screen, OverviewScreen)


async def test_an_empty_archive_gets_a_friendly_empty_state() -> None:
    app = make_app(Dataset(requests=(), roots=("/nowhere/logs",)), zone=UTC)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "No API calls found under /nowhere/logs" in shown(app, "#totals")
        for key in ("enter", "f", "enter", "escape", "s", "slash", "escape", "question_mark"):
            await pilot.press(key)
        await settle(pilot)


async def test_reload_without_files_says_so(new_app: Callable[[], SniffApp]) -> None:
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert any("Nothing to reload" in str(n.message) for n in app._notifications)


async def test_s_sorts_a_timeline_by_every_column_then_returns_to_time_order(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    archive = build_archive(archive_dataset, PriceBook(), UTC)
    expired = next(b for b in archive.breaks.breaks if b.cause == "ttl_expired")
    session = expired.request.session_id
    app = new_app()
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.push_screen(SessionScreen(session))
        await settle(pilot)
        in_time_order = column(app, 0)
        assert any(cell.startswith("┄ idle") for cell in in_time_order)
        table = app.screen.query_one(BrowseTable)
        await pilot.press("s", "s", "s", "s", "s")  # time, agent, model, cache, cost
        costs = column(app, 4)
        assert not any(cell.startswith("┄ idle") for cell in column(app, 0))  # gaps hide
        values = [float(cell.strip("$")) for cell in costs]
        assert values == sorted(values, reverse=True)
        for _ in range(len(table.columns) - 4):  # the rest, then back to time order
            await pilot.press("s")
        assert column(app, 0) == in_time_order


async def test_latency_shows_the_peaks_of_each_metric(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    from sniff.analyses.latency.measures import METRICS, analyze_latency
    from sniff.present.terminal.latency import NAMES
    from sniff.tui.screens.latency import LatencyScreen

    app = new_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert isinstance(app.screen, LatencyScreen)
        for metric in METRICS:  # `m` cycles through them all, the first visible token second
            name = NAMES[metric]
            assert app.screen.sub_title == f"latency: {name}"
            report = analyze_latency(archive_dataset.requests, metric, UTC)
            title = shown(app, "#title")
            assert title.startswith(f"{name}: {report.count:,} requests")
            assert f"({report.exact:,} exact" in title
            assert app.screen.query_one(BrowseTable).shown == len(report.explained)
            histogram = shown(app, "#histogram")
            for index in range(len(report.explained)):
                assert f"◀ peak {index + 1}" in histogram
            beside = "Time to first visible token beside time to first token"
            assert (beside in histogram) == (metric == "visible")
            if metric == "visible":
                assert "not thinking time" in title
                for row in report.beside:
                    assert row.model in histogram
            await pilot.press("m")
            await settle(pilot)


def cells(app: SniffApp, selector: str, index: int) -> list[str]:
    """The cells of one column of one of the screen's tables, top to bottom, as text."""
    table = app.screen.query_one(selector, BrowseTable).table
    found = []
    for row in range(table.row_count):
        cell = table.get_cell_at((row, index))
        found.append((cell.plain if isinstance(cell, Text) else str(cell)).strip())
    return found


async def test_agents_shows_tools_failures_and_user_requests_and_drills_down(
    new_app: Callable[[], SniffApp], archive_dataset: Dataset
) -> None:
    from sniff.analyses.agents.activity import analyze_agents, command_requests
    from sniff.numbers import compact
    from sniff.tui.screens.behaviour import BehaviourScreen, CommandScreen

    report = analyze_agents(archive_dataset.requests, archive_dataset.activity, UTC)
    assert report.tools and report.commands  # the Claude Code samples record both
    app = new_app()
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, BehaviourScreen)
        title = shown(app, "#title")
        calls = sum(row.calls for row in report.tools)
        commands = len(report.commands)
        assert f"{calls:,} tool calls" in title
        assert f"of {report.results:,} tool results" in title
        assert f"{commands:,} user requests, {report.interruptions:,} interrupted" in title
        assert app.screen.query_one("#tools", BrowseTable).shown == len(report.tools)
        tools = [cells(app, "#tools", index) for index in (0, 2, 3)]
        assert {tool: (n, failed) for tool, n, failed in zip(*tools, strict=True)} == {
            row.tool: (compact(row.calls), compact(row.errors)) for row in report.tools
        }
        failures = zip(cells(app, "#failures", 0), cells(app, "#failures", 1), strict=True)
        assert dict(failures) == {row.error_class: compact(row.count) for row in report.errors}

        # The user requests, newest first: each with its model calls, tool calls and cost.
        shown_rows = list(
            zip(
                cells(app, "#commands", 2),
                cells(app, "#commands", 3),
                cells(app, "#commands", 4),
                strict=True,
            )
        )
        newest_first = sorted(report.commands, key=lambda row: row.at, reverse=True)
        assert shown_rows == [
            (compact(row.model_calls), compact(row.tool_calls), money(row.cost_usd))
            for row in newest_first
        ]
        interrupted = cells(app, "#commands", 5)
        assert interrupted.count("yes") == report.interruptions

        # Enter on a user request lists the model calls it led to; Enter opens one.
        index, command = next((i, c) for i, c in enumerate(newest_first) if c.model_calls)
        table = app.screen.query_one("#commands", BrowseTable).table
        assert app.focused is table
        table.move_cursor(row=index, animate=False)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CommandScreen) and app.screen.command == command
        led_to = command_requests(archive_dataset.requests, command)
        assert len(led_to) == command.model_calls
        timeline = app.screen.query_one(BrowseTable)
        keys = [str(key.value) for key in timeline.table.rows]
        keys = [key for key in keys if not key.startswith("gap:")]  # idle gaps are marks
        assert keys == [request.key for request in led_to]
        assert cursor_key(app) == led_to[0].key
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, RequestScreen) and app.screen.key == led_to[0].key
        for back in (CommandScreen, BehaviourScreen, OverviewScreen):
            await pilot.press("escape")
            await settle(pilot)
            assert isinstance(app.screen, back), (app.screen, back)


@needs_shared
async def test_a_request_that_read_nothing_is_never_said_to_have_read_its_prefix() -> None:
    """The shared claude-trace sample: its compaction call (line 35) read 0 tokens, and its
    first block differs from the request before it. It is the compaction's expected write."""
    from sniff.logs import load

    trace = SHARED_SAMPLES / "claude-trace-dev"
    dataset = load([trace], with_prompts=Prompts.SIZED)
    archive = build_archive(dataset, PriceBook(), UTC)
    [summariser] = [r for r in dataset.requests if r.line == 35]
    app = make_app(dataset, zone=UTC)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.push_screen(RequestScreen(summariser.key))
        await settle(pilot)
        text = shown(app, "#break")
        assert "Expected cache write: compaction" in text
        assert "12,072 tokens written" in text
        assert "No cache break" not in text
    colours = Palette(*["white"] * 7)
    for request in dataset.requests:  # no request that read nothing claims it read its prefix
        entry = archive.entry(request.key)
        assert entry is not None
        if entry.found is None and request.usage.cache_read_tokens == 0:
            assert "it read the" not in _break_text(entry, colours).plain
