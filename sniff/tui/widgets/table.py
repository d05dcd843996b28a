"""Provides `BrowseTable`: a data table that filters with `/`, sorts with `s`, opens with Enter.

Why a wrapper: every screen lists rows (projects, sessions, requests, findings) and a person
expects the same keys on all of them. Rows are given once with their sort values; filtering and
sorting re-lay them without asking the screen, and the cursor stays on the row it was on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import DataTable, Input

from sniff.tui.widgets.fit import fit_columns
from sniff.tui.widgets.shown import shown

SortValue = float | int | str
FILTER_PAUSE = 0.15
"""Seconds of no typing after which the filter applies."""


@dataclass(frozen=True, slots=True)
class Column:
    """A column: its label; figures align right and sort largest first, text A to Z."""

    label: str
    numeric: bool = True
    width: int | None = None
    largest_first: bool | None = None
    """Sort direction when the column is chosen (default: largest first for figures)."""
    narrow: bool | None = None
    """Whether the column may be cut narrower than its content when space is short (default:
    text may, figures never; a time or a range of figures is kept whole too)."""
    priority: int = 0
    """How long the column stays when the terminal is too narrow for all (`fit_columns`): the
    lowest goes first, the rightmost of equals first."""

    @property
    def descending(self) -> bool:
        """Whether choosing the column sorts it largest first."""
        return self.numeric if self.largest_first is None else self.largest_first


@dataclass(frozen=True, slots=True)
class Row:
    """A row: its key (what Enter opens), its cells, and the values it sorts by."""

    key: str
    cells: Sequence[Any]
    sort_values: Sequence[SortValue]
    selectable: bool = True
    """False for rows Enter does nothing on."""
    marker: bool = False
    """A row that marks something between its neighbours (an idle gap), hidden when sorted."""

    @classmethod
    def of(cls, key: str, pairs: Sequence[tuple[Any, SortValue]], **flags: bool) -> Row:
        """The row of (cell, value it sorts by) pairs: each column's two side by side."""
        return cls(key, [cell for cell, _ in pairs], [value for _, value in pairs], **flags)

    def matches(self, needle: str) -> bool:
        """Whether any cell holds the text (case-insensitive)."""
        return any(needle in _plain(cell).lower() for cell in self.cells)


class FilterInput(Input):
    """The filter line: Escape clears it, Enter keeps it; both return to the table."""

    BINDINGS = [Binding("escape", "cancel", "Clear filter", show=False)]

    class Cancelled(Message):
        """The filter was cleared."""

    def action_cancel(self) -> None:
        """Clear the filter."""
        self.post_message(self.Cancelled())


