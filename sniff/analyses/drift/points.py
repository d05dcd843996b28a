"""Provides `change_points`: where a drift series' level moved.

Each measure's values period by period (periods with fewer than `Rules.min_period_requests`
left out of the signal) are segmented, all signals in one batch, by `segmentation.segment`
(what `ruptures`' PELT with a linear kernel computes, checked against it in the tests: a
least-squares cost, each segment at least `Rules.min_segment_periods` long) with the penalty
`penalty_factor · σ² · ln n`, where σ is the noise of the signal (the median absolute first
difference / (0.6745·√2)), floored at half the measure's smallest reported change, so a flat
series with one clean step is not cut everywhere.

Each candidate is then judged from the requests on either side (the whole segments up to the
neighbouring change points): it is kept only if each side holds `min_side_requests` requests
(and `min_side_tokens` prompt tokens for the hit rate), the change is at least the measure's
`min_size`, and the 95 % interval of the change (normal, ratio estimator, the sides
independent) excludes zero. Requests of a session are not independent: the interval is
narrower than the truth, which is why the size and count guards come first.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace

from sniff.analyses.drift.series import SEARCHED, Z95, Measure, Series, Sums

DETECTED_IN = ("overall", "harness", "model", "project")
"""The dimensions whose series are searched (a version spans one stretch of time: versions
are compared, `--version-compare`, and changes of version explain events)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The guards against noise (see the module docstring)."""

    penalty_factor: float = 3.0
    min_segment_periods: int = 3
    min_period_requests: int = 5
    min_side_requests: int = 30
    min_side_sessions: int = 20
    min_side_tokens: int = 100_000


@dataclass(frozen=True, slots=True)
class Side:
    """The level of a measure over the periods on one side of a change point."""

    first: str
    last: str
    level: float
    low: float
    high: float
    requests: int
    sessions: int
    """Units of the interval: a session's requests in one period."""
    prompt_tokens: int


@dataclass(frozen=True, slots=True)
class ChangePoint:
    """A series' measure moved from `before` to `after` at the period `at`."""

    measure: Measure
    dimension: str
    value: str | None
    at: str
    """The first period of the new level."""
    index: int
    """`at`'s position in the series' periods."""
    before: Side
    after: Side
    change: float
    change_low: float
    change_high: float
    penalty: float


@dataclass(frozen=True, slots=True)
class _Signal:
    """One measure of one series, as segmented: its kept periods, values and penalty."""

    series: Series
    measure: Measure
    kept: list[int]
    """The positions in the series of the periods in the signal."""
    values: list[float]
    penalty: float


def change_points(series: list[Series], rules: Rules) -> list[ChangePoint]:
    """The change points of every measure of every searched series, oldest first.

    A series holding the very requests of one searched before (everything, when the logs are
    of one harness; a model used in one project only) has its points, not a search again."""
    from sniff.analyses.drift.segmentation import segment

    searched, same_as = _distinct([one for one in series if one.dimension in DETECTED_IN])
    signals = [
        signal
        for one in searched
        for measure in SEARCHED
        if (signal := _signal(one, measure, rules)) is not None
    ]
    starts = segment(
        [signal.values for signal in signals],
        [signal.penalty for signal in signals],
        rules.min_segment_periods,
    )  # every signal in one call: the solver works across the batch
    found = []
    for signal, cuts in zip(signals, starts, strict=True):
        points = _judged_cuts(signal, [signal.kept[cut] for cut in cuts], rules)
        found.extend(points)
        for copy in same_as.get(id(signal.series), ()):
            found.extend(replace(p, dimension=copy.dimension, value=copy.value) for p in points)
    found.sort(key=lambda point: (point.at, SEARCHED.index(point.measure), point.dimension))
    return found


def _distinct(series: list[Series]) -> tuple[list[Series], dict[int, list[Series]]]:
    """The series with buckets of their own, and for each (by `id`) those equal to it."""
    distinct: list[Series] = []
    same_as: dict[int, list[Series]] = {}
    for one in series:
        twin = next(
            (s for s in distinct if s.periods == one.periods and s.buckets == one.buckets), None
        )
        if twin is None:
            distinct.append(one)
        else:
            same_as.setdefault(id(twin), []).append(one)
    return distinct, same_as


