"""Provides the peaks (modes) of a latency distribution, each with its location, spread and share.

Why peaks rather than percentiles: latencies are rarely one population. A cache hit and a cache
miss, a warm and a cold start, a short and a long answer are separate peaks, and a percentile
mixes them: the p50 can fall in the valley between two peaks, where hardly any request lies, and
the p99 moves when the *share* of slow requests changes, not their speed. Naming each peak (where
it sits, how wide it is, what share of requests it holds) says which population changed.

The method is Adrian Cockcroft's response-time distribution analysis: histogram the values in
log space (response times are roughly lognormal, so each population becomes a Gaussian there),
find the largest peak, fit one Gaussian to it and subtract it, rescan the residual for the next
(at several smoothing widths, so that a population spread thinly over many bins is seen as well
as a narrow one), and so on; then refit the components jointly (`sniff.analyses.latency.peak_fit`).

A Gaussian mixture fits noise and skew too, so the data decide which components are peaks.
Neighbouring components are merged into one population, the pair with the shallowest valley
first, until every pair of neighbours keeps to the rule. The rule judges each pair on its own
neighbourhood, never against the tallest bin of the histogram, and never by how far apart the
two lie: populations less than 2x apart are two peaks where the data dip between them, and a
skewed population is one however wide. A population is a peak of its own when:

- it holds at least 2 % of the values (its share of the fitted components);
- the data show a valley between it and each neighbour: the values within half a width, or
  within a whole width (the narrower population's standard deviation in log space), of the
  lowest point between them are fewer than those within that distance of either location, by
  more than `VALLEY_Z` (2.5) standard deviations of the Poisson noise of the two counts
  compared (an exact binomial test for small counts: `dip_sigmas`). The components one
  population is fitted with lie side by side with no dip between them: over 360 single
  lognormals of 100 to 3,000 values, narrow and wide, with outliers, no valley passed 0.6
  standard deviations, while populations 1.8x apart dip by 8 or more.

Each pair of neighbouring peaks, and each pair merged into one, keeps how deep its valley is
against the noise (`Valley`): what tells a user why two places are one peak or two.

A skewed population is fitted by several Gaussians side by side, and the merging makes them one
peak. A peak's location is the mode of the values it holds, not the centre of a Gaussian, which
a tail pulls off the top (see `_modes`); its range is that location times 10 to the power of
minus and plus the population's standard deviation in log space.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage  # type: ignore[import-untyped, unused-ignore]

from sniff.analyses.latency.peak_fit import (
    NOISE_Z,
    Array,
    Fit,
    Histogram,
    clean,
    cockcroft,
    dequantize,
    expected,
    histogram,
    refit,
)
from sniff.analyses.latency.valleys import VALLEY_Z, Valley, dip_sigmas

MIN_SHARE = 0.02
"""A peak holds at least 2 % of the values: fewer would be a blip, not a population."""
VALLEY_WINDOWS = (0.5, 1.0)
"""The counts compared: the values within half a width (and within a whole width) of the
valley, and of each peak, the width being the narrower population's."""


@dataclass(frozen=True, slots=True)
class Peak:
    """One population of the distribution."""

    location: float  # seconds: the mode of its population
    log_width: float  # its standard deviation, in decades (log10 units)
    low: float  # seconds: location / 10**log_width
    high: float  # seconds: location * 10**log_width
    share: float  # 0..1: its weight (area) among all fitted components
    count: int  # samples assigned to it (highest responsibility), outliers left out
    residual: float  # the fit's RMS residual over its range, relative to the tallest bin
    parts: tuple[tuple[float, float, float], ...]
    """The fitted Gaussians that make up the population: (share, log10 centre, log10 sigma);
    a skewed population takes more than one."""


@dataclass(frozen=True, slots=True)
class PeakReport:
    """The peaks found, and the histogram they were found in."""

    peaks: list[Peak]  # by location, fastest first
    samples: int  # values used (positive, finite)
    bins: list[tuple[float, float, int]]  # (low s, high s, count) of the log histogram shown
    note: str = ""  # what was left out of the fit, or why there are no peaks
    valleys: list[Valley] = field(default_factory=list)
    """Between each pair of neighbouring peaks, fastest first, then each pair merged into one
    peak (in the order they were merged)."""


