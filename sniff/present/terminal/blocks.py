"""Provides `sniff blocks` on a terminal: the 5-hour blocks as a table, then the active one."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, tzinfo

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from sniff.analyses.cost.block_burn import Burn, Burner, Rate
from sniff.analyses.cost.blocks import Block
from sniff.analyses.cost.official_limits import FULL, Official, Officials
from sniff.analyses.cost.plans import MonthValue, Plan
from sniff.numbers import duration, money, percent, short_count, tokens
from sniff.present.json.common import zone_name
from sniff.present.terminal.layout import DATE_STAMP
from sniff.present.terminal.safe_console import styled

HEADERS = ("start", "last", "reqs", "in", "out", "wr", "rd", "hit", "cost", "breaks", "sub")
LEGEND = (
    "start: the block's first hour, * the active one, then its models; last: its last request; "
    "in, out, wr, rd: tokens of uncached input, output, cache writes, cache reads; breaks: "
    "cache breaks that were faults, and their cost; sub: the share of the cost spent by "
    "subagents and compaction. Each block is 5 hours long."
)
"""What the columns hold. The table fits 80 columns: one space between columns, token counts
in at most 4 characters (`short_count`), the models under the start; the exact counts are in
the active block's lines and in --json."""


OFFICIAL_HEADER = "own"
OFFICIAL_LEGEND = (
    " own, under the start: the share of its 5-hour limit the agent itself last reported in "
    "the block, and when (its figure, not sniff's)."
)
"""Why a line, not a column: the table fills 80 columns already; a line under the start
keeps the reading's time too without narrowing any number."""


def blocks_table(
    blocks: Sequence[Block], zone: tzinfo, now: datetime, official: Officials | None = None
) -> Table:
    """One row per block (gaps as one line each), times in `zone`; with the agent's own
    readings of its limit (`official`, one per block) where any block has one."""
    years = sorted({f"{block.start.astimezone(zone):%Y}" for block in blocks})
    span = "none" if not years else years[0] if len(years) == 1 else f"{years[0]}–{years[-1]}"
    title = f"5-hour blocks, {span}, {zone_name(zone)} (from the hour in UTC)"
    shown = official is not None and official.found
    legend = LEGEND + OFFICIAL_LEGEND if shown else LEGEND
    table = narrow_table(title, HEADERS, text_columns=2, caption=legend)
    each = official.each if official is not None else [None] * len(blocks)
    for block, found in zip(blocks, each, strict=True):
        table.add_row(*(_gap_row(block) if block.gap else _row(block, zone, now, found)))
    return table


def used(found: Official | None) -> str:
    """`24%`, `3.5%`: an official share as the agent said it (whole when it is), or `–`."""
    if found is None:
        return "–"
    share = found.used_percent
    return f"{share:.0f}%" if share == int(share) else f"{share:.1f}%"


def narrow_table(
    title: str, headers: Sequence[str], *, text_columns: int, caption: str | None = None
) -> Table:
    """A table one space between columns, for tables that must fit 80 columns: numbers (the
    columns from `text_columns` on) never wrap, the first column folds its extra lines."""
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        header_style="bold",
        caption=caption,
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 0),
    )
    table.add_column(headers[0], overflow="fold")
    for index, header in enumerate(headers[1:], start=1):
        numeric = index >= text_columns
        table.add_column(header, justify="right" if numeric else "left", no_wrap=True)
    return table


def _row(block: Block, zone: tzinfo, now: datetime, found: Official | None) -> list[str | Text]:
    totals, breaks = block.totals, block.breaks
    last = block.last.astimezone(zone).strftime("%H:%M") if block.last else ""
    start = block.start.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    start += "*" if block.active(now) else ""
    sub = block.share(block.subagent_usd + block.compaction_usd)
    models = "\n".join(short_model(name) for name in block.models)
    own = (
        ""
        if found is None
        else f"\n{OFFICIAL_HEADER} {used(found)} {found.read_at.astimezone(zone):%H:%M}"
    )
    return [
        Text.assemble(start, own, "\n", styled(models, "dim")) if models else start + own,
        last,
        f"{totals.requests:,}",
        short_count(totals.input_tokens),
        short_count(totals.output_tokens),
        short_count(totals.cache_write_tokens),
        short_count(totals.cache_read_tokens),
        percent(totals.hit_rate),
        money(totals.cost) + ("*" if totals.unpriced_requests and totals.priced_requests else ""),
        f"{breaks.faults} {money(breaks.fault_cost_usd)}" if breaks.faults else "–",
        percent(sub),
    ]


