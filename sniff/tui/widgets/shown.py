"""Provides the TUI's way out for text read from logs: `shown` for a cell or a line of text,
and `ShownStatic`, the static text widget every screen shows such text in.

Why: Textual parses a string given to a `Static` or a data table as markup (`see docs[/]`
would stop the screen, `[link=…]` would be obeyed) and writes control characters to the
terminal as they are (an ESC from a branch name would reach it). So text from a log reaches a
widget only as a `rich.text.Text` whose characters went through `sniff.shown` (secrets redacted,
controls made visible), and the widgets that show it apply this to whatever they are given, so a
screen cannot forget it.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.visual import VisualType
from textual.widgets import Static

from sniff.redact_secrets import redact_secrets
from sniff.shown import visible


def shown(content: Any) -> Any:
    """A string or `Text` as the TUI may show it (a `Text`, its styles kept where redaction
    left its length as it was); any other renderable is sniff's own and passes as it is."""
    if isinstance(content, str):
        return Text(visible(redact_secrets(content)))
    if not isinstance(content, Text):
        return content
    redacted = redact_secrets(content.plain)
    if len(redacted) != len(content.plain):  # a key replaced: the spans no longer fit
        return Text(visible(redacted), style=content.style, justify=content.justify)
    safe = content.copy()
    safe.plain = visible(redacted)  # one character for one: the styles' spans still fit
    return safe


class ShownStatic(Static):
    """A `Static` that shows what it is given through `shown`: never as markup, no control
    character, no credential."""

    def __init__(self, content: VisualType = "", **options: Any) -> None:
        super().__init__(shown(content), markup=False, **options)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(shown(content), layout=layout)
