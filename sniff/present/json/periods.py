"""Provides the JSON of `sniff daily`, `sniff weekly` and `sniff monthly`, apart from their
table so that it never imports the terminal renderer."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from sniff.analyses.cost.periods import PeriodTable
from sniff.present.json.common import totals_json, zone_name

COMMAND_OF = {"day": "daily", "week": "weekly", "month": "monthly"}


def periods_json(table: PeriodTable, zone: tzinfo, *, breakdown: bool) -> dict[str, Any]:
    """`--json`: `daily`|`weekly`|`monthly` rows (`day`|`week`|`month`, `start`, `models`, the
    totals' keys, and with `breakdown` one `breakdown` row per model), `totals` and `zone`."""
    rows = []
    for row in table.rows:
        item = {table.by: row.key, "start": row.start.isoformat(), **totals_json(row.totals)}
        item["models"] = [group.key for group in row.models]
        if breakdown:
            item["breakdown"] = [
                {"model": group.key, **totals_json(group.totals)} for group in row.models
            ]
        rows.append(item)
    return {
        COMMAND_OF[table.by]: rows,
        "totals": totals_json(table.summary.totals),
        "zone": zone_name(zone),
    }
