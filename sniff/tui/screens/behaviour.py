"""Provides the agents screen (`a`, named as `sniff agents` is): what the agents did with the
tools, what failed and why, and what each user request led to; and the command screen, the model
calls of one user request.

It presents `analyze_agents` (the figures of `sniff agents`) and computes none of its own: the
tools the agents called (how often, how often they failed, what their results added to the
context), the failures by class with an example, and the user requests typed into the agents,
each with the model calls, tool calls and dollars it led to. Enter on a user request lists its
model calls (`command_requests`), shown as a session's timeline is; Enter there opens a request.
"""

from __future__ import annotations

from datetime import datetime, tzinfo

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.widgets import Header, Static

from sniff.analyses.agents.activity import (
    AgentReport,
    CommandRow,
    ErrorRow,
    ToolRow,
    analyze_agents,
    command_requests,
)
from sniff.analyses.browse import Archive, TimelineEntry
from sniff.analyses.cache.context_growth import SessionGrowth
from sniff.numbers import compact, first_line, money, percent
from sniff.present.terminal.console import elide, short_project
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.screens.session import SessionScreen
from sniff.tui.widgets.cells import count, figure, usd
from sniff.tui.widgets.footer import keys_footer
from sniff.tui.widgets.shown import ShownStatic
from sniff.tui.widgets.table import BrowseTable, Column, Row

TOOL_COLUMNS = [
    Column("tool", numeric=False),
    Column("from", numeric=False),
    Column("calls"),
    Column("failed"),
    Column("result tokens"),
]

FAILURE_COLUMNS = [
    Column("class", numeric=False),
    Column("count"),
    Column("example", numeric=False),
]

COMMAND_COLUMNS = [
    Column("time", numeric=False, narrow=False, priority=1),
    Column("user request", numeric=False, width=36),
    Column("calls"),
    Column("tools"),
    Column("cost"),
    Column("interrupted", numeric=False, largest_first=True),
    Column("project", numeric=False),
]
"""Calls and tools are the model calls and tool calls a user request led to, as in `sniff agents`;
the project last, to filter by (a 100-column terminal shows the rest without scrolling)."""

EXAMPLE_WIDTH = 56
"""Characters of a failure's example shown, its tool's name included (its first line only)."""


