"""Provides the overview: the archive's totals, its days, and its projects."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.widgets import Header, ProgressBar, Static

from sniff.analyses.browse import Archive, ProjectRow
from sniff.present.terminal.console import short_project
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.widgets.cells import count, rate, usd
from sniff.tui.widgets.charts import DailyChart
from sniff.tui.widgets.footer import keys_footer
from sniff.tui.widgets.shown import ShownStatic
from sniff.tui.widgets.table import BrowseTable, Column, Row
from sniff.tui.widgets.totals import totals_text

COLUMNS = [
    Column("project", numeric=False),
    Column("sessions"),
    Column("requests"),
    Column("cost", priority=1),
    Column("hit rate"),
    Column("breaks"),
    Column("breaks' cost"),
    Column("tokens"),
]


class OverviewScreen(ArchiveScreen):
    """Where the walk starts: what the archive cost, day by day, and which projects spent it."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Nothing is behind the overview: no Back key here."""
        return action != "back"

    def compose(self) -> ComposeResult:
        yield Header()
        yield ShownStatic("Reading logs…", id="totals")
        yield ProgressBar(total=1.0, show_eta=False, id="progress")
        yield DailyChart(id="days")
        yield BrowseTable(COLUMNS, sort_column=3, id="projects")
        yield keys_footer()

    def show(self, archive: Archive) -> None:
        dataset = archive.dataset
        totals = self.query_one("#totals", Static)
        if not dataset.requests:
            where = ", ".join(dataset.roots) or "the usual log folders"
            totals.update(
                f"No API calls found under {where}.\n"
                "sniff reads Claude Code transcripts, claude-trace logs, Codex rollouts and "
                "request logs (*.jsonl). Run `sniff tui PATH` on a folder that holds them."
            )
        else:
            text = totals_text(archive.totals, archive.fault_breaks, self.colours)
            if dataset.sample:
                text.append("\n(no logs in the usual folders: showing the bundled samples)")
            totals.update(text)
        self.query_one(DailyChart).show(archive.summary.by_day)
        self.query_one(BrowseTable).set_rows([self._row(p) for p in archive.projects])

    def show_progress(self, fraction: float, done: bool) -> None:
        """How far reading the archive has come."""
        bar = self.query_one("#progress", ProgressBar)
        bar.update(progress=fraction)
        bar.display = not done

    def _row(self, project: ProjectRow) -> Row:
        totals = project.totals
        return Row.of(
            project.project,
            [
                (short_project(project.project), short_project(project.project).lower()),
                (count(project.sessions), project.sessions),
                (count(totals.requests), totals.requests),
                (usd(totals.cost, self.colours), totals.cost_usd),
                (rate(totals.hit_rate), totals.hit_rate or 0.0),
                (count(project.breaks.count), project.breaks.count),
                (usd(project.breaks.usd), project.breaks.usd),
                (count(totals.total_tokens), totals.total_tokens),
            ],
        )

    @on(BrowseTable.Chosen, "#projects")
    def _open_project(self, event: BrowseTable.Chosen) -> None:
        from sniff.tui.screens.project import ProjectScreen

        self.app.push_screen(ProjectScreen(event.key))
