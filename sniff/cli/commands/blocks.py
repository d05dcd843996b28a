"""Provides `sniff blocks`: the 5-hour windows, as ccusage draws them, and the active one's burn."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted

if TYPE_CHECKING:
    from rich.console import Console

    from sniff.analyses.cost.block_burn import Burn
    from sniff.analyses.cost.blocks import Block
    from sniff.analyses.cost.official_limits import Officials
    from sniff.analyses.cost.plans import MonthValue, Plan
    from sniff.analyses.cost.weekly import Week
    from sniff.model import Dataset, LimitReading
    from sniff.workspace import Workspace

SORTS = o.Sorts(
    keys=("start", "cost", "tokens", "requests", "hit-rate"),
    cuts="the blocks (with --weekly: weeks) listed, in the table and --json",
    ascending=frozenset({"start"}),
    note="The idle gaps between blocks are listed only in time order, oldest first.",
)
DEFAULT_HARNESS = "claude-code"
"""The subscription the 5-hour windows describe: Claude Code's."""


@one_line_errors
@o.shared(omit=("dask",))
@o.listed(SORTS)
def blocks(
    active: Annotated[
        bool,
        typer.Option("--active", help="Show only the active block (with --weekly: this week)."),
    ] = False,
    token_limit: Annotated[
        str | None,
        typer.Option(
            "--token-limit",
            help="Warn when the active block's projection passes N tokens (every class, cache "
            "reads included); max: the largest finished block. With --weekly: the current "
            "week's, and the largest finished week.",
            metavar="N|max",
        ),
    ] = None,
    weekly: Annotated[
        bool, typer.Option("--weekly", help="7-day totals by model family instead.")
    ] = False,
    week_start: Annotated[
        str | None,
        typer.Option(
            "--week-start",
            help="When --weekly weeks start, in --tz, e.g. 'mon 09:00'. Default: the ISO week.",
            metavar="DAY HH:MM",
        ),
    ] = None,
    plan: Annotated[
        str | None,
        typer.Option(
            "--plan",
            help="Add the API-equivalent cost per month (by requests' start, as monthly) and "
            "per block against a plan: pro, max5, max20, or its price in dollars per month. "
            "With --weekly, per week against the price x 12 / 52.",
            metavar="PLAN",
        ),
    ] = None,
    plan_file: o.PlanFile = None,
    now: Annotated[str | None, typer.Option("--now", hidden=True)] = None,
    **options: Any,
) -> None:
    """The 5-hour blocks: tokens by class, cost, hit rate, cache breaks, models, subagents.

    A block starts at its first request floored to the hour in UTC (ccusage's convention) and
    ends 5 hours later; --tz changes only how times are shown. By default only Claude Code's
    requests count (--harness chooses another agent's).
    """
    o.listing(options, SORTS)  # an unknown key fails before any log is read
    moment = _now(now)
    limit_text = _limit_text(token_limit)
    chosen = _plan(plan, plan_file)
    defaulted = not options["harness"]
    options["harness"] = options["harness"] or DEFAULT_HARNESS
    workspace = o.workspace(options)
    if weekly:
        _weekly(workspace, (week_start, limit_text), moment, chosen, active=active, options=options)
        return
    _blocks(workspace, moment, limit_text, chosen, active=active, options=options)
    if defaulted:
        _others_note(workspace)


def _others_note(workspace: Workspace) -> None:
    """When Claude Code's requests, which blocks count by default, are none of the logs', say
    whose the logs hold and how to see their blocks (on the error stream: JSON stays JSON)."""
    from collections import Counter

    dataset = workspace.dataset("sized")
    if any(request.harness == DEFAULT_HARNESS for request in dataset.requests):
        return
    others = Counter(str(request.harness) for request in dataset.requests)
    if others:
        held = ", ".join(f"{count:,} of {name}" for name, count in others.most_common())
        sys.stderr.write(
            f"sniff: blocks count {DEFAULT_HARNESS}'s requests (its subscription's 5-hour "
            f"windows); these logs hold none but {held}: --harness "
            f"{others.most_common(1)[0][0]} shows theirs\n"
        )