class BehaviourScreen(ArchiveScreen):
    """The agents view (`sniff agents`): their tools, their failures, and the user requests
    they served. (The class keeps its first name: only what a person sees is named `agents`.)"""

    AUTO_FOCUS = "#commands DataTable"

    def __init__(self) -> None:
        super().__init__()
        self.report: AgentReport | None = None
        self.analysed: Archive | None = None
        """The archive `report` is of: shown again, it is only presented again."""
        self.requested: Archive | None = None
        """The archive last handed to the analysis (not analysed again while it runs)."""
        self.commands: dict[str, CommandRow] = {}
        """The user requests shown, by their row's key."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield ShownStatic("Counting…", id="title")
        yield BrowseTable(TOOL_COLUMNS, sort_column=2, id="tools")
        yield BrowseTable(FAILURE_COLUMNS, sort_column=1, id="failures")
        yield BrowseTable(COMMAND_COLUMNS, sort_column=0, sort_descending=True, id="commands")
        yield keys_footer()

    def show(self, archive: Archive) -> None:
        """Present the archive's analysis: run once per archive, and only while on top (a
        screen underneath analyses the archive when it is uncovered)."""
        self.sub_title = "agents"  # the CLI's name for this view
        if archive is self.analysed and self.report is not None:
            self._present(self.report, archive.zone)  # a repaint: the analysis stands
        elif archive is not self.requested and self.uncovered:
            self.requested = archive
            self._analyse(archive)

    def on_screen_resume(self) -> None:
        archive = self.sniff.archive
        if archive is not None and archive is not self.analysed:
            self.show(archive)  # archives came in while this screen was covered

    @work(thread=True, exclusive=True, group="behaviour", exit_on_error=False)
    def _analyse(self, archive: Archive) -> None:
        """Analyse off the UI thread: a large archive holds many thousands of tool calls."""
        dataset = archive.dataset
        try:
            report = analyze_agents(dataset.requests, dataset.activity, archive.zone)
        except Exception as error:  # a failed analysis must not end the app
            self.app.call_from_thread(self.notify, f"agents: {error}", severity="error")
            return
        self.app.call_from_thread(self._analysed, archive, report)

    def _analysed(self, archive: Archive, report: AgentReport) -> None:
        if archive is not self.requested:
            return  # a newer archive came in while this one was analysed
        self.analysed = archive
        self._present(report, archive.zone)

    def _present(self, report: AgentReport, zone: tzinfo) -> None:
        self.report = report
        self.query_one("#title", Static).update(self._title(report))
        self.query_one("#tools", BrowseTable).set_rows([self._tool(row) for row in report.tools])
        self.query_one("#failures", BrowseTable).set_rows(
            [self._failure(row) for row in report.errors]
        )
        self.commands = {}
        rows = []
        for command in report.commands:
            key = f"{command.session_id}|{command.at}"
            while key in self.commands:  # two requests logged at the same instant
                key += "'"
            self.commands[key] = command
            rows.append(self._command(key, command, zone))
        self.query_one("#commands", BrowseTable).set_rows(rows)

    def _title(self, report: AgentReport) -> Text:
        calls = sum(row.calls for row in report.tools)
        api_errors, failed = report.api_errors, report.tool_failures
        text = Text()
        text.append(f"{calls:,} tool calls", style="bold")
        text.append("  ·  ")
        text.append(f"{failed:,} failed", style=self.colours.uncached if failed else "")
        text.append(f" of {report.results:,} tool results ({percent(report.tool_failure_rate)})")
        if api_errors:
            text.append(f"  ·  {api_errors:,} API errors", style=self.colours.uncached)
        text.append("\n")
        text.append(f"{len(report.commands):,} user requests", style="bold")
        text.append(f", {report.interruptions:,} interrupted ")
        text.append(f"({percent(report.interruption_rate)})")
        if report.steps is not None and report.cost is not None:
            steps, cost = report.steps, report.cost
            text.append(
                f"\neach: median {steps.median:g} model calls (p90 {steps.p90:g},"
                f" max {steps.maximum:g}), {money(cost.median)} (p90 {money(cost.p90)},"
                f" max {money(cost.maximum)})"
            )
        if not report.tools and not report.commands:
            text.append(
                "\nNo tool calls or user requests here: only Claude Code transcripts record them.",
                style="italic",
            )
        else:
            text.append(
                "\nEnter lists a user request's model calls  ·  ≈ shared by tools called at once",
                style="italic",
            )
        return text

    def _tool(self, row: ToolRow) -> Row:
        shared = "≈" if row.exact_calls < row.calls and row.result_tokens else ""
        failed = figure(compact(row.errors), self.colours.uncached if row.errors else "")
        return Row.of(
            row.tool,
            [
                (row.tool, row.tool.lower()),
                (row.server, row.server),
                (count(row.calls), row.calls),
                (failed, row.errors),
                (figure(shared + compact(row.result_tokens)), row.result_tokens),
            ],
            selectable=False,
        )

    def _failure(self, row: ErrorRow) -> Row:
        example = ""
        if row.examples:
            tool, excerpt, _ = row.examples[0]
            prefix = f"{tool}: " if tool else ""
            room = max(EXAMPLE_WIDTH - len(prefix), EXAMPLE_WIDTH // 2)
            example = prefix + elide(first_line(excerpt), room)
        return Row.of(
            row.error_class,
            [
                (row.error_class, row.error_class),
                (count(row.count), row.count),
                (Text(example, style="italic"), example),
            ],
            selectable=False,
        )

    def _command(self, key: str, command: CommandRow, zone: tzinfo) -> Row:
        when = _local(command.at, zone).strftime("%Y-%m-%d %H:%M")
        if command.command:
            what = Text(command.command, style="bold")
        else:
            what = Text(elide(first_line(command.text), 200))
        if command.unpriced_calls and command.unpriced_calls == command.model_calls:
            cost = usd(None, self.colours)
        else:
            cost = usd(command.cost_usd)
            if command.unpriced_calls:  # some of its calls have no known price
                cost.append("+", style=f"italic {self.colours.muted}")
        interrupted = Text("yes", style=self.colours.uncached) if command.interrupted else ""
        return Row.of(
            key,
            [
                (when, command.at),
                (what, what.plain.lower()),
                (count(command.model_calls), command.model_calls),
                (count(command.tool_calls), command.tool_calls),
                (cost, command.cost_usd),
                (interrupted, int(command.interrupted)),
                (short_project(command.project), short_project(command.project).lower()),
            ],
        )

    @on(BrowseTable.Chosen, "#commands")
    def _open_command(self, event: BrowseTable.Chosen) -> None:
        command = self.commands.get(event.key)
        if command is not None and self.report is not None:
            self.app.push_screen(CommandScreen(command))


class CommandScreen(SessionScreen):
    """One user request's model calls, shown as a session's timeline (breaks, gaps and all)."""

    def __init__(self, command: CommandRow) -> None:
        super().__init__(command.session_id)
        self.command = command

    def _timeline(self, archive: Archive) -> list[TimelineEntry]:
        led_to = command_requests(archive.dataset.requests, self.command)
        keys = {request.key for request in led_to}
        return [e for e in archive.timeline(self.session_id) if e.request.key in keys]

    def _what(self) -> str:
        return f"user request in session {self.session_id}"

    def _growth(self, archive: Archive) -> SessionGrowth | None:
        """None: the growth is the whole session's, not one user request's."""
        return None

    def _title(self, timeline: list[TimelineEntry], zone: tzinfo) -> Text:
        command = self.command
        when = _local(command.at, zone).strftime("%Y-%m-%d %H:%M:%S")
        text = Text()
        text.append(f"{when}  ", style="bold")
        if command.command:
            text.append(command.command, style="bold")
        else:
            text.append(elide(first_line(command.text), 300))
        if command.interrupted:
            text.append("  (interrupted)", style=self.colours.uncached)
        text.append(f"\nmodel calls {command.model_calls:,}  ·  tool calls {command.tool_calls:,}")
        if not timeline:
            text.append(f"\n{command.project}  ·  session {self.session_id[:8]}")
            text.append("\nThis user request led to no model call.", style="italic")
            return text
        text.append("\n")
        text.append(super()._title(timeline, zone))
        return text


def _local(moment: float, zone: tzinfo) -> datetime:
    return datetime.fromtimestamp(moment, zone)
