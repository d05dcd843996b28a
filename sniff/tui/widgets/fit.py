"""Provides `fit_columns`: which of a table's columns a terminal's width shows, and how wide.

Why: a table wider than the terminal scrolled sideways, and the column at the edge was cut in
the middle of a figure (`15.` for `15.9k`, `2,4` for `2,456`) with nothing to say so: a cut
number reads as another number. So a figure is shown whole or not at all: text may be narrowed
(it reads as cut), and when even that is not enough the least important columns are left out
(their values are on the screen Enter opens).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

TEXT_FLOOR = 12
"""The fewest cells a text column is narrowed to (its label permitting) before columns go."""


class Fitted(Protocol):
    """What fitting reads of a column (`table.Column`)."""

    @property
    def label(self) -> str: ...
    @property
    def numeric(self) -> bool: ...
    @property
    def width(self) -> int | None: ...
    @property
    def narrow(self) -> bool | None: ...
    @property
    def priority(self) -> int: ...


def fit_columns(
    columns: Sequence[Fitted], natural: Sequence[int], room: int, padding: int
) -> list[tuple[int, int | None]]:
    """The columns shown in `room` cells, as (index, width; None: as wide as its content).

    Args:
        natural: each column's width with nothing cut (its widest cell or its label).
        padding: the cells a table puts on each side of a column.

    Figures and fixed-width columns keep their width; text may shrink to `TEXT_FLOOR` (unless
    `narrow` is False). While the
    columns do not fit, the one of lowest priority goes, the rightmost first (columns are laid
    in order of importance). The last column shown, if text, keeps its whole width: running off
    the edge it cuts nothing after it, and scrolling shows the rest.
    """
    floors = [_floor(column, width) for column, width in zip(columns, natural, strict=True)]

    def need(indexes: list[int]) -> int:
        return sum(floors[index] + 2 * padding for index in indexes)

    shown = list(range(len(columns)))
    for index in sorted(shown, key=lambda i: (columns[i].priority, -i)):
        if need(shown) <= room or len(shown) == 1:
            break
        shown.remove(index)
    spare = room - need(shown)
    widths: dict[int, int | None] = {}
    for index in shown:
        extra = max(0, min(natural[index] - floors[index], spare))
        spare -= extra
        widths[index] = floors[index] + extra
    last = shown[-1]
    if _narrows(columns[last]) and columns[last].width is None:
        widths[last] = None
    return [(index, widths[index]) for index in shown]


def _floor(column: Fitted, natural: int) -> int:
    """The narrowest a column may be: a figure or a fixed width as it is, text to the floor."""
    if column.width is not None:
        return column.width
    if not _narrows(column):
        return natural
    return min(natural, max(len(column.label) + 2, TEXT_FLOOR))


def _narrows(column: Fitted) -> bool:
    return not column.numeric if column.narrow is None else column.narrow
