"""Provides `sniff blocks --json`: the 5-hour blocks (or, --weekly, the weeks) with stable keys."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sniff.analyses.cost.block_burn import Burn, Burner, Rate, block_causes
from sniff.analyses.cost.blocks import Block
from sniff.analyses.cost.official_limits import Official
from sniff.analyses.cost.plans import MonthValue, Plan, week_multiple
from sniff.analyses.cost.weekly import Week, WeekBurn
from sniff.present.json.common import RATE_DIGITS, rounded, totals_json


def iso(moment: datetime | None) -> str | None:
    """`2026-02-23T10:00:00.000Z`: a moment in UTC to the millisecond, as the peer writes it."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")[:-6] + "Z"


def block_json(
    block: Block, now: datetime, plan: Plan | None = None, official: Official | None = None
) -> dict[str, Any]:
    """One block (or gap): its window, sums, models, breaks and agents' shares, the agent's
    own reading of its limit (`official`); with a plan, its cost as a share of the plan's
    monthly price (`plan_share`)."""
    breaks = block.breaks
    cost = block.totals.cost
    share = None if plan is None or cost is None else cost / plan.usd_per_month
    extra = {} if plan is None else {"plan_share": rounded(share, RATE_DIGITS)}
    return extra | {
        "start": iso(block.start),
        "end": iso(block.end),
        "last_activity": iso(block.last),
        "gap": block.gap,
        "active": block.active(now),
        "models": list(block.models),
        **totals_json(block.totals),
        "breaks": {
            "faults": breaks.faults,
            "fault_cost_usd": rounded(breaks.fault_cost_usd),
            "expected": breaks.expected,
            "expected_cost_usd": rounded(breaks.expected_cost_usd),
            "rebuilt_tokens": breaks.rebuilt_tokens,
            "by_cause": [burner_json(row) for row in block_causes(block)],
        },
        "subagent_usd": rounded(block.subagent_usd),
        "subagent_share": rounded(block.share(block.subagent_usd), RATE_DIGITS),
        "compaction_usd": rounded(block.compaction_usd),
        "compaction_share": rounded(block.share(block.compaction_usd), RATE_DIGITS),
        "official": official_json(official),
    }


def official_json(official: Official | None) -> dict[str, Any] | None:
    """The agent's own last reading of its limit within a block or week (None: no reading),
    and when it reaches 100% at the current window's rate (None: not before it resets)."""
    if official is None:
        return None
    return {
        "source": "agent",
        "harness": official.window.harness.value,
        "window": official.window.name,
        "used_percent": official.used_percent,
        "read_at": iso(official.read_at),
        "resets_at": iso(official.resets_at),
        "projected_full_at": iso(official.projected_full_at),
    }


def burn_json(burn: Burn, limit: int | None) -> dict[str, Any]:
    """The active block's rates, projection, time left, burners and the limit's verdict."""
    return {
        "now": iso(burn.now),
        "last_30m": rate_json(burn.recent),
        "whole_block": rate_json(burn.whole),
        "minutes_left": round(burn.minutes_left, 1),
        "projected_tokens": burn.projected_tokens,
        "projected_cost_usd": rounded(burn.projected_usd),
        "token_limit": limit,
        "over_limit": None if limit is None else burn.projected_tokens > limit,
        "burners": [burner_json(item) for item in burn.burners],
    }


def rate_json(rate: Rate) -> dict[str, Any]:
    """Tokens per minute and dollars per hour, over how many minutes."""
    return {
        "minutes": round(rate.minutes, 1),
        "tokens_per_minute": round(rate.tokens_per_minute, 1),
        "usd_per_hour": rounded(rate.usd_per_hour),
    }


def burner_json(item: Burner) -> dict[str, Any]:
    """One thing that burned a block."""
    return {"kind": item.kind, "name": item.name, "cost_usd": rounded(item.usd),
            "tokens": item.tokens}  # fmt: skip


def week_json(
    week: Week, plan: Plan | None = None, official: Official | None = None
) -> dict[str, Any]:
    """One week: its window, its totals, the totals of each model family it used, and the
    agent's own reading of its weekly limit (`official`); with a plan, its cost over the
    plan's weekly share, `usd_per_month` x 12 / 52 (`plan_weekly_multiple`)."""
    multiple = None if plan is None else week_multiple(week.totals.cost, plan)
    extra = {} if plan is None else {"plan_weekly_multiple": rounded(multiple, RATE_DIGITS)}
    return extra | {
        "start": iso(week.start),
        "end": iso(week.end),
        **totals_json(week.totals),
        "by_family": {name: totals_json(totals) for name, totals in week.families.items()},
        "official": official_json(official),
    }


def week_burn_json(burn: WeekBurn, now: datetime, limit: int | None = None) -> dict[str, Any]:
    """The current week's rate so far, time left, projection to its end and the limit's
    verdict."""
    return {
        "now": iso(now),
        "week_so_far": rate_json(burn.rate),
        "hours_left": round(burn.hours_left, 2),
        "projected_tokens": burn.projected_tokens,
        "projected_cost_usd": rounded(burn.projected_usd),
        "token_limit": limit,
        "over_limit": None if limit is None else burn.projected_tokens > limit,
    }


WEEK_RULE = "usd_per_month * 12 / 52"
"""How `usd_per_week`, the weekly share of a monthly price, is reckoned."""


def plan_json(plan: Plan, months: list[MonthValue]) -> dict[str, Any]:
    """The plan (its weekly share too), and each month's API-equivalent cost against its
    price."""
    return {
        "key": plan.key,
        "name": plan.name,
        "usd_per_month": plan.usd_per_month,
        "usd_per_week": rounded(plan.usd_per_week),
        "usd_per_week_rule": WEEK_RULE,
        "since": plan.since or None,
        "months": [
            {
                "month": row.month,
                "cost_usd": rounded(row.totals.cost),
                "multiple": rounded(row.multiple, RATE_DIGITS),
            }  # fmt: skip
            for row in months
        ],
    }