def _signal(series: Series, measure: Measure, rules: Rules) -> _Signal | None:
    """The values of `measure` in the periods with enough requests (None if too few of them
    to hold two segments), and the penalty of a cut (see the module docstring)."""
    levels: list[float] = []  # of every period with one: what a side's level is a mean of
    kept, values = [], []
    for index, bucket in enumerate(series.buckets):
        sums = bucket.held(measure.key)
        level = None if sums is None else sums.level
        if sums is None or level is None:
            continue
        levels.append(level)
        if sums.requests >= rules.min_period_requests:
            kept.append(index)
            values.append(level)
    if len(kept) < 2 * rules.min_segment_periods or _too_flat(levels, measure):
        return None
    scale = abs(statistics.fmean(values)) or 1.0
    floor = measure.min_size / 2 * (1.0 if measure.unit == "share" else scale)
    differences = [abs(b - a) for a, b in zip(values, values[1:], strict=False)]
    sigma = max(statistics.median(differences) / (0.6745 * math.sqrt(2)), floor)
    penalty = rules.penalty_factor * sigma * sigma * math.log(len(values))
    return _Signal(series, measure, kept, values, penalty)


def _too_flat(levels: list[float], measure: Measure) -> bool:
    """Whether no change between two runs of periods can reach the measure's smallest
    reported change: a run's level is a weighted mean of its periods' levels, so no two
    differ by more than the spread of those (a slight margin for rounding). Cutting such a
    signal would only find cuts that `_judged` rejects, so it is not segmented at all."""
    low, high = min(levels), max(levels)
    smallest = min(abs(level) for level in levels)
    threshold = measure.min_size * (1.0 if measure.unit == "share" else smallest)
    return high - low < threshold * (1 - 1e-9) or high == low


def _judged_cuts(signal: _Signal, cuts: list[int], rules: Rules) -> list[ChangePoint]:
    """The cuts (positions in the series) that pass every guard, judged again each time a
    rejected one joins its two segments."""
    series, measure, penalty = signal.series, signal.measure, signal.penalty
    memo: dict[tuple[int, int, int], ChangePoint | float] = {}
    ranges: dict[tuple[int, int], Sums] = {}  # a run's sums, shared by the cuts either side
    while True:  # a rejected cut joins its two segments, and the others are judged again
        bounds = [0, *cuts, len(series.buckets)]
        judged = []
        for three in zip(bounds, bounds[1:], bounds[2:], strict=False):
            if three not in memo:
                memo[three] = _judged(series, measure, rules, three, penalty, ranges)
            judged.append(memo[three])
        failed = [(point, index) for index, point in enumerate(judged) if isinstance(point, float)]
        if not failed:
            return [point for point in judged if isinstance(point, ChangePoint)]
        del cuts[min(failed)[1]]  # the weakest goes first


def _judged(
    series: Series,
    measure: Measure,
    rules: Rules,
    bounds: tuple[int, int, int],
    penalty: float,
    ranges: dict[tuple[int, int], Sums],
) -> ChangePoint | float:
    """The change point at `bounds[1]` if it passes every guard, else how strong it was
    (the change over its half interval; 0 when a side is too thin to tell). `ranges` keeps
    the sums of the runs of periods summed so far."""
    start, at, end = bounds
    for run in ((start, at), (at, end)):
        if run not in ranges:
            ranges[run] = series.sums(measure.key, *run)
    sums_before, sums_after = ranges[start, at], ranges[at, end]
    before = _side(series, sums_before, start, at)
    after = _side(series, sums_after, at, end)
    if before is None or after is None:
        return 0.0
    thin = min(sums_before.requests, sums_after.requests) < rules.min_side_requests
    thin = thin or min(sums_before.n, sums_after.n) < rules.min_side_sessions
    if (
        thin
        or measure.key == "hit_rate"
        and min(before.prompt_tokens, after.prompt_tokens) < (rules.min_side_tokens)
    ):
        return 0.0
    change = after.level - before.level
    half = Z95 * math.sqrt((sums_before.variance or 0.0) + (sums_after.variance or 0.0))
    threshold = measure.min_size * (1.0 if measure.unit == "share" else abs(before.level))
    if abs(change) < threshold or threshold == 0 or abs(change) <= half:
        return abs(change) / half if half else 0.0
    return ChangePoint(
        measure, series.dimension, series.value, series.periods[at], at, before, after,
        change, change - half, change + half, penalty,
    )  # fmt: skip


def _side(series: Series, sums: Sums, start: int, end: int) -> Side | None:
    level, interval = sums.level, sums.interval()
    if level is None or interval is None:
        return None
    prompt = sum(bucket.prompt_tokens for bucket in series.buckets[start:end])
    return Side(
        series.periods[start], series.periods[end - 1], level, interval[0], interval[1],
        sums.requests, sums.n, prompt,
    )  # fmt: skip