def _parts(groups: list[Array], total: float) -> list[tuple[tuple[float, float, float], ...]]:
    return [
        tuple((float(count / total), float(mu), float(sigma)) for count, mu, sigma in group)
        for group in groups
    ]


def _log_likelihoods(x: Array, parts: Sequence[Sequence[tuple[float, float, float]]]) -> Array:
    """Per value (rows) and group of Gaussians (columns), log of the group's share times its
    density; logs so that far values do not underflow to a tie at zero."""
    columns = []
    for group in parts:
        shares, mus, sigmas = np.array(group, dtype=np.float64).reshape(-1, 3).T
        sigmas = np.maximum(sigmas, 1e-9)
        z = (x[:, None] - mus[None, :]) / sigmas[None, :]
        terms = np.log(np.maximum(shares / sigmas, 1e-300))[None, :] - 0.5 * z * z
        columns.append(np.logaddexp.reduce(terms, axis=1))
    return np.column_stack(columns)


def _vertex(values: Array) -> float:
    """Where the highest of `values` (evenly spaced) lies, between their positions: the top of
    the parabola through it and its neighbours."""
    top = int(np.argmax(values))
    if 0 < top < values.size - 1:
        before, at, after = values[top - 1 : top + 2]
        curvature = before - 2 * at + after
        if curvature < 0:
            return top + float(np.clip(0.5 * (before - after) / curvature, -0.5, 0.5))
    return float(top)


def _modes(hist: Histogram, groups: list[Array], owners: Array) -> Array:
    """Each group's location, in log10 seconds: the mode of the values it holds.

    That is the top of those values on the fit's bins, smoothed over the group's narrowest
    Gaussian: finer, noise makes tops; coarser, a skewed population's top moves toward its
    tail, and a spike of equal values flattens. Where the tallest bin of the histogram shown
    holds more of the values than the bin of that top, by more than NOISE_Z Poisson
    deviations, the location is the nearest point of the tallest bin: the local maximum the
    data show.
    """
    shown = hist.shown
    modes = []
    for index, group in enumerate(groups):
        mine = hist.inside[owners == index]
        fine = np.histogram(mine, bins=hist.edges)[0].astype(np.float64)
        smooth = ndimage.gaussian_filter1d(fine, max(float(group[:, 2].min()) / hist.width, 0.5))
        mode = float(hist.centers[0]) + _vertex(smooth) * hist.width
        counts = np.histogram(mine, bins=shown)[0]
        tallest = int(np.argmax(counts))
        at = int(np.clip(np.searchsorted(shown, mode) - 1, 0, counts.size - 1))
        if counts[tallest] - counts[at] > NOISE_Z * np.sqrt(counts[tallest] + counts[at]):
            mode = float(np.clip(mode, shown[tallest], shown[tallest + 1]))
        modes.append(mode)
    return np.asarray(modes, dtype=np.float64)


def _spread(group: Array) -> float:
    """The standard deviation of a group of components, in decades."""
    counts, mus, sigmas = group.T
    mean = float(np.average(mus, weights=counts))
    return float(np.sqrt(np.average(sigmas**2 + (mus - mean) ** 2, weights=counts)))


def _around(hist: Histogram, centres: Array, half: float) -> Array:
    """How many values lie within `half` of each centre."""
    ordered = hist.inside
    low = np.searchsorted(ordered, centres - half, side="left")
    return np.asarray(np.searchsorted(ordered, centres + half, side="right") - low, dtype=float)


def _dip(hist: Histogram, left: float, right: float, half: float) -> float:
    """How far the data dip between two peaks (log10 locations), below the lower of them: in
    standard deviations of the Poisson noise of the two counts compared (`dip_sigmas`)."""
    sides = _around(hist, np.array([left, right]), half)
    valley = float(_around(hist, np.linspace(left, right, 65), half).min())
    return dip_sigmas(int(sides.min()), int(valley))