class BrowseTable(Vertical):
    """Rows to browse: `/` filters, `s` cycles the sort column, Enter opens a row."""

    DEFAULT_CSS = """
    BrowseTable { height: 1fr; }
    BrowseTable > FilterInput { display: none; height: 3; }
    BrowseTable.-filtering > FilterInput { display: block; }
    BrowseTable > DataTable { height: 1fr; }
    """

    BINDINGS = [
        Binding("slash", "filter", "Filter", key_display="/", tooltip="Show rows containing text"),
        # Escape clears a filter kept with Enter before it goes back: shown only then, in the
        # place of Back (`check_action`).
        Binding(
            "escape", "clear_filter", "Clear", tooltip="Clear the filter (then Escape goes back)"
        ),
        Binding("s", "cycle_sort", "Sort", tooltip="Sort by the next column", show=False),
    ]

    class Chosen(Message):
        """A row was opened with Enter (or a click)."""

        def __init__(self, table: BrowseTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> BrowseTable:
            """The table the row is in."""
            return self.table

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        sort_column: int = 0,
        sort_descending: bool | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.columns = list(columns)
        self.rows: list[Row] = []
        self._cells: list[Sequence[Any]] = []
        """The rows' cells with figures aligned, in the order of `rows`."""
        self.needle = ""
        self.sort_column = sort_column
        self.descending = (
            columns[sort_column].descending if sort_descending is None else sort_descending
        )
        self.keep_order = sort_column < 0
        self.natural_order = self.keep_order
        self._pending: Timer | None = None
        """The rows' own order (a timeline's) is one of the orders `s` cycles through."""
        self._fit: list[tuple[int, int | None]] | None = None
        """The columns shown and their widths (None before the table is laid out)."""

    def compose(self) -> ComposeResult:
        # Disabled until `/`: hidden or not, an enabled input would take the screen's focus.
        yield FilterInput(
            placeholder="filter: type text, Enter to keep, Escape to clear", disabled=True
        )
        table: DataTable[Any] = DataTable(cursor_type="row", zebra_stripes=True)
        yield table

    @property
    def table(self) -> DataTable[Any]:
        """The data table inside."""
        return self.query_one(DataTable)

    def on_mount(self) -> None:
        self._lay_columns()

    def set_rows(self, rows: list[Row]) -> None:
        """Show these rows (filtered and sorted as the person chose), keeping the cursor's row."""
        self.rows = rows
        self._cells = self._aligned(rows)
        if self._fit is not None and self._fitted() != self._fit:
            self._lay_columns()  # wider or narrower figures: the columns that fit changed
        else:
            self._relay()

    def on_resize(self) -> None:
        """Lay the columns again if the new width fits others."""
        if self._fit is not None and self._fitted() != self._fit:
            self._lay_columns()

    @property
    def shown(self) -> int:
        """Rows shown after the filter."""
        return self.table.row_count

    def move_to(self, key: str) -> None:
        """Put the cursor on the row with this key, if the filter shows it."""
        table = self.table
        if key in table.rows:
            table.move_cursor(row=table.get_row_index(key), animate=False)

    def cursor_key(self) -> str | None:
        """The key of the row under the cursor."""
        table = self.table
        if not table.row_count:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return None if row_key.value is None else str(row_key.value)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Escape clears a filter only while one is kept: without one, it goes back."""
        if action == "clear_filter":
            return bool(self.needle)
        return True

    def action_clear_filter(self) -> None:
        """Clear the filter kept with Enter, and show every row again."""
        self._clear_filter()

    def action_filter(self) -> None:
        """Show the filter line and type into it."""
        self.add_class("-filtering")
        line = self.query_one(FilterInput)
        line.disabled = False
        line.focus()

    def action_cycle_sort(self) -> None:
        """Sort by the next column (figures largest first, text A to Z), or back to the rows'
        own order after the last column where they have one (a timeline)."""
        shown = [index for index, _ in self._fit or []] or list(range(len(self.columns)))
        if self.natural_order and self.sort_column == shown[-1]:
            self.keep_order, self.sort_column = True, -1  # back to the order rows were given in
        else:
            self.keep_order = False
            after = [index for index in shown if index > self.sort_column]
            self.sort_column = after[0] if after else shown[0]  # a column shown: its arrow too
            self.descending = self.columns[self.sort_column].descending
        self._lay_columns()

    @on(Input.Changed)
    def _filter_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.needle = event.value.strip().lower()
        # Re-lay once typing pauses, not on every key: a long table takes a moment to fill.
        if self._pending is not None:
            self._pending.stop()
        self._pending = self.set_timer(FILTER_PAUSE, self._relay)

    @on(Input.Submitted)
    def _filter_kept(self, event: Input.Submitted) -> None:
        event.stop()
        if self._pending is not None:
            self._pending.stop()
            self._relay()
        if not self.needle:
            self._close_filter()
        self.table.focus()
        self.refresh_bindings()  # Escape now clears the filter kept: the footer says so

    @on(FilterInput.Cancelled)
    def _filter_cleared(self, event: FilterInput.Cancelled) -> None:
        event.stop()
        self._clear_filter()

    def _clear_filter(self) -> None:
        self.query_one(FilterInput).value = ""
        self.needle = ""
        if self._pending is not None:
            self._pending.stop()
        self._close_filter()
        self._relay()
        self.table.focus()
        self.refresh_bindings()  # Escape goes back again

    def _close_filter(self) -> None:
        self.remove_class("-filtering")
        self.query_one(FilterInput).disabled = True

    @on(DataTable.HeaderSelected)
    def _header_clicked(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        index = self._fit[event.column_index][0] if self._fit else event.column_index
        if index == self.sort_column and not self.keep_order:
            self.descending = not self.descending
        else:
            self.sort_column = index
            self.descending = self.columns[index].descending
        self.keep_order = False
        self._lay_columns()

    @on(DataTable.RowSelected)
    def _row_chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value
        row = next((row for row in self.rows if row.key == key), None)
        if row is not None and row.selectable:
            self.post_message(self.Chosen(self, row.key))

    def _aligned(self, rows: list[Row]) -> list[Sequence[Any]]:
        """The rows' cells with figures right-aligned within their column (as wide as its
        widest cell in any row, so filtering does not shift it)."""
        widths = {
            index: max(
                [len(column.label) + 2]  # room for the sort arrow
                + [_cell_len(row.cells[index]) for row in rows if not row.marker]
            )
            for index, column in enumerate(self.columns)
            if column.numeric
        }
        return [
            [shown(cell) for cell in row.cells]
            if row.marker
            else [
                _right(shown(cell), widths[index]) if index in widths else shown(cell)
                for index, cell in enumerate(row.cells)
            ]
            for row in rows
        ]

    def _natural(self) -> list[int]:
        """Each column's width with nothing cut: its widest cell, or its label and sort arrow."""
        return [
            max([len(column.label) + 2] + [_cell_len(cells[index]) for cells in self._cells])
            for index, column in enumerate(self.columns)
        ]

    def _fitted(self) -> list[tuple[int, int | None]]:
        """The columns the table's width shows whole (`fit_columns`), and their widths."""
        if not self.size.width:  # not laid out yet: the first resize fits them
            return [(index, column.width) for index, column in enumerate(self.columns)]
        # the vertical scrollbar's room is kept whether it shows or not: rows come and go
        room = self.size.width - self.table.styles.scrollbar_size_vertical
        return fit_columns(self.columns, self._natural(), room, self.table.cell_padding)

    def _lay_columns(self) -> None:
        table = self.table
        keep = self.cursor_key()  # clearing the columns clears the rows and the cursor too
        table.clear(columns=True)
        self._fit = self._fitted()
        for index, width in self._fit:
            label = self.columns[index].label
            if index == self.sort_column and not self.keep_order:
                label += " ▼" if self.descending else " ▲"
            table.add_column(label, width=width, key=str(index))
        self._relay(keep)

    def _relay(self, keep: str | None = None) -> None:
        """Fill the table with the rows the filter shows, in the order chosen, the cursor kept
        on its row (`keep`: the row it was on before the table was cleared)."""
        table = self.table
        if not table.columns or self._fit is None:
            return
        keep = keep or self.cursor_key()
        visible = list(zip(self.rows, self._cells, strict=True))
        if self.needle:
            visible = [pair for pair in visible if pair[0].matches(self.needle)]
        if not self.keep_order:
            # Marker rows (an idle gap) only mean something between their neighbours in time.
            visible = [pair for pair in visible if not pair[0].marker]
            index = self.sort_column
            visible.sort(key=lambda pair: pair[0].sort_values[index], reverse=self.descending)
        table.clear()
        for row, cells in visible:
            table.add_row(*[cells[index] for index, _ in self._fit], key=row.key)
        if keep is not None:
            self.move_to(keep)


def _right(cell: Any, width: int) -> Any:
    """The cell padded on the left to `width` (a data table aligns every cell left)."""
    text = cell if isinstance(cell, Text) else Text(str(cell))
    return Text(" " * (width - text.cell_len)) + text if text.cell_len < width else text


def _plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)


def _cell_len(cell: Any) -> int:
    return cell.cell_len if isinstance(cell, Text) else len(str(cell))
