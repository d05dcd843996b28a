"""Provides the presentation of time to first visible token beside time to first token, per
model: the rows every front end shows, the terminal table and the JSON list."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sniff.numbers import percent, seconds
from sniff.present.terminal.console import measures_table

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

    from sniff.analyses.latency.peaks import PeakReport
    from sniff.analyses.latency.visible import Beside, ThinkingShare

HEADERS = ["model", "reqs", "TTFT p50", "TTFT peaks", "vis. p50", "vis. peaks", "later", "by p50"]
"""Short enough for an 80-column terminal: `CAPTION` says what they mean."""
CAPTION = "vis.: first visible token · later: shown after the first token, by (median)"
TITLE = "Time to first visible token beside time to first token (approximate: upper bounds)"
THINKING_TITLE = "Thinking's share of output tokens, where the log holds the generated text"
THINKING_HEADERS = ["model", "responses", "output tokens", "thinking"]
THINKING_NOTE = (
    "estimated: the streamed thinking, text and tool-input deltas (or a body's blocks) counted "
    "with sniff's tokenizer, weighted by the reported output tokens; no time is given, as "
    "claude-trace stamps only the request and the response's arrival"
)


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
    """The terminal table, its caption under it."""
    rows = beside_rows(beside)
    return measures_table(TITLE, HEADERS, rows, text_columns=1, dated=True, caption=CAPTION)


def beside_text(beside: list[Beside]) -> Text:
    """The table as plain aligned lines, under its title (for a screen's text panel)."""
    return aligned(TITLE, [HEADERS, *beside_rows(beside)])


def thinking_text(shares: list[ThinkingShare]) -> Text:
    """The thinking shares as plain aligned lines, under their title and with their note."""
    text = aligned(THINKING_TITLE, [THINKING_HEADERS, *thinking_rows(shares)])
    text.append(THINKING_NOTE + "\n", style="italic")
    return text


def aligned(title: str, rows: list[list[str]]) -> Text:
    """Rows (the first one the headers) as aligned lines under a title: text left, numbers right."""
    from rich.text import Text

    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    text = Text(title + "\n", style="bold")
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


def thinking_rows(shares: list[ThinkingShare]) -> list[list[str]]:
    """One row per model: responses, their output tokens, thinking's share."""
    return [
        [row.model, f"{row.responses:,}", f"{row.output_tokens:,}", percent(row.share)]
        for row in shares
    ]


def thinking_table(shares: list[ThinkingShare]) -> Table:
    """The terminal table, its note under it."""
    rows = thinking_rows(shares)
    return measures_table(
        THINKING_TITLE, THINKING_HEADERS, rows, text_columns=1, caption=THINKING_NOTE
    )


def thinking_json(shares: list[ThinkingShare]) -> list[dict[str, Any]]:
    """The rows with stable keys."""
    return [
        {
            "model": row.model,
            "responses": row.responses,
            "output_tokens": row.output_tokens,
            "share": row.share,
            "estimated_thinking_tokens": round(row.share * row.output_tokens),
        }
        for row in shares
    ]
