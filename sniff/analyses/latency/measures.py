"""Provides the latency analysis: TTFT, TPOT and end-to-end per request, percentiles, the peaks
of the distribution with what explains each, peaks over time, and goodput under targets.

Why peaks and not only percentiles: a cache hit and a cache miss are two response-time
populations. When the hit rate moves, the P99 moves although neither population changed; the
peaks (found by `sniff.analyses.latency.peaks`) stay where they are and only their heights
change, and each peak's share of hits and misses says which population it is.

Timing is exact where the log records the request's start, its first response bytes and its end
(claude-trace, request logs) and approximate where it only stamps records as they are written
(Claude Code transcripts, Codex rollouts); every figure says how many of each it rests on. Time
per output token needs the first and the last token's times: a log that stamps records as they
are written has neither (a few microseconds between two lines are the writer's, not the
model's), so those requests have no TPOT, and the report says how many.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import TYPE_CHECKING

from sniff.analyses.cost.summary import LocalDays
from sniff.analyses.latency.coverage import Coverage, coverage
from sniff.analyses.latency.timing import Timing, quantile, timings
from sniff.model import Request
from sniff.numbers import plural

if TYPE_CHECKING:  # scipy loads with the peaks only when an analysis runs
    from sniff.analyses.latency.peaks import Peak, PeakReport
    from sniff.analyses.latency.visible import Beside, ThinkingShare

METRICS = ("ttft", "visible", "tpot", "e2e")
HIT_SHARE = 0.5
"""A request is a cache hit when at least half its prompt was read from the cache."""
OUTPUT_BANDS = ((100, "< 100"), (1_000, "100–999"), (10_000, "1k–10k"), (None, "≥ 10k"))
"""Output-length bands, in tokens: long answers take long whatever the cache did."""
QUANTILES = (0.5, 0.9, 0.95, 0.99)


@dataclass(frozen=True, slots=True)
class Slo:
    """Latency targets in seconds; a request meets them when it meets every one that is set."""

    ttft: float | None = None
    tpot: float | None = None
    e2e: float | None = None
    visible: float | None = None

    @property
    def set(self) -> dict[str, float]:
        """The targets given."""
        given = {"ttft": self.ttft, "visible": self.visible, "tpot": self.tpot, "e2e": self.e2e}
        return {metric: value for metric, value in given.items() if value is not None}


@dataclass(frozen=True, slots=True)
class Percentiles:
    """The classic summary, for reference."""

    p50: float
    p90: float
    p95: float
    p99: float
    minimum: float
    maximum: float
    mean: float


@dataclass(frozen=True, slots=True)
class ExplainedPeak:
    """A peak and the requests it holds: cache hits or misses, which models, how long answers."""

    peak: Peak
    requests: int
    hit_share: float | None
    """Share of its requests that were cache hits (None when none reported a prompt)."""
    by_model: list[tuple[str, float]]
    by_output: list[tuple[str, float]]


@dataclass(frozen=True, slots=True)
class PeriodPeaks:
    """One day (or hour) of the peaks: how many requests fell in each, and where."""

    period: str
    requests: int
    shares: list[float]
    """Per peak: the share of the period's requests in it."""
    medians: list[float | None]
    """Per peak: the median latency of the period's requests in it."""
    hit_rate: float | None
    """The period's token-weighted cache hit rate."""


@dataclass(frozen=True, slots=True)
class GoodputRow:
    """Goodput of a group (a day, a model)."""

    key: str
    measured: int
    good: int

    @property
    def share(self) -> float | None:
        """Share of measured requests that met every target."""
        return self.good / self.measured if self.measured else None


@dataclass(frozen=True, slots=True)
class Goodput:
    """Requests meeting the latency targets: share, rate, by day and by model."""

    slo: dict[str, float]
    total: GoodputRow
    per_hour: float | None
    """Good requests per hour of activity (`active_hours`)."""
    active_hours: int
    """Clock hours (in the report's zone) in which at least one measured request started."""
    active_days: int
    """Days (in the report's zone) on which at least one measured request started."""
    by_day: list[GoodputRow]
    by_model: list[GoodputRow]
    unmeasured: int
    """Requests whose log lacks a measure a target needs."""

    @property
    def per_active_day(self) -> float | None:
        """Good requests per day of activity."""
        return self.total.good / self.active_days if self.active_days else None


@dataclass(frozen=True, slots=True)
class LatencyReport:
    """Everything `sniff latency` shows for one metric."""

    metric: str
    count: int
    exact: int
    """How many of the values come from exact timestamps."""
    percentiles: Percentiles | None
    peaks: PeakReport
    explained: list[ExplainedPeak]
    over_time: list[PeriodPeaks]
    goodput: Goodput | None
    notes: list[str] = field(default_factory=list)
    not_measurable: dict[str, int] = field(default_factory=dict)
    """Requests the log times but whose format's times cannot give this metric, by format."""
    beside: list[Beside] = field(default_factory=list)
    coverage: list[Coverage] = field(default_factory=list)
    """Per harness, how many requests this metric measured, and why the others were not."""
    """Of `visible`: time to first visible token beside TTFT, all models then each."""
    thinking: list[ThinkingShare] = field(default_factory=list)
    """Of `visible`: thinking's estimated share of output, where logs hold the text."""


