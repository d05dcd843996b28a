"""Provides `keys_footer`, the footer of every screen: the keys a person needs to find their way.

Why not Textual's footer as it comes: at 80 columns its padded keys and its command palette key
ran past the edge, and `?` (help) and `r` (reload) were cut off, so the keys that explain the
rest were the ones not seen. Compact, without the palette key (ctrl+p still opens it, and help
lists it), the keys sniff shows fit in 80 columns; the ones left out (`show=False`) are in help.
"""

from __future__ import annotations

from textual.widgets import Footer


def keys_footer() -> Footer:
    """The footer of sniff's screens: compact, its keys whole at 80 columns."""
    return Footer(compact=True, show_command_palette=False)
