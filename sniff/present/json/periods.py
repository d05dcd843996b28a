"""Provides the JSON of `sniff daily`, `sniff weekly` and `sniff monthly`, apart from their
table so that it never imports the terminal renderer."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from sniff.analyses.cost.periods import PeriodTable
from sniff.analyses.cost.summary import Group, Totals
from sniff.present.json.common import totals_json, zone_name

COMMAND_OF = {"day": "daily", "week": "weekly", "month": "monthly"}
BREAKDOWN_KEYS = {
    "model": "breakdown", "harness": "by_harness", "project": "by_project",
    "machine": "by_machine", "user": "by_user",
}  # fmt: skip
"""Each `--breakdown`'s key in a period's row: the models' keep the name they had when models
were the only breakdown, so that scripts reading it go on working; the others are named as in
`sniff scan --json`."""


def periods_json(table: PeriodTable, zone: tzinfo, *, breakdown: bool) -> dict[str, Any]:
    """`--json`: `daily`|`weekly`|`monthly` rows (`day`|`week`|`month`, `start`, `models`, the
    totals' keys, and with `breakdown` one row per model under `breakdown`, per harness under
    `by_harness`, per project under `by_project`, per machine or user under `by_machine` or
    `by_user`), `totals` and `zone`."""
    rows = []
    for row in table.rows:
        item = {table.by: row.key, "start": row.start.isoformat(), **_totals(row.totals)}
        item["models"] = [group.key for group in row.models]
        if breakdown:
            item[BREAKDOWN_KEYS[table.breakdown]] = _parts(table.breakdown, row.parts)
        rows.append(item)
    return {
        COMMAND_OF[table.by]: rows,
        "totals": totals_json(table.summary.totals),  # `report --json`'s, to the key
        "zone": zone_name(zone),
    }


def _parts(name: str, groups: tuple[Group, ...]) -> list[dict[str, Any]]:
    """One object per model, harness, project, machine or user: its key, named `name`, and its
    totals."""
    return [{name: group.key, **_totals(group.totals)} for group in groups]


def _totals(totals: Totals) -> dict[str, Any]:
    """The measures every row shares, and its sessions logged only as totals (Droid's,
    Goose's), which its `requests` cannot count."""
    return {**totals_json(totals), "session_totals": totals.rollups}
