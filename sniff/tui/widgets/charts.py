"""Provides `DailyChart`: cost and cache hit rate per day, as two labelled sparklines."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Sparkline

from sniff.analyses.cost.summary import Group
from sniff.numbers import money, percent


class DailyChart(Horizontal):
    """Daily cost beside daily hit rate, oldest day on the left."""

    DEFAULT_CSS = """
    DailyChart { height: 4; }
    DailyChart > Vertical { width: 1fr; padding: 0 1; }
    DailyChart Label {
        width: 1fr; height: 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis;
    }
    DailyChart Sparkline { height: 2; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Cost per active day", id="cost-label")
            yield Sparkline([], id="cost-line", summary_function=max)
        with Vertical():
            yield Label("Hit rate per active day", id="hit-label")
            yield Sparkline([], id="hit-line", summary_function=min)

    def show(self, days: list[Group]) -> None:
        """Plot these days (oldest first)."""
        costs = [day.totals.cost_usd for day in days]
        rates = [day.totals.hit_rate or 0.0 for day in days]
        self.query_one("#cost-line", Sparkline).data = costs
        self.query_one("#hit-line", Sparkline).data = rates
        if not days:
            return
        dearest = max(days, key=lambda day: day.totals.cost_usd)
        worst = min(days, key=lambda day: day.totals.hit_rate or 0.0)
        self.query_one("#cost-label", Label).update(
            f"Cost per active day · max {money(dearest.totals.cost_usd)} on {dearest.key}"
        )
        self.query_one("#hit-label", Label).update(
            f"Hit rate per active day · min {percent(worst.totals.hit_rate)} on {worst.key}"
        )
