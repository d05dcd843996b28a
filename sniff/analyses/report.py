"""Provides `build_report`: every analysis a cost report holds, over one selection of requests.

Why one object: the same report is written as HTML, Markdown, CSV and JSON, and each must show
the same numbers as `sniff scan`, `sniff cache`, `sniff lint` and `sniff latency`. The analyses
run here once; the writers in `sniff.present.report_*` only lay them out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from sniff.analyses.cache.breaks import BreakReport, find_breaks
from sniff.analyses.cost.branches import Attributed, attribute
from sniff.analyses.cost.commits import CommitReport, analyze_commits
from sniff.analyses.cost.periods import grouped
from sniff.analyses.cost.summary import Group, LocalDays, Summary, Totals, summarize
from sniff.findings import Finding
from sniff.model import Activity, Dataset, Request
from sniff.pricing import PriceBook, PriceSource

if TYPE_CHECKING:
    from sniff.analyses.agents.activity import AgentReport
    from sniff.analyses.cache.simulation import CacheReport
    from sniff.analyses.drift.report import DriftReport
    from sniff.analyses.latency.measures import LatencyReport

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
    """The dearest lint findings of the logged prompts."""
    latency: list[LatencyReport] = field(default_factory=list)
    """TTFT and end to end, where the logs time the requests."""
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

    @property
    def totals(self) -> Totals:
        """Sums over the report."""
        return self.summary.totals


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
) -> Report:
    """The report of `dataset`'s requests that `keep` selects, grouped `by`.

    `lint` are the findings of the prompts in the logs those requests came from (`linted_logs`:
    the caller lints them, the analyses never run lint); the dearest are kept.

    Raises:
        ValueError: `by` is not one of GROUPINGS.
    """
    if by not in GROUPINGS:
        raise ValueError(f"unknown grouping {by!r}")
    from sniff.analyses.drift.report import analyze_drift

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
        lint=_dearest(lint),
        latency=_latency(chosen, zone) if latency else [],
        cost_by_class=_cost_by_class(chosen, zone),
        agents=_agents(chosen, activity, zone),
        branches=attribute(chosen, "branch"),
        drift=analyze_drift(chosen, activity, breaks.breaks, zone, by="day"),
        commits=analyze_commits(chosen, activity),
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


def _dearest(findings: Sequence[Finding]) -> list[Finding]:
    """The findings whose fix saves the most, at most `TOP_FINDINGS`."""
    found = list(findings)
    found.sort(key=lambda item: -(item.saving.usd or 0.0) if item.saving else 0.0)
    return found[:TOP_FINDINGS]


def _latency(requests: list[Request], zone: tzinfo) -> list[LatencyReport]:
    from sniff.analyses.latency.measures import analyze_latency
    from sniff.analyses.latency.timing import timing

    if not any(timing(request) is not None for request in requests):
        return []
    return [analyze_latency(requests, metric, zone) for metric in ("ttft", "visible", "e2e")]


def period_text(first: datetime | None, last: datetime | None, zone: tzinfo) -> str:
    """`2026-02-10 → 2026-03-07` in the report's zone."""
    if first is None or last is None:
        return "no requests"
    return f"{first.astimezone(zone):%Y-%m-%d} → {last.astimezone(zone):%Y-%m-%d}"