@dataclass(frozen=True, slots=True)
class _Grouping:
    groups: list[Array]  # rows of (count, mu, sigma): the components of each population
    owners: Array  # per value inside the histogram, the index of the group holding it
    modes: Array  # per group, its location in log10 seconds

    @classmethod
    def of(cls, hist: Histogram, groups: list[Array]) -> _Grouping:
        total = float(sum(group[:, 0].sum() for group in groups))
        owners = np.argmax(_log_likelihoods(hist.inside, _parts(groups, total)), axis=1)
        return cls(groups, owners, _modes(hist, groups, owners))

    def valleys(self, hist: Histogram) -> list[tuple[float, int, int]]:
        """Each pair of neighbouring groups, fastest first: (the valley's depth in Poisson
        standard deviations, the faster group's index, the slower's). The depth is the deepest
        seen through windows of half and of all the narrower group's width: a narrow window
        sees a dip between close or narrow populations, a wide one gathers the counts of thinly
        spread ones."""
        widths = [_spread(group) for group in self.groups]
        order = [int(i) for i in np.argsort(self.modes)]
        found = []
        for i, j in zip(order[:-1], order[1:], strict=True):
            depth = max(
                _dip(
                    hist,
                    self.modes[i],
                    self.modes[j],
                    max(share * min(widths[i], widths[j]), hist.width),
                )
                for share in VALLEY_WINDOWS
            )
            found.append((depth, i, j))
        return found

    def merge_next(self, hist: Histogram, max_peaks: int) -> tuple[float, int, int] | None:
        """The two neighbouring groups to merge next, if any pair shows no valley deeper than
        the noise or there are more than `max_peaks`: of those, the pair with the shallowest
        valley. (Every group holds 2 %: `_significant` saw to its parts.)"""
        pairs = self.valleys(hist)
        failing = [pair for pair in pairs if pair[0] <= VALLEY_Z or len(self.groups) > max_peaks]
        return min(failing) if failing else None


def _significant(hist: Histogram, fit: Fit) -> Fit:
    """The fit without components under 2 % (the smallest dropped first, the rest refitted):
    too small to be a peak, and a narrow one fitted to noise would make a top of its own in the
    population it joined."""
    while len(fit.components) > 1:
        counts = fit.components[:, 0]
        if counts.min() >= MIN_SHARE * counts.sum():
            break
        fit = refit(hist, np.delete(fit.components, int(np.argmin(counts)), axis=0))
    return fit


def _grouping(hist: Histogram, fit: Fit, max_peaks: int) -> tuple[_Grouping, list[Valley]]:
    """The components grouped into populations that keep to the rule: neighbours that break
    it are merged, one pair at a time (a skewed population is fitted by several Gaussians);
    and each merge's valley."""
    grouping = _Grouping.of(hist, [row[None, :] for row in fit.components])
    merged = []
    while (pair := grouping.merge_next(hist, max_peaks)) is not None:
        depth, i, j = pair
        merged.append(_valley(grouping, depth, i, j, apart=False))
        groups = list(grouping.groups)
        groups[i] = np.vstack([groups[i], groups[j]])
        del groups[j]
        grouping = _Grouping.of(hist, groups)
    kept = [_valley(grouping, depth, i, j, apart=True) for depth, i, j in grouping.valleys(hist)]
    return grouping, kept + merged


def _valley(grouping: _Grouping, depth: float, left: int, right: int, *, apart: bool) -> Valley:
    faster, slower = float(grouping.modes[left]), float(grouping.modes[right])
    return Valley(float(10**faster), float(10**slower), round(float(depth), 2), apart)


def _peaks(hist: Histogram, fit: Fit, grouping: _Grouping) -> list[Peak]:
    """The groups of components as peaks, fastest first."""
    total = float(fit.components[:, 0].sum())
    parts = _parts(grouping.groups, total)
    assigned = np.bincount(grouping.owners, minlength=len(parts))
    misfit = hist.counts - expected(fit.components.ravel(), hist.edges) - fit.floor * hist.floor
    tallest = max(float(hist.counts.max()), 1.0)
    peaks = []
    for index in np.argsort(grouping.modes):
        group, mode = grouping.groups[index], float(grouping.modes[index])
        _, mus, sigmas = group.T
        reach = (mus - 2 * sigmas).min() - hist.width, (mus + 2 * sigmas).max() + hist.width
        near = (hist.centers >= reach[0]) & (hist.centers <= reach[1])
        rms = float(np.sqrt(np.mean(misfit[near] ** 2))) if np.any(near) else 0.0
        width = _spread(group)
        peaks.append(
            Peak(
                location=float(10**mode),
                log_width=width,
                low=float(10 ** (mode - width)),
                high=float(10 ** (mode + width)),
                share=float(group[:, 0].sum() / total),
                count=int(assigned[index]),
                residual=min(1.0, rms / tallest),
                parts=parts[index],
            )
        )
    return peaks


