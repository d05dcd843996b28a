"""Provides `SniffApp`, the Textual browser, and `make_app`, which builds it over logs or data.

The app owns the data: it reads the archive through the Workspace in a worker (newest files
first, so the overview fills in while the rest loads; `Workspace.batches`), analyses it there,
and hands each new `Archive` to the screens, which only present it. Lint findings follow in a
second worker, run again when a reload changed the files. In live mode (`--live`, or `w`), a
timer asks a worker every few seconds whether the files changed, and it reads them if so.
"""

from __future__ import annotations

from datetime import UTC, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.content import Content
from textual.notifications import SeverityLevel
from textual.screen import Screen

from sniff.analyses.browse import Archive, build_archive
from sniff.model import Dataset
from sniff.numbers import plural
from sniff.pricing import PriceBook
from sniff.shown import one_line
from sniff.tui.screens.base import ArchiveScreen
from sniff.tui.screens.overview import OverviewScreen
from sniff.workspace import Workspace
from sniff.workspace.batches import Progress

if TYPE_CHECKING:
    from collections.abc import Iterator

    from textual.timer import Timer
    from textual.worker import Worker

    from sniff.findings import Finding


class SniffApp(App[None]):
    """Browse an archive of agent logs: projects, sessions, requests, and what broke the cache."""

    TITLE = "sniff"
    CSS_PATH = "sniff.tcss"
    BINDINGS = [
        # The footer has room for these at 80 columns (`widgets.footer`): a key added here
        # needs one of them hidden (`show=False`; help still lists it).
        Binding("q", "quit", "Quit", tooltip="Leave sniff (ctrl+q too)"),
        Binding("f", "findings", "Findings", tooltip="Cache breaks and lint findings by dollars"),
        Binding("l", "latency", "Latency", tooltip="The latency distribution and its peaks"),
        Binding(
            "a",
            "agents",
            "Agents",
            tooltip="Tools, failures, and what each user request led to (sniff agents)",
        ),
        Binding("r", "reload", "Reload", tooltip="Read the files that changed since"),
        Binding("w", "live", "Live", tooltip="Follow the files as they grow (toggle)"),
        Binding("question_mark", "help", "Help", key_display="?", tooltip="Keys and how to read"),
    ]

    def __init__(
        self,
        *,
        prices: PriceBook,
        zone: tzinfo,
        workspace: Workspace | None = None,
        dataset: Dataset | None = None,
        lint_findings: list[Finding] | None = None,
        live: bool = False,
        interval: float = 2.0,
    ) -> None:
        super().__init__()
        self.prices = prices
        self.zone = zone
        self.workspace = workspace
        self.given = dataset
        self._listed: Iterator[Progress] | None = workspace.batches() if workspace else None
        """The first read, its files listed (so that a missing path is refused at once)."""
        self.archive: Archive | None = None
        """The archive as analysed so far (None until the first batch is read)."""
        self.lint_findings: list[Finding] | None = lint_findings
        """Lint findings of the logged prompts (None while they are being checked)."""
        self.loaded = False
        """Every file has been read at least once."""
        self.linted_files: tuple[str, ...] | None = None
        """The files the last lint checked (None before any)."""
        self.live = live
        """Whether changed files are read as they change."""
        self.interval = interval
        """Seconds between two checks for changed files in live mode."""
        self._listing: tuple[tuple[str, tuple[int, ...]], ...] | None = None
        """The files and their identities as the last read listed them."""
        self._ticker: Timer | None = None

    def get_default_screen(self) -> Screen[None]:
        return OverviewScreen()

    def format_title(self, title: str, sub_title: str) -> Content:
        """The header's title, with a project's or a session's name shown as text from a log
        always is (`sniff.shown`)."""
        return super().format_title(one_line(title), one_line(sub_title))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """A notification, never read as markup: its message may name a log's path or error."""
        super().notify(
            one_line(message), title=title, severity=severity, timeout=timeout, markup=False
        )

    def on_mount(self) -> None:
        if self.given is not None:
            self._analyse(self.given)
        else:
            self._load()
        if self.live:
            self.live = False
            self.action_live()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _analyse(self, dataset: Dataset) -> None:
        """Analyse a dataset read beforehand (the app factory's, for tests and embedding)."""
        archive = build_archive(dataset, self.prices, self.zone)
        total = len(dataset.files)
        done = Progress(dataset, total, total, 1, 1, 0)
        self.call_from_thread(self._show, archive, done)

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load(self) -> None:
        """Read the archive (or what changed in it) batch by batch, analysing after each."""
        from textual.worker import get_current_worker

        assert self.workspace is not None
        worker = get_current_worker()
        try:
            self._listing = self.workspace.listing()
            batches, self._listed = self._listed or self.workspace.batches(), None
            for progress in batches:
                if worker.is_cancelled:
                    return
                archive = build_archive(progress.dataset, self.prices, self.zone)
                self.call_from_thread(self._show, archive, progress)
        except Exception as error:  # a log that breaks the reader must not end the app
            self.call_from_thread(self._failed, "reading the logs", error)

    def _show(self, archive: Archive, progress: Progress) -> None:
        self.archive = archive
        if progress.done:
            self.sub_title = ""
        else:
            self.sub_title = (
                f"reading {progress.fraction:.0%}: {progress.files_read:,} of "
                f"{plural(progress.files_total, 'file')}"
            )
        for screen in self.screen_stack:
            if isinstance(screen, ArchiveScreen):
                screen.show(archive)
            if isinstance(screen, OverviewScreen):
                screen.show_progress(progress.fraction, progress.done)
        if progress.done:
            first = not self.loaded
            self.loaded = True
            if first and self.lint_findings is None:
                self._lint()
            elif not first:
                if not self.live:  # live, the numbers changing in place say it
                    self.notify(f"Re-read {plural(progress.changed, 'changed file')}.")
                relint = progress.changed or archive.dataset.files != self.linted_files
                if self.linted_files is not None and relint:  # (given findings are kept)
                    self._lint()  # the findings were of the files as they were

    def _failed(self, doing: str, error: Exception) -> None:
        self.notify(f"sniff: error {doing}: {error}", severity="error", timeout=10)

    def _lint(self) -> None:
        """Check the prompts of the archive's files, again after a reload changed them."""
        assert self.archive is not None
        self.linted_files = self.archive.dataset.files
        self._lint_files(self.linted_files)

    @work(thread=True, exclusive=True, group="lint", exit_on_error=False)
    def _lint_files(self, files: tuple[str, ...]) -> None:
        """Check the prompts the logs hold for what breaks caching (sniff lint)."""
        from functools import partial

        from textual.worker import get_current_worker

        from sniff.lint import LintConfig, lint
        from sniff.logs import load

        worker = get_current_worker()
        # Only the logs: a prompt file lying beside them is not part of the archive. Idle gaps
        # (SN012) are already shown as ttl_expired breaks, priced from usage.
        logs = [Path(file) for file in files]
        config = LintConfig(ignore=("SN012",))
        read = partial(load, use_index=self.workspace.use_index if self.workspace else True)
        try:
            report = lint(logs, config, self.prices, load=read)
        except Exception as error:
            self.call_from_thread(self._failed, "checking prompts", error)
            report = None
        self.call_from_thread(self._linted, report.findings if report else [], worker)

    def _linted(self, findings: list[Finding], worker: Worker[None]) -> None:
        from sniff.tui.screens.findings import FindingsScreen

        if worker.is_cancelled:  # a later lint, of the files as they are now, replaced it
            return
        self.lint_findings = findings
        for screen in self.screen_stack:
            if isinstance(screen, FindingsScreen) and self.archive is not None:
                screen.show(self.archive)

    def action_findings(self) -> None:
        """Open the findings (breaks and lint), dearest first."""
        from sniff.tui.screens.findings import FindingsScreen

        if not isinstance(self.screen, FindingsScreen):
            self.push_screen(FindingsScreen())

    def action_latency(self) -> None:
        """Open the latency distribution and its peaks."""
        from sniff.tui.screens.latency import LatencyScreen

        if not isinstance(self.screen, LatencyScreen):
            self.push_screen(LatencyScreen())

    def action_agents(self) -> None:
        """Open what the agents did (`sniff agents`): tools, failures and user requests."""
        from sniff.tui.screens.behaviour import BehaviourScreen

        if not isinstance(self.screen, BehaviourScreen):
            self.push_screen(BehaviourScreen())

    def action_reload(self) -> None:
        """Read the files that changed since they were read."""
        if self.workspace is None:
            self.notify("Nothing to reload: this archive was given, not read from files.")
            return
        if any(worker.group == "load" and worker.is_running for worker in self.workers):
            # a second read beside the first would parse the same files twice
            self.notify("Still reading the logs: press r again once they are read.")
            return
        self.sub_title = "reading changed files…"
        self._load()

    def action_live(self) -> None:
        """Follow the files as they grow, or stop following them."""
        if self.workspace is None:
            self.notify("Nothing to follow: this archive was given, not read from files.")
            return
        self.live = not self.live
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        if self.live:
            self._ticker = self.set_interval(self.interval, self._tick)
        self.notify("Live: following the files as they grow." if self.live else "Live: off.")

    def _tick(self) -> None:
        if not any(worker.group == "load" and worker.is_running for worker in self.workers):
            self._follow()

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _follow(self) -> None:
        """Read the files again if any changed since the last read listed them."""
        assert self.workspace is not None
        try:
            changed = self.workspace.listing() != self._listing
        except Exception as error:  # a folder gone must not end the app
            self.call_from_thread(self._failed, "listing the logs", error)
            return
        if changed:
            self.call_from_thread(self._load)

    def action_help(self) -> None:
        """Show the keys."""
        from sniff.tui.screens.help import HelpScreen

        self.push_screen(HelpScreen())


def make_app(
    source: Dataset | Workspace,
    *,
    prices: PriceBook | None = None,
    zone: tzinfo = UTC,
    lint_findings: list[Finding] | None = None,
    live: bool = False,
    interval: float = 2.0,
) -> SniffApp:
    """The app over a dataset already read (no file reading at all), or over a Workspace's
    logs, read through it (`Workspace.batches`) and again on reload.

    Args:
        prices, zone: a dataset's (a Workspace has its own).
        lint_findings: findings to show beside a dataset's breaks (a Workspace's logs are
            checked by the app).
        live, interval: follow a Workspace's files, checking for changes every `interval` s.

    Raises:
        UserError: a Workspace's path does not exist.
    """
    if isinstance(source, Dataset):
        return SniffApp(
            prices=prices or PriceBook(), zone=zone, dataset=source,
            lint_findings=lint_findings or [],
        )  # fmt: skip
    return SniffApp(
        prices=source.prices, zone=source.zone, workspace=source, live=live, interval=interval
    )
