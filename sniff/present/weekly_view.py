"""Provides `sniff blocks --weekly` on a terminal: one row per week, cost by model family."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo

from rich.console import Console

from sniff.analyses.weekly import FAMILIES, Week, WeekBurn
from sniff.numbers import compact, duration, money, percent, tokens
from sniff.present.console import measures_table, zone_name


def print_weeks(
    console: Console, weeks: Sequence[Week], zone: tzinfo, current: tuple[Week, WeekBurn] | None
) -> None:
    """The weeks' table, then the current week's rate and projection."""
    headers = ["week from", "reqs", "tokens", "hit", *FAMILIES, "cost"]
    rows = [_row(week, zone) for week in weeks]
    title = f"Weeks, {zone_name(zone)} (cost by model family)"
    console.print(measures_table(title, headers, rows, text_columns=1))
    if current is None:
        console.print("No current week: no request this week.")
        return
    week, burn = current
    console.print(
        f"[bold]This week[/] {week.start.astimezone(zone):%Y-%m-%d %H:%M} → "
        f"{week.end.astimezone(zone):%Y-%m-%d %H:%M}: {duration(burn.hours_left * 3600)} left, "
        f"{tokens(week.totals.total_tokens)} tokens, {money(week.totals.cost)}"
    )
    console.print(
        f"  burn, week so far: {burn.rate.tokens_per_minute:,.0f} tokens/min, "
        f"{money(burn.rate.usd_per_hour)}/h"
    )
    console.print(
        f"  projected at the end: {tokens(burn.projected_tokens)} tokens, "
        f"{money(burn.projected_usd)}"
    )


def _row(week: Week, zone: tzinfo) -> list[str]:
    totals = week.totals
    by_family = [money(week.families[name].cost) if name in week.families else "–"
                 for name in FAMILIES]  # fmt: skip
    return [
        week.start.astimezone(zone).strftime("%Y-%m-%d %a %H:%M"),
        f"{totals.requests:,}",
        compact(totals.total_tokens),
        percent(totals.hit_rate),
        *by_family,
        money(totals.cost),
    ]
