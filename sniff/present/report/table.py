"""Provides `Table`: one section of the report as rows, what the HTML and Markdown writers lay
out, so that a table has the same title, columns and figures in every format."""

from __future__ import annotations

from dataclasses import dataclass

from sniff.present.report.agents import Row


@dataclass(frozen=True, slots=True)
class Table:
    """One section of the report."""

    anchor: str
    """Its id in the HTML page."""
    title: str
    headers: list[str]
    rows: list[Row]
    text_columns: int = 1
    """How many leading columns are text (aligned left, sorted as text)."""
    note: str = ""
    prose_columns: tuple[int, ...] = ()
    """Columns of sniff's own words (never a log's), where a `command` may be set as code."""

    def is_text(self, column: int) -> bool:
        """A leading text column, or one whose cells have no value to sort by."""
        return column < self.text_columns or all(row[column][1] is None for row in self.rows)
