"""Provides the presentation of time to first visible token beside time to first token, per
model: the rows every front end shows, the terminal table and the JSON list."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sniff.numbers import seconds
from sniff.present.console import measures_table

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

    from sniff.analyses.peaks import PeakReport
    from sniff.analyses.visible import Beside

HEADERS = [
    "model",
    "reqs",
    "TTFT p50",
    "TTFT peaks",
    "visible p50",
    "visible peaks",
    "later",
    "later by (p50)",
]
TITLE = "Time to first visible token beside time to first token (approximate: upper bounds)"


def peaks_text(report: PeakReport) -> str:
    """The locations of a distribution's peaks, fastest first ("–" where none was found)."""
    return ", ".join(seconds(peak.location) for peak in report.peaks) or "–"


def beside_rows(beside: list[Beside]) -> list[list[str]]:
    """One row per model, in `HEADERS`' order; `later`: requests whose first visible token
    came after their first token, and by how much (their median)."""
    return [
        [
            row.model,
            f"{row.requests:,}",
            seconds(row.ttft_median),
            peaks_text(row.ttft_peaks),
            seconds(row.visible_median),
            peaks_text(row.visible_peaks),
            f"{row.later:,}",
            seconds(row.difference_median),
        ]
        for row in beside
    ]


def beside_table(beside: list[Beside]) -> Table:
    """The terminal table."""
    return measures_table(TITLE, HEADERS, beside_rows(beside), text_columns=1, dated=True)


def beside_text(beside: list[Beside]) -> Text:
    """The table as plain aligned lines, under its title (for a screen's text panel)."""
    from rich.text import Text

    rows = [HEADERS, *beside_rows(beside)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADERS))]
    text = Text(TITLE + "\n", style="bold")
    for number, row in enumerate(rows):
        right = [cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True)]
        cells = [row[0].ljust(widths[0]), *right]
        text.append("  ".join(cells) + "\n", style="dim" if number == 0 else "")
    return text


def beside_json(beside: list[Beside]) -> list[dict[str, Any]]:
    """The rows with stable keys, seconds as numbers."""
    return [
        {
            "model": row.model,
            "requests": row.requests,
            "ttft_median_s": row.ttft_median,
            "visible_median_s": row.visible_median,
            "later_by_median_s": row.difference_median,
            "visible_after_first_token": row.later,
            "ttft_peaks_s": [peak.location for peak in row.ttft_peaks.peaks],
            "visible_peaks_s": [peak.location for peak in row.visible_peaks.peaks],
        }
        for row in beside
    ]
