"""The keys a person finds their way by: whole in the footer at 80 columns, every one in help,
named as the CLI names the same views, and Escape undoing a filter kept with Enter."""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Footer, Markdown
from textual.widgets._footer import FooterKey

from sniff.cli.root import COMMANDS
from sniff.tui import SniffApp
from sniff.tui.screens.behaviour import BehaviourScreen
from sniff.tui.screens.help import HelpScreen
from sniff.tui.screens.overview import OverviewScreen
from sniff.tui.widgets.table import FILTER_PAUSE, BrowseTable
from tests.tui.conftest import screen_text, settle

WALK = [[], ["enter"], ["enter"], ["enter"], ["escape"] * 3 + ["f"], ["escape", "l"],
        ["escape", "a"]]  # fmt: skip
"""From the overview down to a request, then each view the app's keys open."""


def footer_line(app: SniffApp) -> str:
    """The footer's line as the terminal shows it."""
    return app.screen._compositor.render_strips()[-1].text


def footer_keys(app: SniffApp) -> list[FooterKey]:
    return list(app.screen.query_one(Footer).query(FooterKey))


async def walk(pilot: Pilot[None], keys: list[str]) -> None:
    await pilot.press(*keys)
    await settle(pilot)


async def test_the_footer_shows_every_key_whole_at_80_columns(
    new_app: Callable[[], SniffApp],
) -> None:
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for keys in WALK:
            await walk(pilot, keys)
            line, shown = footer_line(app), footer_keys(app)
            where = type(app.screen).__name__
            assert {"?", "r", "w"} <= {key.key_display for key in shown}, where
            for key in shown:
                assert f"{key.key_display} {key.description}" in line, (where, line)
                assert key.region.right <= 80, (where, key.key_display, key.region)


async def test_w_live_is_in_the_footer_and_in_help(new_app: Callable[[], SniffApp]) -> None:
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "w Live" in footer_line(app)
        await walk(pilot, ["question_mark"])
        assert isinstance(app.screen, HelpScreen)
        keys = app.screen.query_one(Markdown).source
        assert "| `w` | Live: Follow the files as they grow (toggle) |" in keys
        # the keys the footer leaves out for room are in help all the same
        for hidden in ("| `s` | Sort", "| `m` | Metric", "| `ctrl+p` | Palette"):
            assert hidden in keys


async def test_the_agents_view_is_named_as_the_cli_names_it(
    new_app: Callable[[], SniffApp],
) -> None:
    app = new_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert "a Agents" in footer_line(app)
        await walk(pilot, ["a"])
        assert isinstance(app.screen, BehaviourScreen)
        assert app.screen.sub_title == "agents" and "agents" in COMMANDS
        seen = [screen_text(app.screen), footer_line(app)]
        await walk(pilot, ["escape", "l"])
        assert app.screen.sub_title.split(":")[0] in COMMANDS  # latency
        await walk(pilot, ["escape", "question_mark"])
        seen.append(app.screen.query_one(Markdown).source)
        assert "| `a` | Agents: " in seen[-1]
        assert not [text for text in seen if "ehaviour" in text]


async def test_escape_after_enter_clears_the_filter_then_goes_back(
    new_app: Callable[[], SniffApp],
) -> None:
    app = new_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(BrowseTable)
        everything = table.shown
        await pilot.press("slash", *"tilesrv", "enter")
        await pilot.pause(FILTER_PAUSE * 2)
        assert table.shown == 2 and "esc Clear" in footer_line(app)
        await walk(pilot, ["escape"])
        assert table.shown == everything and not table.needle
        assert not table.has_class("-filtering")
        await walk(pilot, ["enter", "slash", *"zzz-nothing", "enter"])  # in a project's sessions
        assert app.screen.query_one(BrowseTable).shown == 0
        await walk(pilot, ["escape"])
        assert app.screen.query_one(BrowseTable).shown > 0  # cleared: still in the project
        assert "esc Back" in footer_line(app)
        await walk(pilot, ["escape"])
        assert isinstance(app.screen, OverviewScreen)