def _left_out(x: Array, hist: Histogram) -> str:
    """What the fit leaves out, said so that it agrees with the percentiles beside it."""
    below, above = int(np.sum(x < hist.lo)), int(np.sum(x > hist.hi))
    sides = [f"{below} below {10**hist.lo:.3g} s"] * bool(below)
    sides += [f"{above} above {10**hist.hi:.3g} s"] * bool(above)
    if not sides:
        return ""
    return f"left out of the peak fit as outliers: {' and '.join(sides)} (percentiles keep them)"


def find_peaks(values: Sequence[float], *, min_samples: int = 30, max_peaks: int = 5) -> PeakReport:
    """The peaks of a latency distribution (values in seconds), fastest first."""
    good, dropped = clean(np.asarray(values, dtype=np.float64))
    notes = [f"{dropped} non-positive or non-finite values ignored"] if dropped else []
    x = np.log10(dequantize(good))
    if x.size == 0:
        return PeakReport(peaks=[], samples=0, bins=[], note="; ".join(notes or ["no values"]))
    hist = histogram(x)
    if outside := _left_out(x, hist):
        notes.append(outside)
    peaks: list[Peak] = []
    valleys: list[Valley] = []
    shown = hist.shown
    if x.size < min_samples:
        notes.append(f"too few samples ({x.size}) to tell peaks apart")
    elif max_peaks > 0:
        fit = _significant(hist, refit(hist, cockcroft(hist, max_peaks)))
        if len(fit.components):
            grouping, valleys = _grouping(hist, fit, max_peaks)
            peaks = _peaks(hist, fit, grouping)
            shown = _aligned(hist, grouping)
    counts = np.histogram(hist.inside, bins=shown)[0]
    bins = [
        (float(10**a), float(10**b), int(c))
        for a, b, c in zip(shown[:-1], shown[1:], counts, strict=True)
    ]
    return PeakReport(
        peaks=peaks, samples=int(x.size), bins=bins, note="; ".join(notes), valleys=valleys
    )


def _aligned(hist: Histogram, grouping: _Grouping) -> Array:
    """The edges of the histogram shown, started where each peak's location falls in the
    tallest bin of its own values (where some start does so for every peak; else where most).

    Why: where the merged bins start is arbitrary, and a start that splits a population's top
    between two bins can show the bin beside its location a few values taller, within noise:
    a peak drawn beside the bar that looks like its top.
    """
    best, best_misses = hist.shown, len(grouping.groups) + 1
    for phase in range(hist.step):
        edges = hist.shown_at(phase)
        misses = 0
        for index, mode in enumerate(grouping.modes):
            counts = np.histogram(hist.inside[grouping.owners == index], bins=edges)[0]
            at = int(np.clip(np.searchsorted(edges, mode, side="right") - 1, 0, counts.size - 1))
            misses += int(counts[at] < counts.max())
        if misses < best_misses:
            best, best_misses = edges, misses
        if not misses:
            break
    return best


def assign(report: PeakReport, values: Sequence[float]) -> list[int | None]:
    """Index (into report.peaks) of the component each value most likely came from (None if no
    peaks, or for a value that is not a positive finite number)."""
    raw = np.asarray(values, dtype=np.float64).ravel()
    if not report.peaks or raw.size == 0:
        return [None] * raw.size
    good = np.isfinite(raw) & (raw > 0)
    parts = [peak.parts for peak in report.peaks]
    owners = np.argmax(_log_likelihoods(np.log10(raw[good]), parts), axis=1)
    found = iter(owners.tolist())
    return [next(found) if usable else None for usable in good.tolist()]