def _blocks(
    workspace: Workspace,
    moment: datetime,
    limit_text: int | str | None,
    plan: Plan | None,
    *,
    active: bool,
    options: dict[str, Any],
) -> None:
    """The blocks, the active one's burn and the limit's verdict, and the plan's value."""
    from sniff.analyses.cost.block_burn import burn
    from sniff.analyses.cost.blocks import active_block, build_blocks, largest_tokens
    from sniff.analyses.cost.official_limits import officials
    from sniff.analyses.cost.plans import month_values

    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        dataset = workspace.dataset("sized")
        found = build_blocks(workspace.filters.apply(dataset.requests),
                             workspace.break_report().breaks)  # fmt: skip
    o.report_issues(dataset, options["verbose"])
    current = active_block(found, moment)
    limit = largest_tokens(found, moment) if limit_text == "max" else limit_text
    assert not isinstance(limit, str)
    burning = burn(current, moment) if current is not None else None
    shown_blocks = [current] if active and current is not None else [] if active else found
    shown_blocks = _listed(shown_blocks, o.listing(options, SORTS))
    requests = [request for block in found for request in block.requests]
    months = [] if plan is None else month_values(requests, workspace.zone, plan)
    spans = [None if block.gap else (block.start, block.end) for block in shown_blocks]
    harness = options["harness"]
    official = officials(_readings(harness, dataset), harness, spans, moment, weekly=False)
    if options["json"]:
        from sniff.present.json.blocks import block_json, burn_json, plan_json

        o.print_json({
            "blocks": [block_json(block, moment, plan, found) for block, found
                       in zip(shown_blocks, official.each, strict=True)],
            "active": None if burning is None else burn_json(burning, limit),
            "token_limit": limit,
            **({} if plan is None else {"plan": plan_json(plan, months)}),
        })  # fmt: skip
        return
    from sniff.present.terminal.safe_console import SafeConsole

    console = SafeConsole()
    _print(console, (shown_blocks, official), current, burning, workspace.zone, moment, limit)
    _print_plan(console, plan, months, moment, workspace.zone)


def _print_plan(
    console: Console, plan: Plan | None, months: list[MonthValue], moment: datetime, zone: tzinfo
) -> None:
    """With a plan, each month's value against it, the month of `moment` as "this month"."""
    if plan is None:
        return
    from sniff.present.terminal.blocks import print_plan

    print_plan(console, plan, months, f"{moment.astimezone(zone):%Y-%m}")


def _print(
    console: Console,
    shown: tuple[list[Block], Officials],
    current: Block | None,
    burning: Burn | None,
    zone: tzinfo,
    moment: datetime,
    limit: int | None,
) -> None:
    """The blocks shown (with the agent's own readings of its limit), then the active one."""
    from sniff.present.terminal.blocks import blocks_table, print_active, print_official

    shown_blocks, official = shown
    if shown_blocks:
        console.print(blocks_table(shown_blocks, zone, moment, official))
    if current is not None and burning is not None:
        print_active(console, current, burning, zone, limit)
    else:
        console.print("No active block: no request in the last 5 hours' window.")
    print_official(console, official, zone, moment)


def _readings(harness: str, dataset: Dataset) -> list[LimitReading]:
    """The agents' own readings of their limits: the logs' (Codex's), and for Claude Code,
    which says them only to a status line, those `sniff statusline` recorded."""
    found = list(dataset.limits)
    if harness == DEFAULT_HARNESS:
        from sniff import limits_history
        from sniff.model import Harness

        found += limits_history.recorded(harness=Harness.CLAUDE_CODE)
    return found


