"""Provides the findings screen: cache breaks and lint findings across the archive, by dollars."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Header, Static

from sniff.analyses.browse import Archive
from sniff.analyses.findings import ArchiveFinding, collect_findings
from sniff.numbers import plural
from sniff.present.terminal.console import short_project
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.widgets.cells import usd
from sniff.tui.widgets.footer import keys_footer
from sniff.tui.widgets.shown import ShownStatic
from sniff.tui.widgets.table import BrowseTable, Column, Row

COLUMNS = [
    Column("cost", priority=1),
    Column("kind", numeric=False),
    Column("cause / rule", numeric=False),
    Column("project", numeric=False),
    Column("when", numeric=False, narrow=False),
    Column("what", numeric=False, priority=1),
]


class FindingsScreen(ArchiveScreen):
    """Everything that cost money it need not have: breaks and lint findings, dearest first."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield ShownStatic(id="title")
        yield BrowseTable(COLUMNS, sort_column=0, id="findings")
        yield keys_footer()

    def show(self, archive: Archive) -> None:
        self.sub_title = "findings"
        lint = self.sniff.lint_findings
        found = collect_findings(archive, lint)
        title = Text(plural(len(found), "finding"), style="bold")
        breaks = sum(item.kind == "break" for item in found)
        title.append(f"  ·  {plural(breaks, 'cache break')}  ·  ")
        if lint is None:
            title.append("lint: checking the logged prompts…", style="italic")
        else:
            title.append(plural(len(lint), "lint finding"))
        title.append("\nEnter opens the request; cold starts are not listed (they are expected).")
        self.query_one("#title", Static).update(title)
        self.query_one(BrowseTable).set_rows(
            [self._row(index, item, archive) for index, item in enumerate(found)]
        )

    def _row(self, index: int, item: ArchiveFinding, archive: Archive) -> Row:
        colours = self.colours
        kind_style = colours.uncached if item.kind == "break" else colours.written
        when = item.when.astimezone(archive.zone).strftime("%Y-%m-%d %H:%M") if item.when else ""
        key = item.request_key or f"nowhere:{index}"
        return Row.of(
            f"{index}|{key}",
            [
                (usd(item.usd, colours), item.usd or 0.0),
                (Text(item.kind, style=kind_style), item.kind),
                (item.code, item.code),
                (short_project(item.project), item.project),
                (when, item.when.timestamp() if item.when else 0.0),
                (item.message, item.message),
            ],
            selectable=item.request_key is not None,
        )

    @on(BrowseTable.Chosen, "#findings")
    def _open_request(self, event: BrowseTable.Chosen) -> None:
        from sniff.tui.screens.request import RequestScreen

        self.app.push_screen(RequestScreen(event.key.split("|", 1)[1]))
