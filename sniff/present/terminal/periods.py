"""Provides the table of `sniff daily`, `sniff weekly` and `sniff monthly` (their JSON:
`periods_json`).

The columns are those a ccusage user knows: a period's models (with `--breakdown`), input,
output, cache write and read tokens, and cost; sniff adds requests, hit rate and savings.
ccusage's "Cache Create" is sniff's cache write, the one word every sniff table uses.
"""

from __future__ import annotations

from datetime import tzinfo

from rich.table import Table

from sniff.analyses.cost.periods import PeriodRow, PeriodTable
from sniff.analyses.cost.summary import Totals
from sniff.numbers import compact, money, percent
from sniff.present.json.common import zone_name
from sniff.present.terminal.console import cost_cell, measures_table

HEADERS = ["reqs", "input", "output", "write", "read", "hit", "cost", "saved"]
"""ccusage's Cache Create and Cache Read are `write` and `read`; its Total Tokens is in the
JSON (the table fits 80 columns without it)."""


def periods_table(table: PeriodTable, zone: tzinfo, *, breakdown: bool) -> Table:
    """One line per period (and with `breakdown`, one per model under it), then the total."""
    cells: list[list[str]] = []
    for row in table.rows:
        cells.append([_label(row, table.by), *_measures(row.totals)])
        if breakdown:
            cells += [[f"└ {group.key}", *_measures(group.totals)] for group in row.models]
    cells.append(["Total", *_measures(table.summary.totals)])
    title = f"Cost by {table.by} ({zone_name(zone)})"
    return measures_table(title, [table.by, *HEADERS], cells, text_columns=1, dated=breakdown)


def _label(row: PeriodRow, by: str) -> str:
    """A week shows its Monday too: `2026-W13 03-23`."""
    return f"{row.key} {row.start:%m-%d}" if by == "week" else row.key


def _measures(totals: Totals) -> list[str]:
    return [
        f"{totals.requests:,}",
        compact(totals.input_tokens),
        compact(totals.output_tokens),
        compact(totals.cache_write_5m_tokens + totals.cache_write_1h_tokens),
        compact(totals.cache_read_tokens),
        percent(totals.hit_rate),
        cost_cell(totals),
        money(totals.savings),
    ]