def _gap_row(block: Block) -> list[str]:
    idle = duration((block.end - block.start).total_seconds())
    return [f"gap {idle}", *[""] * (len(HEADERS) - 1)]


def short_model(name: str) -> str:
    """A model's name without its snapshot date and `claude-`: `sonnet-4` for
    `claude-sonnet-4-20250514`."""
    return DATE_STAMP.sub("", name).removeprefix("claude-")


def print_active(
    console: Console, block: Block, burn: Burn, zone: tzinfo, limit: int | None
) -> None:
    """The active block: its rates, projection, time left, burners and the limit's verdict."""
    totals = block.totals
    console.print(
        Text.assemble(
            ("Active block", "bold"),
            f" {block.start.astimezone(zone):%Y-%m-%d %H:%M} → "
            f"{block.end.astimezone(zone):%H:%M} ({zone_name(zone)}): "
            f"{duration(burn.minutes_left * 60)} left, {tokens(totals.total_tokens)} tokens, "
            f"{money(totals.cost)}",
        )
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
        print_limit(console, burn.projected_tokens, totals.total_tokens, limit)
    for item in burn.burners:
        console.print(f"  burning: {_burner(item)} {money(item.usd)}")


def print_limit(console: Console, projected: int, now_tokens: int, limit: int) -> None:
    """Whether the projection passes the token limit, and the share of it used so far."""
    share = percent(now_tokens / limit) if limit else "–"
    if projected > limit:
        console.print(
            Text.assemble(
                "  ",
                (f"⚠ projected {tokens(projected)} tokens pass the limit of {tokens(limit)}",
                 "bold red"),
                f" (now {share} of it)",
            )
        )  # fmt: skip
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
    console.print(Text.assemble((plan.name, "bold"), f" ({price} a month{dated})"))
    for row in months:
        multiple = "–" if row.multiple is None else f"{row.multiple:.2f}×"
        label = "this month" if row.month == this_month else row.month
        console.print(
            f"  {label}: API-equivalent {money(row.totals.cost)} for a {price} plan ({multiple})"
        )


AGENTS = {"claude-code": "Claude Code", "codex": "Codex"}
WINDOW_NAMES = {"five_hour": "5-hour", "primary": "5-hour", "seven_day": "weekly",
                "secondary": "weekly"}  # fmt: skip
"""How a user knows each official window: by its length."""


def print_official(console: Console, official: Officials, zone: tzinfo, now: datetime) -> None:
    """The agent's latest own reading of its limit in the view, when read, when it resets,
    and when it reaches 100% at its window's rate; for Claude Code without readings, where
    they come from."""
    window = official.window
    if window is None:
        return
    agent = AGENTS.get(window.harness.value, window.harness.value)
    kind = WINDOW_NAMES.get(window.name, window.name)
    found = [each for each in official.each if each is not None]
    if not found:
        if window.harness.value == "claude-code":
            console.print(
                f"No {agent} reading of its {kind} limit: it reports them only to a status "
                "line, and `sniff statusline` records them (see docs/commands/blocks.md).",
                style="dim",
            )
        return
    last = max(found, key=lambda each: each.read_at)
    console.print(
        Text.assemble((f"{agent}'s own figures", "bold"), f", its {kind} limit ({window.name})")
    )
    resets = "" if last.resets_at is None else f"; resets {_at(last.resets_at, zone)}"
    console.print(f"  last read {_at(last.read_at, zone)}: {used(last)} used{resets}")
    if last.projected_full_at is not None and last.used_percent >= FULL:
        console.print(f"  full since {_at(last.projected_full_at, zone)}")
    elif last.projected_full_at is not None:
        console.print(f"  at its window's rate: 100% at {_at(last.projected_full_at, zone)}")
    elif last.resets_at is None or last.resets_at > now:
        console.print("  at its window's rate: not full before it resets")


def _at(moment: datetime, zone: tzinfo) -> str:
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M}"