ROLLUPS_LEFT_OUT = "{} logged only as totals ({}) left out: no call's times in them"


def analyze_latency(
    requests: Sequence[Request],
    metric: str,
    zone: tzinfo,
    slo: Slo | None = None,
    keep: Callable[[Request], bool] | None = None,
) -> LatencyReport:
    """Percentiles, peaks explained, peaks over time and goodput of one metric."""
    from sniff.analyses.latency.peaks import assign, find_peaks
    from sniff.analyses.latency.visible import beside_ttft, thinking_shares

    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}")
    chosen = [r for r in requests if keep is None or keep(r)]
    totals_only = (
        sorted({str(r.harness) for r in chosen if r.rollup}),
        sum(r.rollup for r in chosen),
    )
    measured = timings([r for r in chosen if not r.rollup])
    pairs = [(item, item.value(metric)) for item in measured]
    valued = [(item, value) for item, value in pairs if value is not None]
    values = [value for _, value in valued]
    report = find_peaks(values)
    owners = assign(report, values)
    exact = sum(item.exact for item, _ in valued)
    blind = _not_measurable(measured, metric)
    notes = _notes(report, valued, exact, metric, blind, totals_only)
    return LatencyReport(
        metric=metric,
        count=len(values),
        exact=exact,
        percentiles=percentiles(values),
        peaks=report,
        explained=_explain(report, valued, owners),
        over_time=_over_time(report, valued, owners, zone),
        goodput=_goodput(measured, slo, zone) if slo and slo.set else None,
        notes=notes,
        not_measurable=blind,
        beside=beside_ttft(measured) if metric == "visible" else [],
        thinking=thinking_shares(chosen) if metric == "visible" else [],
        coverage=coverage(chosen, metric),
    )


BLIND = {
    "tpot": "no time per output token for {} requests: their logs stamp records as written, "
    "not the first and the last token",
    "visible": "no time to first visible token for {} requests: their logs do not time the "
    "first text or tool call apart from the first token, or the response held neither",
}


def _notes(
    report: PeakReport,
    valued: list[tuple[Timing, float]],
    exact: int,
    metric: str,
    blind: dict[str, int],
    totals_only: tuple[list[str], int],
) -> list[str]:
    """What the figures leave out or only approximate."""
    from sniff.analyses.latency.visible import DIFFERENCE

    notes = [report.note] if report.note and valued else []  # none: the report says so
    harnesses, sessions = totals_only
    if sessions:
        notes.append(ROLLUPS_LEFT_OUT.format(plural(sessions, "session"), ", ".join(harnesses)))
    if valued and exact < len(valued):
        notes.append(
            f"{len(valued) - exact:,} of {len(valued):,} values are approximate: their logs "
            "stamp records as written, not the request's start and first bytes"
        )
    if metric == "visible" and valued:
        notes.append(DIFFERENCE)
    notes += first_hand_notes(valued, metric)
    if blind:
        formats = ", ".join(f"{count:,} {source}" for source, count in blind.items())
        notes.append(BLIND[metric].format(formats))
    return notes


FIRST_HAND = (
    "{} timed by the agent's own telemetry (OpenTelemetry), joined to {}: median {:.3f} s; "
    "sniff's estimate from {} transcript line times: {:.3f} s"
)
ESTIMATED = {"ttft": ("estimated_started_at", "estimated_first_at"),
             "e2e": ("estimated_started_at", "estimated_ended_at")}  # fmt: skip
"""The measures sniff also estimates from a transcript, and its estimates' ends."""


def first_hand_notes(valued: list[tuple[Timing, float]], metric: str) -> list[str]:
    """Where the agent's telemetry timed requests also in a transcript: its figure and sniff's
    own estimate beside it (what the transcript alone would have said)."""
    ends = ESTIMATED.get(metric)
    pairs = []
    for item, value in valued:
        first_hand = item.request.first_hand
        if ends is None or first_hand is None or first_hand.joined_by is None:
            continue
        start, end = (getattr(first_hand, name) for name in ends)
        if start is not None and end is not None and end > start:
            pairs.append((value, end - start))
    if not pairs:
        return []
    from sniff.analyses.latency.timing import median

    told = plural(len(pairs), "request")
    return [FIRST_HAND.format(told, "their transcripts", median(v for v, _ in pairs),
                              "their", median(e for _, e in pairs))]  # fmt: skip