def _weekly(
    workspace: Workspace,
    given: tuple[str | None, int | str | None],
    moment: datetime,
    plan: Plan | None,
    *,
    active: bool,
    options: dict[str, Any],
) -> None:
    """`--weekly`: the weeks (`--week-start`, the token limit given), the current one's rate
    and projection against the limit, and the plan's value."""
    from sniff.analyses.cost.official_limits import officials
    from sniff.analyses.cost.plans import month_values
    from sniff.analyses.cost.weekly import (
        build_weeks,
        current_week,
        largest_week_tokens,
        parse_week_start,
        week_burn,
    )

    week_start, limit_text = given
    start = parse_week_start(week_start)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        dataset = workspace.dataset()
    o.report_issues(dataset, options["verbose"])
    chosen = workspace.filters.apply(dataset.requests)
    weeks = build_weeks(chosen, workspace.zone, start)
    week = current_week(weeks, moment)
    burning = None if week is None else (week, week_burn(week, moment))
    limit = largest_week_tokens(weeks, moment) if limit_text == "max" else limit_text
    assert not isinstance(limit, str)
    months = [] if plan is None else month_values(chosen, workspace.zone, plan)
    shown_weeks = ([] if week is None else [week]) if active else weeks
    shown_weeks = o.listing(options, SORTS).arrange(shown_weeks, _keys())
    spans = [(row.start, row.end) for row in shown_weeks]
    harness = options["harness"]
    official = officials(_readings(harness, dataset), harness, spans, moment, weekly=True)
    if options["json"]:
        from sniff.present.json.blocks import plan_json, week_burn_json, week_json

        current = None if burning is None else week_burn_json(burning[1], moment, limit)
        o.print_json({
            "weeks": [week_json(row, plan, found) for row, found
                      in zip(shown_weeks, official.each, strict=True)],
            "current": current,
            "token_limit": limit,
            **({} if plan is None else {"plan": plan_json(plan, months)}),
        })  # fmt: skip
        return
    from sniff.present.terminal.blocks import print_official
    from sniff.present.terminal.safe_console import SafeConsole
    from sniff.present.terminal.weekly import print_weeks

    console = SafeConsole()
    print_weeks(console, shown_weeks, workspace.zone, burning, plan, limit, official)
    print_official(console, official, workspace.zone, moment)
    _print_plan(console, plan, months, moment, workspace.zone)


def _keys() -> dict[str, Callable[[Block | Week], Any]]:
    """`--sort`'s keys, of a block or a week alike: both have a start and totals."""
    return {
        "start": lambda row: row.start,
        "cost": lambda row: row.totals.cost_usd,
        "tokens": lambda row: row.totals.total_tokens,
        "requests": lambda row: row.totals.requests,
        "hit-rate": lambda row: row.totals.hit_rate or 0.0,
    }


def _listed(found: list[Block], chosen: o.Listing) -> list[Block]:
    """The blocks in the chosen order, cut to --limit. An idle gap is said between two blocks
    next to each other in time: kept in time order, oldest first (up to the last block shown),
    left out in any other."""
    if chosen.sort != "start" or chosen.descending:
        return chosen.arrange((block for block in found if not block.gap), _keys())
    if chosen.limit is None:
        return found
    starts = [place for place, block in enumerate(found) if not block.gap]
    return found if len(starts) <= chosen.limit else found[: starts[chosen.limit - 1] + 1]


def _plan(text: str | None, plan_file: Path | None) -> Plan | None:
    """`--plan` (with `--plan-file`'s prices), or None."""
    from sniff.errors import UserError

    if text is None:
        if plan_file is not None:
            raise UserError("--plan-file gives plan prices: name a plan with --plan too")
        return None
    from sniff.analyses.cost.plans import choose_plan, load_plans

    return choose_plan(text, load_plans(plan_file))


def _now(text: str | None) -> datetime:
    """The moment the active block is judged at: now, or the hidden --now (for tests)."""
    from sniff.errors import UserError

    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as error:
        raise UserError(f"--now must be an ISO date-time, not {text!r}") from error
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _limit_text(text: str | None) -> int | str | None:
    """`--token-limit`: a positive whole number of tokens, or `max`.

    Raises:
        UserError: anything else.
    """
    from sniff.errors import UserError

    if text is None or text == "max":
        return text
    if not text.isdigit() or int(text) <= 0:
        raise UserError(f"--token-limit must be a positive number of tokens or max, not {text!r}")
    return int(text)
