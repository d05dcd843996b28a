"""Provides `ArchiveScreen`: a screen that shows part of the archive and follows its updates."""

from __future__ import annotations

from typing import Protocol, cast

from textual.binding import Binding
from textual.screen import Screen

from sniff.analyses.browse import Archive
from sniff.findings import Finding
from sniff.pricing import PriceBook
from sniff.tui.palette import Palette, palette


class Browser(Protocol):
    """What a screen reads of the app that shows it (`SniffApp`), so that no screen imports the
    app, which imports every screen."""

    archive: Archive | None
    """The archive as read so far; None until the first batch of logs is read."""
    lint_findings: list[Finding] | None
    """The lint findings of the logged prompts; None until they are checked."""
    prices: PriceBook


class ArchiveScreen(Screen[None]):
    """A view of the archive; the app hands it each new archive as loading goes on."""

    BINDINGS = [Binding("escape", "back", "Back", tooltip="Back to the previous screen")]

    @property
    def sniff(self) -> Browser:
        """The app, as the screens read it."""
        return cast(Browser, self.app)

    @property
    def colours(self) -> Palette:
        """Colours of the current theme."""
        return palette(self.app)

    @property
    def uncovered(self) -> bool:
        """On the screen stack with no screen over it but modal ones (which leave it in view)."""
        stack = self.app.screen_stack
        if self not in stack:
            return False
        return all(screen.is_modal for screen in stack[stack.index(self) + 1 :])

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._repaint)
        archive = self.sniff.archive
        if archive is not None:
            self.show(archive)

    def _repaint(self, _theme: object) -> None:
        """Data is painted in the theme's colours: paint it again in the new ones."""
        archive = self.sniff.archive
        if archive is not None:
            self.show(archive)

    def show(self, archive: Archive) -> None:
        """Fill the screen from the archive (called again whenever it changes)."""

    def action_back(self) -> None:
        """Return to the previous screen (the overview stays)."""
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()
