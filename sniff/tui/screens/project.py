"""Provides the project screen: its sessions, when they ran, what they cost."""

from __future__ import annotations

from datetime import tzinfo

from textual import on
from textual.app import ComposeResult
from textual.widgets import Header, Static

from sniff.analyses.browse import Archive, BreakCost, SessionView
from sniff.analyses.cost.summary import Totals
from sniff.numbers import duration, plural
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.widgets.cells import count, figure, rate, usd
from sniff.tui.widgets.footer import keys_footer
from sniff.tui.widgets.shown import ShownStatic
from sniff.tui.widgets.table import BrowseTable, Column, Row
from sniff.tui.widgets.totals import totals_text

COLUMNS = [
    Column("session", numeric=False),
    Column("start", numeric=False, narrow=False, priority=1),
    Column("duration"),
    Column("requests"),
    Column("cost", priority=1),
    Column("hit rate"),
    Column("breaks"),
    Column("breaks' cost"),
    Column("models", numeric=False),
    Column("agents", numeric=False),
    Column("harness", numeric=False),
]


class ProjectScreen(ArchiveScreen):
    """One project's sessions."""

    def __init__(self, project: str) -> None:
        super().__init__()
        self.project = project

    def compose(self) -> ComposeResult:
        yield Header()
        yield ShownStatic(id="title")
        yield BrowseTable(COLUMNS, sort_column=1, sort_descending=True, id="sessions")
        yield keys_footer()

    def show(self, archive: Archive) -> None:
        sessions = archive.sessions(self.project)
        self.sub_title = self.project
        row = archive.project(self.project)  # None once a reload dropped the project
        totals = row.totals if row is not None else Totals()
        breaks = row.breaks if row is not None else BreakCost()
        title = totals_text(totals, breaks, self.colours)
        title.append(f"\n{self.project}  ·  {plural(len(sessions), 'session')}", style="bold")
        self.query_one("#title", Static).update(title)
        zone = archive.zone
        self.query_one(BrowseTable).set_rows([self._row(view, zone) for view in sessions])

    def _row(self, view: SessionView, zone: tzinfo) -> Row:
        row, totals = view.row, view.row.totals
        seconds = (row.end - row.start).total_seconds()
        start = row.start.astimezone(zone)
        models = ", ".join(sorted(row.models))
        agents = ", ".join(sorted(row.agents))
        return Row.of(
            row.session_id,
            [
                (row.session_id[:8], row.session_id),
                (start.strftime("%Y-%m-%d %H:%M"), row.start.timestamp()),
                (figure(duration(seconds)), seconds),
                (count(totals.requests), totals.requests),
                (usd(totals.cost, self.colours), totals.cost_usd),
                (rate(totals.hit_rate), totals.hit_rate or 0.0),
                (count(view.breaks.count), view.breaks.count),
                (usd(view.breaks.usd), view.breaks.usd),
                (models, models),
                (agents, agents),
                (row.harness, row.harness),
            ],
        )

    @on(BrowseTable.Chosen, "#sessions")
    def _open_session(self, event: BrowseTable.Chosen) -> None:
        from sniff.tui.screens.session import SessionScreen

        self.app.push_screen(SessionScreen(event.key))
