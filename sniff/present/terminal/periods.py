"""Provides the table of `sniff daily`, `sniff weekly` and `sniff monthly` (their JSON:
`periods_json`).

The columns are those a ccusage user knows: a period's models, harnesses or projects (with
`--breakdown`), input, output, cache write and read tokens, their total, and cost; sniff adds
requests, hit rate and savings. ccusage's "Cache Create" is sniff's cache write, the one word
every sniff table uses.
"""

from __future__ import annotations

from datetime import tzinfo

from rich.table import Table

from sniff.analyses.cost.periods import PeriodRow, PeriodTable
from sniff.analyses.cost.summary import Totals
from sniff.numbers import compact, money, percent
from sniff.present.json.common import zone_name
from sniff.present.terminal.console import cost_cell, measures_table
from sniff.present.terminal.layout import short_project

HEADERS = ["reqs", "input", "output", "write", "read", "total", "hit", "cost", "saved"]
"""ccusage's Cache Create, Cache Read and Total Tokens are `write`, `read` and `total`."""
SESSIONS_MARK = (
    "reqs +N: and N sessions their agent logged only as totals (Droid, Goose), with no "
    "request in them to count; their tokens and cost are counted"
)
"""What a requests cell's `+1` says (`0 +1`): without it, `0` requests beside thousands of
tokens reads like a bug."""


def periods_table(table: PeriodTable, zone: tzinfo, *, breakdown: bool) -> Table:
    """One line per period (and with `breakdown`, one per model, harness or project under it,
    as `table.breakdown` says), then the total."""
    cells: list[list[str]] = []
    for row in table.rows:
        cells.append([_label(row, table.by), *_measures(row.totals)])
        if breakdown:
            cells += [
                [f"└ {_part(group.key, table.breakdown)}", *_measures(group.totals)]
                for group in row.parts
            ]
    cells.append(["Total", *_measures(table.summary.totals)])
    title = f"Cost by {table.by} ({zone_name(zone)})"
    caption = SESSIONS_MARK if table.summary.totals.rollups else None
    # `dated`: a model name loses its date before its end, and the column keeps up to 17
    # characters while another column can go, so a week's label (`2026-W07 02-09`, 14) is
    # never cut through its Monday, whatever the breakdown
    return measures_table(
        title, [table.by, *HEADERS], cells, text_columns=1, dated=True, caption=caption
    )


def _label(row: PeriodRow, by: str) -> str:
    """A week shows its Monday too: `2026-W13 03-23`."""
    return f"{row.key} {row.start:%m-%d}" if by == "week" else row.key


def _part(key: str, breakdown: str) -> str:
    """A breakdown row's name: a project by its last two folders, as every table shows one."""
    return short_project(key) if breakdown == "project" else key


def _measures(totals: Totals) -> list[str]:
    return [
        requests_cell(totals),
        compact(totals.input_tokens),
        compact(totals.output_tokens),
        compact(totals.cache_write_5m_tokens + totals.cache_write_1h_tokens),
        compact(totals.cache_read_tokens),
        compact(totals.total_tokens),
        percent(totals.hit_rate),
        cost_cell(totals),
        money(totals.savings),
    ]


def requests_cell(totals: Totals) -> str:
    """The requests, and the sessions logged only as totals beside them (`12 +1`), as the
    harness table counts them (`+1 sess.`, too wide here: each character it takes drops a
    column at 80): a count of requests alone would read `0` for such a row."""
    count = f"{totals.requests:,}"
    return f"{count} +{totals.rollups}" if totals.rollups else count