def _not_measurable(measured: list[Timing], metric: str) -> dict[str, int]:
    """By format, the requests timed whose log's times cannot give `metric`: TPOT needs the
    first and the last token's times, the first visible token its own time."""
    if metric == "tpot":
        return dict(Counter(item.request.source for item in measured if not item.exact))
    if metric == "visible":
        return dict(Counter(item.request.source for item in measured if item.visible is None))
    return {}


def is_hit(request: Request) -> bool | None:
    """Whether the request was served mostly from cache (None without a prompt)."""
    prompt = request.usage.prompt_tokens
    return None if not prompt else request.usage.cache_read_tokens >= HIT_SHARE * prompt


def output_band(tokens: int) -> str:
    """The output-length band of a request."""
    for limit, label in OUTPUT_BANDS:
        if limit is None or tokens < limit:
            return label
    return OUTPUT_BANDS[-1][1]


def percentiles(values: list[float]) -> Percentiles | None:
    """The classic summary of `values`; None without one."""
    if not values:
        return None
    ordered = sorted(values)
    p50, p90, p95, p99 = (quantile(ordered, q) for q in QUANTILES)
    return Percentiles(p50, p90, p95, p99, ordered[0], ordered[-1], sum(ordered) / len(ordered))


def _explain(
    report: PeakReport, valued: list[tuple[Timing, float]], owners: list[int | None]
) -> list[ExplainedPeak]:
    members: dict[int, list[Request]] = defaultdict(list)
    for (item, _), owner in zip(valued, owners, strict=True):
        if owner is not None:
            members[owner].append(item.request)
    explained = []
    for index, peak in enumerate(report.peaks):
        held = members.get(index, [])
        hits = [hit for hit in (is_hit(r) for r in held) if hit is not None]
        explained.append(
            ExplainedPeak(
                peak,
                len(held),
                sum(hits) / len(hits) if hits else None,
                _shares(r.model for r in held),
                _shares(output_band(r.usage.output_tokens) for r in held),
            )
        )
    return explained


def _shares(labels: Iterable[str]) -> list[tuple[str, float]]:
    counted = Counter(labels)
    total = sum(counted.values())
    return [(label, number / total) for label, number in counted.most_common()]


def _over_time(
    report: PeakReport,
    valued: list[tuple[Timing, float]],
    owners: list[int | None],
    zone: tzinfo,
) -> list[PeriodPeaks]:
    """Per day, or per hour when everything happened within two days."""
    if not report.peaks or not valued:
        return []
    moments = [item.request.when for item, _ in valued]
    hourly = (max(moments) - min(moments)).total_seconds() <= 2 * 86400
    pattern = "%Y-%m-%d %H:00" if hourly else "%Y-%m-%d"
    period_of = LocalDays(zone, pattern)
    groups: dict[str, list[tuple[Timing, float, int | None]]] = defaultdict(list)
    for (item, value), owner in zip(valued, owners, strict=True):
        groups[period_of(item.request.when)].append((item, value, owner))
    periods = []
    for period in sorted(groups):
        rows = groups[period]
        shares, medians = [], []
        for index in range(len(report.peaks)):
            mine = sorted(value for _, value, owner in rows if owner == index)
            shares.append(len(mine) / len(rows))
            medians.append(quantile(mine, 0.5) if mine else None)
        prompt = sum(item.request.usage.prompt_tokens for item, _, _ in rows)
        read = sum(item.request.usage.cache_read_tokens for item, _, _ in rows)
        periods.append(
            PeriodPeaks(period, len(rows), shares, medians, read / prompt if prompt else None)
        )
    return periods


def _goodput(measured: list[Timing], slo: Slo, zone: tzinfo) -> Goodput:
    targets = slo.set
    by_day: dict[str, list[bool]] = defaultdict(list)
    by_model: dict[str, list[bool]] = defaultdict(list)
    verdicts: list[bool] = []
    hours: set[str] = set()
    unmeasured = 0
    day_of, hour_of = LocalDays(zone), LocalDays(zone, "%Y-%m-%d %H")
    for item in measured:
        values = [(item.value(metric), limit) for metric, limit in targets.items()]
        if any(value is None for value, _ in values):
            unmeasured += 1
            continue
        good = all(value is not None and value <= limit for value, limit in values)
        when = item.request.when
        verdicts.append(good)
        hours.add(hour_of(when))
        by_day[day_of(when)].append(good)
        by_model[item.request.model].append(good)
    return Goodput(
        slo=targets,
        total=GoodputRow("all", len(verdicts), sum(verdicts)),
        per_hour=sum(verdicts) / len(hours) if hours else None,
        active_hours=len(hours),
        active_days=len(by_day),
        by_day=[GoodputRow(day, len(v), sum(v)) for day, v in sorted(by_day.items())],
        by_model=[
            GoodputRow(model, len(v), sum(v))
            for model, v in sorted(by_model.items(), key=lambda pair: -len(pair[1]))
        ],
        unmeasured=unmeasured,
    )
