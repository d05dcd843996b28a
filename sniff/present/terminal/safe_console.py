"""Provides `SafeConsole`: the one kind of Rich console sniff prints to a terminal with, which shows
text read from logs and never obeys it.

Why: a project folder, a branch, a prompt or a commit message is whatever someone put there.
Parsed as Rich markup, `see docs[/]` stops the run with a MarkupError, `[red]` is swallowed and
`[link=…]` becomes a clickable link; passed as it is, `ESC ] 0 ; … BEL` retitles the terminal.
So this console never parses markup or emoji codes, in any string (sniff's own styling is given
as `rich.text.Text` styles, never as markup), every string it renders goes through
`sniff.shown.terminal` first (secrets redacted, control characters made visible), and, as a net
under all of that, no segment it writes holds a control character other than a line break.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from sniff.shown import terminal, visible

LAYOUT = frozenset("\n")
"""The only control character a rendered segment may hold: Rich's own line breaks."""


class SafeConsole(Console):
    """A `Console` with markup and emoji codes off whose strings pass through `shown.terminal`."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**{**options, "markup": False, "emoji": False})

    def render_str(self, text: str, **options: Any) -> Text:
        """As Rich's, with markup and emoji off whatever a caller asks, on the shown text."""
        return super().render_str(terminal(text), **{**options, "markup": False, "emoji": False})

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        """As Rich's, with any control character left in a text segment made visible (a
        `Text` built from a log's text without `shown.terminal`)."""
        for segment in super().render(renderable, options):
            text = segment.text
            if segment.control or text.isprintable() or set(text) <= LAYOUT:
                yield segment
            else:
                yield Segment(_visible_keeping_breaks(text), segment.style, segment.control)


def _visible_keeping_breaks(text: str) -> str:
    return "\n".join(visible(line, lines=False) for line in text.split("\n"))


def styled(text: str, style: str | Style = "") -> Text:
    """Text from a log, shown (secrets redacted, controls visible), in sniff's `style`."""
    return Text(terminal(text), style=style)
