"""Provides `sniff blocks --weekly` on a terminal: one row per week, cost by model family."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from rich.console import Console
from rich.text import Text

from sniff.analyses.cost.official_limits import Officials
from sniff.analyses.cost.plans import Plan, week_multiple
from sniff.analyses.cost.weekly import FAMILIES, Week, WeekBurn
from sniff.numbers import compact, duration, money, percent, tokens
from sniff.present.json.common import zone_name
from sniff.present.terminal.blocks import OFFICIAL_HEADER, narrow_table, print_limit
from sniff.present.terminal.blocks import used as official_used


def print_weeks(
    console: Console,
    weeks: Sequence[Week],
    zone: tzinfo,
    current: tuple[Week, WeekBurn] | None,
    plan: Plan | None = None,
    limit: int | None = None,
    official: Officials | None = None,
) -> None:
    """The weeks' table (with a plan, each week's cost over the plan's weekly share, its
    monthly price x 12 / 52; with the agent's own readings of its weekly limit, the last in
    each week), then the current week's rate and projection (and, with a token limit,
    whether the projection passes it)."""
    used = [name for name in FAMILIES if any(name in week.families for week in weeks)]
    headers = ["week from", "reqs", "tokens", "hit", *used, "cost"]
    rows = [_row(week, zone, used) for week in weeks]
    if plan is not None:
        headers.append("×plan")
        for row, week in zip(rows, weeks, strict=True):
            multiple = week_multiple(week.totals.cost, plan)
            row.append("–" if multiple is None else f"{multiple:.2f}×")
    if official is not None and official.found:
        headers.append(OFFICIAL_HEADER)
        for row, found in zip(rows, official.each, strict=True):
            row.append(official_used(found))
    day = f"{weeks[0].start.astimezone(zone):%A %H:%M} " if weeks else ""
    title = f"Weeks from {day}in {zone_name(zone)} (cost by model family)"
    table = narrow_table(title, headers, text_columns=1)
    for row in rows:
        table.add_row(*row)
    console.print(table)
    if plan is not None:
        console.print(
            f"×plan: the week's cost over {money(plan.usd_per_week)}, the weekly share of a "
            f"{money(plan.usd_per_month)} monthly price (× 12 / 52)."
        )
    if official is not None and official.found:
        console.print(
            "own: the share of its weekly limit the agent itself last reported in the week "
            "(its figure, not sniff's)."
        )
    if current is None:
        console.print("No current week: no request this week.")
        return
    week, burn = current
    console.print(
        Text.assemble(
            ("This week", "bold"),
            f" {week.start.astimezone(zone):%Y-%m-%d %H:%M} → "
            f"{week.end.astimezone(zone):%Y-%m-%d %H:%M}: {duration(burn.hours_left * 3600)} "
            f"left, {tokens(week.totals.total_tokens)} tokens, {money(week.totals.cost)}",
        )
    )
    console.print(
        f"  burn, week so far: {burn.rate.tokens_per_minute:,.0f} tokens/min, "
        f"{money(burn.rate.usd_per_hour)}/h"
    )
    console.print(
        f"  projected at the end: {tokens(burn.projected_tokens)} tokens, "
        f"{money(burn.projected_usd)}"
    )
    if limit is not None:
        print_limit(console, burn.projected_tokens, week.totals.total_tokens, limit)


def _row(week: Week, zone: tzinfo, used: list[str]) -> list[str]:
    totals = week.totals
    by_family = [money(week.families[name].cost) if name in week.families else "–"
                 for name in used]  # fmt: skip
    return [
        week.start.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
        f"{totals.requests:,}",
        compact(totals.total_tokens),
        percent(totals.hit_rate),
        *by_family,
        money(totals.cost),
    ]
