"""Provides `build_report`: every analysis a cost report holds, over one selection of requests.

Why one object: the same report is written as HTML, Markdown, CSV and JSON, and each must show
the same numbers as `sniff scan`, `sniff cache`, `sniff lint` and `sniff latency`. The analyses
run here once; the writers in `sniff.present.report_*` only lay them out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from sniff.analyses.cache.breaks import BreakReport, find_breaks
from sniff.analyses.cost.branches import Attributed, attribute
from sniff.analyses.cost.commits import CommitReport, analyze_commits
from sniff.analyses.cost.exporters import EXPORTERS, attribute_exporters
from sniff.analyses.cost.outlook import Outlook, outlook
from sniff.analyses.cost.periods import grouped
from sniff.analyses.cost.plans import SUBSCRIPTION_HARNESS, MonthValue, Plan, month_values
from sniff.analyses.cost.summary import Group, LocalDays, Summary, Totals, summarize
from sniff.findings import Finding
from sniff.model import Activity, Dataset, Request
from sniff.pricing import PriceBook, PriceSource

if TYPE_CHECKING:
    from sniff.analyses.agents.activity import AgentReport
    from sniff.analyses.cache.simulation import CacheReport
    from sniff.analyses.drift.report import DriftReport
    from sniff.analyses.latency.by_model import ModelLatency

COST_CLASSES = ("input", "cache_read", "cache_write_5m", "cache_write_1h", "output")
GROUPINGS = ("day", "week", "month", "project", "model", "session", "agent", "harness")
TOP_FINDINGS = 10


@dataclass(frozen=True, slots=True)
class Report:
    """What a cost report says, before it is laid out."""

    by: str
    """The grouping of `groups`."""
    summary: Summary
    groups: list[Group]
    breaks: BreakReport
    dataset: Dataset
    source: PriceSource
    """The price data in use."""
    zone: tzinfo
    cache: CacheReport | None = None
    """The engine's what-ifs (None when the report was made without them)."""
    lint: list[Finding] = field(default_factory=list)
    """The lint findings of the logged prompts, those whose fix saves most first."""
    latency: list[ModelLatency] = field(default_factory=list)
    """TTFT, first visible token and end to end of all models, then per model group, where
    the logs time the requests."""
    outlook: Outlook | None = None
    """The latest month: so far, against the month before, and projected to its end."""
    plans: list[list[MonthValue]] = field(default_factory=list)
    """Per plan, each month's API-equivalent cost of the subscription's requests against it."""
    cost_by_class: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per day: dollars of uncached input, cache reads, 5m and 1h writes, and output."""
    agents: AgentReport | None = None
    """Tool use, failures and user requests, where the logs hold them."""
    branches: list[Attributed] = field(default_factory=list)
    """Cost by git branch, each request booked to the branch its log line names."""
    drift: DriftReport | None = None
    """The series per day, their change points and events (`sniff drift`)."""
    commits: CommitReport | None = None
    """The commits made inside sessions, with what each cost (`sniff commits`)."""
    exporters: dict[str, list[Attributed]] = field(default_factory=dict)
    """Of a team export: cost by the machine (`machine`) and user (`user`) each request is
    credited to (`exporters.attribute_exporters`); empty when no team export was read."""

    @property
    def totals(self) -> Totals:
        """Sums over the report."""
        return self.summary.totals

    @property
    def dearest_findings(self) -> list[Finding]:
        """The `TOP_FINDINGS` findings whose fix saves most."""
        return self.lint[:TOP_FINDINGS]


def build_report(
    dataset: Dataset,
    prices: PriceBook,
    zone: tzinfo,
    *,
    by: str = "day",
    keep: Callable[[Request], bool] | None = None,
    what_ifs: bool = True,
    lint: Sequence[Finding] = (),
    latency: bool = True,
    activity: Activity | None = None,
    plans: Sequence[Plan] = (),
    owners: Mapping[str, tuple[str, str | None]] | None = None,
) -> Report:
    """The report of `dataset`'s requests that `keep` selects, grouped `by`.

    `lint` are the findings of the prompts in the logs those requests came from (`linted_logs`:
    the caller lints them, the analyses never run lint). `plans` are the subscriptions the
    subscription harness's requests are weighed against. `owners`: the (machine, user) each
    request of a team export is credited to (`parquet_in.owners`), by key.

    Raises:
        ValueError: `by` is not one of GROUPINGS.
    """
    if by not in GROUPINGS:
        raise ValueError(f"unknown grouping {by!r}")
    from sniff.analyses.drift.report import analyze_drift
    from sniff.analyses.latency.by_model import latency_by_model

    chosen = [r for r in dataset.requests if keep is None or keep(r)]
    summary = summarize(chosen, zone)
    breaks = find_breaks(dataset.requests, prices, zone=zone, keep=keep)
    activity = dataset.activity if activity is None else activity
    return Report(
        by=by,
        summary=summary,
        groups=grouped(summary, by),
        breaks=breaks,
        dataset=dataset,
        source=prices.source(),
        zone=zone,
        cache=_what_ifs(dataset.requests, prices, keep) if what_ifs else None,
        lint=_by_saving(lint),
        latency=latency_by_model(chosen) if latency else [],
        outlook=outlook(chosen, zone),
        plans=_plans(chosen, zone, plans),
        cost_by_class=_cost_by_class(chosen, zone),
        agents=_agents(chosen, activity, zone),
        branches=attribute(chosen, "branch"),
        drift=analyze_drift(chosen, activity, breaks.breaks, zone, by="day"),
        commits=analyze_commits(chosen, activity),
        exporters={by: attribute_exporters(chosen, owners, by) for by in EXPORTERS if owners},
    )


def _agents(requests: list[Request], activity: Activity, zone: tzinfo) -> AgentReport | None:
    from sniff.analyses.agents.activity import analyze_agents

    if not activity.calls and not activity.events:
        return None
    return analyze_agents(requests, activity, zone)


def _cost_by_class(requests: list[Request], zone: tzinfo) -> dict[str, dict[str, float]]:
    day_of = LocalDays(zone)
    days: dict[str, dict[str, float]] = {}
    for request in requests:
        cost = request.cost
        if cost is None:
            continue
        day = days.setdefault(day_of(request.when), dict.fromkeys(COST_CLASSES, 0.0))
        day["input"] += cost.input_usd
        day["cache_read"] += cost.cache_read_usd
        day["cache_write_5m"] += cost.cache_write_5m_usd
        day["cache_write_1h"] += cost.cache_write_1h_usd
        day["output"] += cost.output_usd
    return days


def _what_ifs(
    requests: tuple[Request, ...], prices: PriceBook, keep: Callable[[Request], bool] | None
) -> CacheReport:
    from sniff.analyses.cache.simulation import analyze_cache
    from sniff.engine import simulation

    bundled = simulation()
    return analyze_cache(
        requests,
        prices,
        bundled.policies,
        what_ifs=bundled.what_ifs,
        keep=keep or (lambda _request: True),
    )


def linted_logs(dataset: Dataset, keep: Callable[[Request], bool] | None = None) -> list[Path]:
    """The logs whose prompts a report's lint findings cover: those holding the prompts of the
    requests `keep` selects (idle gaps, SN012, are the breaks' part)."""
    chosen = {r.file for r in dataset.requests if r.blocks and (keep is None or keep(r))}
    return [Path(file) for file in dataset.files if file in chosen and file.endswith(".jsonl")]


def _by_saving(findings: Sequence[Finding]) -> list[Finding]:
    """The findings, those whose fix saves the most first (in their order among equals)."""
    return sorted(findings, key=lambda item: -(item.saving.usd or 0.0) if item.saving else 0.0)


def _plans(requests: list[Request], zone: tzinfo, plans: Sequence[Plan]) -> list[list[MonthValue]]:
    """Per plan, the months of the subscription harness's requests against it (none without
    such requests)."""
    subscribed = [request for request in requests if request.harness == SUBSCRIPTION_HARNESS]
    if not subscribed:
        return []
    return [month_values(subscribed, zone, plan) for plan in plans]


def period_text(first: datetime | None, last: datetime | None, zone: tzinfo) -> str:
    """`2026-02-10 → 2026-03-07` in the report's zone."""
    if first is None or last is None:
        return "no requests"
    return f"{first.astimezone(zone):%Y-%m-%d} → {last.astimezone(zone):%Y-%m-%d}"
