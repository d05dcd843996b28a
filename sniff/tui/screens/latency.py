"""Provides the latency screen: the distribution on a log axis, its peaks and what explains them."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from sniff.analyses.browse import Archive
from sniff.analyses.latency import METRICS, LatencyReport, analyze_latency
from sniff.present.formats import percent
from sniff.present.latency_view import NAMES, histogram, seconds
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.widgets.cells import figure
from sniff.tui.widgets.table import BrowseTable, Column, Row

COLUMNS = [
    Column("peak"),
    Column("at"),
    Column("range (±1σ)", numeric=False),
    Column("share"),
    Column("requests"),
    Column("cache hits"),
    Column("model", numeric=False),
    Column("output", numeric=False),
]


class LatencyScreen(ArchiveScreen):
    """How fast the requests were, as peaks: which population is slow, and why."""

    BINDINGS = [
        Binding("m", "next_metric", "Metric", tooltip="Switch between TTFT, TPOT and end to end"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.metric = METRICS[0]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Measuring…", id="title")
        yield BrowseTable(COLUMNS, sort_column=-1, id="peaks")
        with VerticalScroll(id="histogram-box"):
            yield Static(id="histogram")
        yield Footer()

    def show(self, archive: Archive) -> None:
        self.sub_title = f"latency: {NAMES[self.metric]}"
        self._measure(archive, self.metric)

    def action_next_metric(self) -> None:
        """Show the next metric."""
        self.metric = METRICS[(METRICS.index(self.metric) + 1) % len(METRICS)]
        archive = self.sniff.archive
        if archive is not None:
            self.show(archive)

    @work(thread=True, exclusive=True, group="latency", exit_on_error=False)
    def _measure(self, archive: Archive, metric: str) -> None:
        """Analyse off the UI thread: the peak fits take a moment on a large archive."""
        try:
            report = analyze_latency(archive.dataset.requests, metric, archive.zone)
        except Exception as error:  # a failed fit must not end the app
            self.app.call_from_thread(self.notify, f"latency: {error}", severity="error")
            return
        self.app.call_from_thread(self._present, report)

    def _present(self, report: LatencyReport) -> None:
        title = Text(f"{NAMES[report.metric]}: {report.count:,} requests ", style="bold")
        title.append(f"({report.exact:,} exact, {report.count - report.exact:,} approximate)")
        title.append("  ·  m: next metric", style="italic")
        for note in report.notes:
            title.append(f"\n{note}", style="italic")
        if not report.count:
            title.append("\nNo request in this archive has this timing.")
        self.query_one("#title", Static).update(title)
        self.query_one("#histogram", Static).update(histogram(report))
        rows = []
        for index, item in enumerate(report.explained, start=1):
            peak = item.peak
            model, model_share = item.by_model[0] if item.by_model else ("–", 0.0)
            band, band_share = item.by_output[0] if item.by_output else ("–", 0.0)
            rows.append(
                Row(
                    key=str(index),
                    cells=[
                        figure(str(index)),
                        figure(seconds(peak.location)),
                        f"{seconds(peak.low)} – {seconds(peak.high)}",
                        figure(percent(peak.share)),
                        figure(f"{item.requests:,}"),
                        figure(percent(item.hit_share)),
                        f"{model} ({percent(model_share)})",
                        f"{band} tokens ({percent(band_share)})",
                    ],
                    sort_values=[
                        index,
                        peak.location,
                        peak.location,
                        peak.share,
                        item.requests,
                        item.hit_share or 0.0,
                        model,
                        band,
                    ],
                    selectable=False,
                )
            )
        self.query_one(BrowseTable).set_rows(rows)
