"""Provides the latency screen: the distribution on a log axis, its peaks and what explains them."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from sniff.analyses.browse import Archive
from sniff.analyses.latency.measures import METRICS, LatencyReport, analyze_latency
from sniff.numbers import percent, plural, seconds
from sniff.present.terminal.latency import NAMES, histogram
from sniff.present.terminal.visible import beside_text, thinking_text
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.widgets.cells import figure
from sniff.tui.widgets.footer import keys_footer
from sniff.tui.widgets.shown import ShownStatic
from sniff.tui.widgets.table import BrowseTable, Column, Row

COLUMNS = [
    Column("peak"),
    Column("at"),
    Column("range (±1σ)", numeric=False, narrow=False),
    Column("share"),
    Column("requests"),
    Column("cache hits"),
    Column("model", numeric=False),
    Column("output", numeric=False),
]


class LatencyScreen(ArchiveScreen):
    """How fast the requests were, as peaks: which population is slow, and why."""

    BINDINGS = [
        Binding(
            "m",
            "next_metric",
            "Metric",
            tooltip="Switch between TTFT, first visible token, TPOT and end to end",
            show=False,  # the screen's title says it, and the footer has no room at 80 columns
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.metric = METRICS[0]
        self.analysed: Archive | None = None
        """The archive `reports` are of: shown again, it is only presented again."""
        self.reports: dict[str, LatencyReport] = {}
        """The reports of `analysed`, by metric."""
        self.requested: tuple[Archive, str] | None = None
        """The archive and metric last handed to the analysis (not analysed again meanwhile)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield ShownStatic("Measuring…", id="title")
        yield BrowseTable(COLUMNS, sort_column=-1, id="peaks")
        with VerticalScroll(id="histogram-box"):
            yield ShownStatic(id="histogram")
        yield keys_footer()

    def show(self, archive: Archive) -> None:
        """Present the metric's analysis: run once per archive and metric, and only while on
        top (a screen underneath analyses the archive when it is uncovered)."""
        self.sub_title = f"latency: {NAMES[self.metric]}"
        report = self.reports.get(self.metric) if archive is self.analysed else None
        if report is not None:
            self._present(report)  # a repaint, or a metric measured before
        elif not self._requested(archive, self.metric) and self.uncovered:
            self.requested = (archive, self.metric)
            self._measure(archive, self.metric)

    def _requested(self, archive: Archive, metric: str) -> bool:
        """This archive's metric is being measured (archives compared by identity: an equal
        one read again is still a new archive)."""
        return (
            self.requested is not None
            and self.requested[0] is archive
            and self.requested[1] == metric
        )

    def on_screen_resume(self) -> None:
        archive = self.sniff.archive
        if archive is not None and archive is not self.analysed:
            self.show(archive)  # archives came in while this screen was covered

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
        self.app.call_from_thread(self._measured, archive, report)

    def _measured(self, archive: Archive, report: LatencyReport) -> None:
        if self.requested is None or archive is not self.requested[0]:
            return  # a newer archive came in while this one was measured
        if archive is not self.analysed:
            self.analysed, self.reports = archive, {}
        self.reports[report.metric] = report
        if report.metric == self.metric:  # not one switched away from while it was measured
            self._present(report)

    def _present(self, report: LatencyReport) -> None:
        title = Text(f"{NAMES[report.metric]}: {plural(report.count, 'request')} ", style="bold")
        title.append(f"({report.exact:,} exact, {report.count - report.exact:,} approximate)")
        title.append("  ·  m: next metric", style="italic")
        for note in report.notes:
            title.append(f"\n{note}", style="italic")
        if not report.count:
            title.append("\nNo request in this archive has this timing.")
        self.query_one("#title", Static).update(title)
        shape = histogram(report)
        if report.beside:
            shape.append("\n")
            shape.append_text(beside_text(report.beside))
        if report.thinking:
            shape.append("\n")
            shape.append_text(thinking_text(report.thinking))
        self.query_one("#histogram", Static).update(shape)
        rows = []
        for index, item in enumerate(report.explained, start=1):
            peak = item.peak
            model, model_share = item.by_model[0] if item.by_model else ("–", 0.0)
            band, band_share = item.by_output[0] if item.by_output else ("–", 0.0)
            rows.append(
                Row.of(
                    str(index),
                    [
                        (figure(str(index)), index),
                        (figure(seconds(peak.location)), peak.location),
                        (f"{seconds(peak.low)} – {seconds(peak.high)}", peak.location),
                        (figure(percent(peak.share)), peak.share),
                        (figure(f"{item.requests:,}"), item.requests),
                        (figure(percent(item.hit_share)), item.hit_share or 0.0),
                        (f"{model} ({percent(model_share)})", model),
                        (f"{band} tokens ({percent(band_share)})", band),
                    ],
                    selectable=False,
                )
            )
        self.query_one(BrowseTable).set_rows(rows)
