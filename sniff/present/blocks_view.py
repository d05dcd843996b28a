"""Provides `sniff blocks` on a terminal: the 5-hour blocks as a table, then the active one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from rich.console import Console
from rich.table import Table

from sniff.analyses.block_burn import Burn, Burner, Rate
from sniff.analyses.blocks import Block
from sniff.analyses.plans import MonthValue, Plan
from sniff.numbers import compact, duration, money, percent, tokens
from sniff.present.console import measures_table, zone_name

HEADERS = ["start", "last", "models", "reqs", "in", "out", "wr", "rd", "hit", "cost", "breaks",
           "sub"]  # fmt: skip
"""`in`, `out`, `wr`, `rd`: uncached input, output, cache writes and cache reads; `sub`: the
share of the cost spent by subagents and compaction."""


def blocks_table(blocks: Sequence[Block], zone: tzinfo, now: datetime) -> Table:
    """One row per block (gaps as one line each), times in `zone`."""
    if not blocks:
        return measures_table("5-hour blocks: none", HEADERS, [], text_columns=3, shrinkable=2)
    rows = [_gap_row(block, zone) if block.gap else _row(block, zone, now) for block in blocks]
    years = sorted({f"{block.start.astimezone(zone):%Y}" for block in blocks})
    span = years[0] if len(years) == 1 else f"{years[0]}–{years[-1]}"
    title = f"5-hour blocks, {span}, {zone_name(zone)} (from the hour in UTC, 5 h long)"
    return measures_table(title, HEADERS, rows, text_columns=3, shrinkable=2, dated=True)


def _row(block: Block, zone: tzinfo, now: datetime) -> list[str]:
    totals, breaks = block.totals, block.breaks
    last = block.last.astimezone(zone).strftime("%H:%M") if block.last else ""
    start = block.start.astimezone(zone).strftime("%m-%d %H:%M")
    sub = block.share(block.subagent_usd + block.compaction_usd)
    return [
        start + ("*" if block.active(now) else ""),
        last,
        ", ".join(block.models),
        f"{totals.requests:,}",
        compact(totals.input_tokens),
        compact(totals.output_tokens),
        compact(totals.cache_write_tokens),
        compact(totals.cache_read_tokens),
        percent(totals.hit_rate),
        money(totals.cost) + ("*" if totals.unpriced_requests and totals.priced_requests else ""),
        money(breaks.fault_cost_usd) if breaks.faults else "–",
        percent(sub),
    ]


def _gap_row(block: Block, zone: tzinfo) -> list[str]:
    idle = duration((block.end - block.start).total_seconds())
    return [f"gap {idle}", *[""] * (len(HEADERS) - 1)]


def print_active(
    console: Console, block: Block, burn: Burn, zone: tzinfo, limit: int | None
) -> None:
    """The active block: its rates, projection, time left, burners and the limit's verdict."""
    totals = block.totals
    console.print(
        f"[bold]Active block[/] {block.start.astimezone(zone):%Y-%m-%d %H:%M} → "
        f"{block.end.astimezone(zone):%H:%M} ({zone_name(zone)}): "
        f"{duration(burn.minutes_left * 60)} left, {tokens(totals.total_tokens)} tokens, "
        f"{money(totals.cost)}"
    )
    console.print(f"  burn, last 30 min: {_rate(burn.recent)}")
    console.print(f"  burn, whole block: {_rate(burn.whole)}")
    console.print(
        f"  projected at the end: {tokens(burn.projected_tokens)} tokens, "
        f"{money(burn.projected_usd)} (at the last 30 minutes' rate)"
    )
    console.print(
        f"  tokens by class: input {tokens(totals.input_tokens)}, output "
        f"{tokens(totals.output_tokens)}, cache writes {tokens(totals.cache_write_tokens)}, "
        f"cache reads {tokens(totals.cache_read_tokens)}"
    )
    if limit is not None:
        _print_limit(console, burn.projected_tokens, totals.total_tokens, limit)
    for item in burn.burners:
        console.print(f"  burning: {_burner(item)} {money(item.usd)}")


def _print_limit(console: Console, projected: int, now_tokens: int, limit: int) -> None:
    share = percent(now_tokens / limit) if limit else "–"
    if projected > limit:
        console.print(
            f"  [bold red]⚠ projected {tokens(projected)} tokens pass the limit of "
            f"{tokens(limit)}[/] (now {share} of it)"
        )
    else:
        console.print(f"  within the limit of {tokens(limit)} tokens (now {share} of it)")


def _burner(item: Burner) -> str:
    if item.kind == "session":
        return f"session {item.name[:8]}"
    if item.kind == "break_cause":
        return f"cache breaks ({item.name})"
    return item.name


def _rate(rate: Rate) -> str:
    return f"{rate.tokens_per_minute:,.0f} tokens/min, {money(rate.usd_per_hour)}/h"


def print_plan(console: Console, plan: Plan, months: Sequence[MonthValue], this_month: str) -> None:
    """Per month: "API-equivalent $X for a $Y plan (Z×)"; `this_month` (YYYY-MM) is named so."""
    price = money(plan.usd_per_month)
    dated = f", price since {plan.since}" if plan.since else ""
    console.print(f"[bold]{plan.name}[/] ({price} a month{dated})")
    for row in months:
        multiple = "–" if row.multiple is None else f"{row.multiple:.2f}×"
        label = "this month" if row.month == this_month else row.month
        console.print(
            f"  {label}: API-equivalent {money(row.totals.cost)} for a {price} plan ({multiple})"
        )
