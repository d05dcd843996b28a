"""Provides the session screen: its requests in order, the cache bar of each, breaks and gaps."""

from __future__ import annotations

from datetime import tzinfo

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.widgets import Header, Static

from sniff.analyses.browse import Archive, BreakCost, TimelineEntry
from sniff.analyses.cache.context_growth import SessionGrowth, session_growth
from sniff.analyses.cost.summary import Totals
from sniff.analyses.latency.timing import end_to_end
from sniff.numbers import duration, plural
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.widgets.cells import cache_bar, count, figure, usd
from sniff.tui.widgets.footer import keys_footer
from sniff.tui.widgets.growth import GrowthStrip
from sniff.tui.widgets.shown import ShownStatic
from sniff.tui.widgets.table import BrowseTable, Column, Row

COLUMNS = [
    Column("time", numeric=False, narrow=False, priority=1),
    Column("agent", numeric=False, priority=-1),
    Column("model", numeric=False),
    Column("cache", numeric=False, width=12),
    Column("cost", priority=1),
    Column("break", numeric=False, largest_first=True, narrow=False, priority=1),
    Column("uncached"),
    Column("read"),
    Column("written"),
    Column("output"),
    Column("latency"),
]
"""What matters most comes first, so an 80-column terminal shows it without scrolling; when the
terminal is narrow, the agent (mostly `main`) goes first, the time and cost last."""


class SessionScreen(ArchiveScreen):
    """One session's timeline: what each request read, wrote and missed, and why."""

    def __init__(self, session_id: str) -> None:
        super().__init__()
        self.session_id = session_id

    def compose(self) -> ComposeResult:
        yield Header()
        yield ShownStatic(id="title")
        yield GrowthStrip(id="growth")
        yield BrowseTable(COLUMNS, sort_column=-1, id="timeline")
        yield keys_footer()

    def show(self, archive: Archive) -> None:
        timeline = self._timeline(archive)
        self.sub_title = self._what()
        self.query_one("#title", Static).update(self._title(timeline, archive.zone))
        self.query_one(GrowthStrip).show(self._growth(archive), self.colours)
        rows: list[Row] = []
        for entry in timeline:
            if entry.idle:
                rows.append(self._gap(entry))
            rows.append(self._row(entry, archive.zone))
        self.query_one(BrowseTable).set_rows(rows)

    def _timeline(self, archive: Archive) -> list[TimelineEntry]:
        """The requests this screen lists."""
        return archive.timeline(self.session_id)

    def _what(self) -> str:
        return f"session {self.session_id}"

    def _growth(self, archive: Archive) -> SessionGrowth | None:
        """The session's prompt sizes and its context-growth flag (`sniff context`)."""
        requests = [entry.request for entry in archive.timeline(self.session_id)]
        if not requests:
            return None
        return session_growth(self.session_id, requests, self.sniff.prices, None)

    def _title(self, timeline: list[TimelineEntry], zone: tzinfo) -> Text:
        from sniff.tui.widgets.totals import totals_text

        if not timeline:
            return Text("This session is not in the archive (any more).")
        totals, breaks = Totals(), BreakCost()
        for entry in timeline:
            totals.add(entry.request)
            if entry.found is not None and entry.found.fault:
                breaks = breaks.plus(entry.found)
        first = timeline[0].request
        start = first.when.astimezone(zone).strftime("%Y-%m-%d %H:%M")
        text = totals_text(totals, breaks, self.colours)
        text.append(
            f"\n{first.project}  ·  {first.harness} session {self.session_id[:8]}  ·  from {start}"
        )
        # in the order first used: a session can change branch (`sniff sessions --by branch`)
        branches = dict.fromkeys(e.request.git_branch for e in timeline if e.request.git_branch)
        if branches:
            text.append(f"  ·  {'branches' if len(branches) > 1 else 'branch'} ")
            text.append(", ".join(branches))
        idle = sum(entry.idle for entry in timeline)
        if idle:
            text.append(
                f"  ·  {plural(idle, 'idle gap')} longer than the cache TTL", style="italic"
            )
        return text

    def _gap(self, entry: TimelineEntry) -> Row:
        gap = duration(entry.gap_seconds or 0.0)
        ttl = duration(entry.ttl_seconds or 0.0)
        style = f"italic {self.colours.written}"
        # split over the time and model columns: whole, it would widen the time column
        mark, beyond = Text(f"┄ idle {gap}", style=style), Text(f"> TTL {ttl}", style=style)
        return Row(
            key=f"gap:{entry.request.key}",
            cells=[mark, "", beyond] + [""] * (len(COLUMNS) - 3),
            sort_values=[""] * len(COLUMNS),
            selectable=False,
            marker=True,
        )

    def _row(self, entry: TimelineEntry, zone: tzinfo) -> Row:
        request, usage = entry.request, entry.request.usage
        seconds = end_to_end(request)
        found = entry.found
        if found is None:
            mark = Text("")
        elif found.fault:
            mark = Text(f"✖ {found.cause}", style=f"bold {self.colours.uncached}")
        else:
            mark = Text(found.cause, style=self.colours.muted)
        if request.error:
            mark = Text(f"failed: {request.error}", style="italic")
        cost = request.cost.total_usd if request.cost else None
        return Row.of(
            request.key,
            [
                (
                    request.when.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S"),
                    request.when.timestamp(),
                ),
                (request.agent.value, request.agent.value),
                (request.model, request.model),
                (
                    cache_bar(usage, self.colours),
                    usage.cache_read_tokens / (usage.prompt_tokens or 1),
                ),
                (usd(cost, self.colours), cost or 0.0),
                (mark, (found.cost_usd or 0.0) if found is not None and found.fault else -1.0),
                (count(usage.input_tokens), usage.input_tokens),
                (count(usage.cache_read_tokens), usage.cache_read_tokens),
                (count(usage.cache_write_tokens), usage.cache_write_tokens),
                (count(usage.output_tokens), usage.output_tokens),
                (figure("–" if seconds is None else f"{seconds:.1f}s"), seconds or 0.0),
            ],
        )

    @on(BrowseTable.Chosen, "#timeline")
    def _open_request(self, event: BrowseTable.Chosen) -> None:
        from sniff.tui.screens.request import RequestScreen

        self.app.push_screen(RequestScreen(event.key))
