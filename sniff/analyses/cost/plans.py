"""Provides what a subscription is worth: the API-equivalent cost per month against its price.

Why dated data: plan prices change, and a number in code would go stale silently. The bundled
prices (`sniff/data/plans.toml`) say when each took effect; a file of the same shape overrides
them, and a plain number is a plan of that price.

Why months by start: a month holds the requests that started in it (`Request.when`), summed by
`periods.period_table`, the rows of `sniff monthly` and `report --by month`, so "this month"
is the same number there and here. A week's share of a monthly price is the price x 12 / 52
(a year's price spread over its 52 weeks), not a quarter of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from sniff.analyses.cost.periods import period_table
from sniff.analyses.cost.summary import Totals
from sniff.data_files import bundled_and_given
from sniff.errors import UserError
from sniff.model import Request

SUBSCRIPTION_HARNESS = "claude-code"
"""The harness whose requests a subscription pays for: the plans are Claude's."""
MONTHS_PER_YEAR = 12
WEEKS_PER_YEAR = 52


@dataclass(frozen=True, slots=True)
class Plan:
    """A subscription and its price."""

    key: str
    name: str
    usd_per_month: float
    since: str = ""
    """When the price took effect (ISO date), where known."""

    @property
    def usd_per_week(self) -> float:
        """The weekly share of the monthly price: x 12 / 52."""
        return self.usd_per_month * MONTHS_PER_YEAR / WEEKS_PER_YEAR


@dataclass(frozen=True, slots=True)
class MonthValue:
    """One calendar month: what its requests would have cost on the API, against the plan."""

    month: str
    totals: Totals
    plan: Plan

    @property
    def multiple(self) -> float | None:
        """API-equivalent cost / the plan's price; None when nothing was priced."""
        cost = self.totals.cost
        return None if cost is None else cost / self.plan.usd_per_month


def load_plans(path: Path | None = None) -> dict[str, Plan]:
    """The bundled plans, with those of the TOML file at `path` laid over them.

    Raises:
        UserError: the file cannot be read, or a plan in it has no positive price.
    """
    raw, extra = bundled_and_given("plans.toml", path, "plan")
    for key, values in extra.items():
        if not isinstance(values, dict):
            raise UserError(f"{path}: {key!r} is not a table of a plan")
        raw[key] = {**raw.get(key, {"name": key}), **values}
    return {key: _plan(key, values, path) for key, values in raw.items()}


def _plan(key: str, values: dict[str, object], path: Path | None) -> Plan:
    price = values.get("usd_per_month")
    if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
        raise UserError(f"{path or 'plans.toml'}: plan {key!r} needs usd_per_month > 0")
    return Plan(key, str(values.get("name", key)), float(price), str(values.get("since", "")))


def choose_plan(text: str, plans: dict[str, Plan]) -> Plan:
    """`--plan`: a plan's key, or a price in dollars per month.

    Raises:
        UserError: neither.
    """
    if text in plans:
        return plans[text]
    try:
        price = float(text.removeprefix("$"))
    except ValueError:
        price = 0.0
    if price > 0 and price != float("inf"):
        return Plan("custom", f"${price:g}/month plan", price)
    raise UserError(f"--plan must be one of {', '.join(plans)} or dollars per month, not {text!r}")


def chosen_plans(text: str | None, path: Path | None = None) -> list[Plan]:
    """`--plan` as a list (every plan, bundled and `path`'s, when None): what a report weighs
    the subscription against.

    Raises:
        UserError: as `choose_plan` and `load_plans`.
    """
    plans = load_plans(path)
    return list(plans.values()) if text is None else [choose_plan(text, plans)]


def month_values(requests: Iterable[Request], zone: tzinfo, plan: Plan) -> list[MonthValue]:
    """Each calendar month (in `zone`) that holds a request's start, oldest first: the rows of
    `sniff monthly`."""
    table = period_table(requests, zone, "month")
    return [MonthValue(row.key, row.totals, plan) for row in table.rows]


def week_multiple(cost: float | None, plan: Plan) -> float | None:
    """A week's API-equivalent cost / the plan's weekly share (`Plan.usd_per_week`)."""
    return None if cost is None else cost / plan.usd_per_week
