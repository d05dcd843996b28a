"""Provides the help screen, written from the key bindings themselves so it cannot go stale."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

INTRO = """\
# sniff

Walk from what the archive cost to the request that wasted it: **Enter** opens the row under the
cursor (a project, a session, a request), **Escape** goes back. Figures are the same as
`sniff scan` and `sniff cache --breaks`. **w** follows the files as they grow (`sniff tui --live`):
new requests appear, and the totals move, as the agents log them.

In a session, each request's *cache* bar shows its prompt as read from the cache, written to it,
and uncached; **✖** marks a cache break with its cause and **┄ idle** a gap longer than the cache
lived. A request's screen lists its prompt's blocks (where the log holds the prompt), coloured by
what the cache did, and points at the first block that changed.

A terminal too narrow for a table leaves out its less important columns rather than cut a figure:
widen it to see them, or open the row.
"""


def bindings_markdown(sections: list[tuple[str, list[BindingType]]]) -> str:
    """One table of keys per section, from their bindings: those the footer leaves out for
    room too (`show=False`), as help is where a person looks for every key."""
    lines: list[str] = []
    for title, bindings in sections:
        shown = [b for b in bindings if isinstance(b, Binding) and b.description]
        if not shown:
            continue
        lines += [f"## {title}", "", "| key | does |", "|---|---|"]
        for binding in shown:
            key = binding.key_display or binding.key
            what = binding.description + (f": {binding.tooltip}" if binding.tooltip else "")
            lines.append(f"| `{key}` | {what} |")
        lines.append("")
    return "\n".join(lines)


def key_sections(everywhere: list[BindingType]) -> list[tuple[str, list[BindingType]]]:
    """Every binding sniff defines, by where it works (`everywhere`: the app's own)."""
    from textual.widgets import DataTable

    from sniff.tui.screens.base import ArchiveScreen
    from sniff.tui.screens.latency import LatencyScreen
    from sniff.tui.widgets.table import BrowseTable

    moves = [
        Binding(b.key, b.action, b.description or b.action.replace("_", " "))
        for b in DataTable.BINDINGS
        if isinstance(b, Binding)
    ]
    # Textual's own key, which the footer no longer shows
    palette = Binding("ctrl+p", "command_palette", "Palette", tooltip="Switch theme, and more")
    return [
        ("Everywhere", [*everywhere, palette]),
        ("On every screen", list(ArchiveScreen.BINDINGS)),
        ("In tables", list(BrowseTable.BINDINGS) + moves),
        ("On the latency screen", list(LatencyScreen.BINDINGS)),
    ]


class HelpScreen(ModalScreen[None]):
    """The keys, and how to read the screens."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", show=False)]

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 100; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            everywhere = list(type(self.app).BINDINGS)  # the app's class: a screen never imports it
            yield Markdown(INTRO + "\n" + bindings_markdown(key_sections(everywhere)))

    def action_dismiss(self) -> None:  # type: ignore[override]
        """Close the help."""
        self.dismiss()
