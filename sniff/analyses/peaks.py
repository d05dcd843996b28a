"""Provides the peaks (modes) of a latency distribution, each with its location, spread and share.

Why peaks rather than percentiles: latencies are rarely one population. A cache hit and a cache
miss, a warm and a cold start, a short and a long answer are separate peaks, and a percentile
mixes them: the p50 can fall in the valley between two peaks, where hardly any request lies, and
the p99 moves when the *share* of slow requests changes, not their speed. Naming each peak (where
it sits, how wide it is, what share of requests it holds) says which population changed.

The method is Adrian Cockcroft's response-time distribution analysis: histogram the values in
log space (response times are roughly lognormal, so each population becomes a Gaussian there),
find the tallest peak, fit one Gaussian to it and subtract it, rescan the residual for the next
peak, and so on. The components found that way are then refitted jointly, since each single fit
was disturbed by its neighbours' tails: a binned maximum-likelihood fit (Poisson deviance
residuals, exact bin integrals) with a low flat floor that absorbs scattered outliers.

A Gaussian mixture fits noise and skew too, so a component is kept only if it is a peak of its
own: not tiny, a mode of the fitted density, separated from its neighbour by a valley the data
show (a plateau fitted by Gaussians side by side ripples; the data do not), and worth its three
parameters (BIC). That is what keeps one lognormal, noisy or skewed, one peak.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import ndimage, optimize, signal, special  # type: ignore[import-untyped, unused-ignore]

Array = npt.NDArray[np.float64]

TAIL = 0.005
"""Quantile cut at each end: a handful of extreme values must not stretch the histogram."""
FENCE = 3.0
"""...unless the data reach within 3 IQR of the quartiles: then they are a tail, not outliers."""
MIN_BINS, MAX_BINS = 10, 400
PAD_BINS = 2
"""Empty bins each side of the range: they show the fits where the data end."""
MIN_SPAN = 0.1
"""Decades: the narrowest histogram range, so that near-identical values still get bins..."""
MIN_WIDTH = 0.005
"""...and the narrowest bin (1.2 %): finer, identical values would spread over hundreds."""
REL_PROMINENCE = 0.05
"""A peak must rise by 5 % of the tallest bin above its surroundings..."""
NOISE_Z = 3.0
"""...and by 3 standard deviations of its Poisson noise, to be told from a wiggle."""
SMOOTH_NOISE = 0.75
"""A prominence's noise, per square root of the peak's count: smoothing over a bin keeps 0.53 of
a count's Poisson noise, and a prominence is the difference of two such counts (x 1.41)."""
MIN_SHARE = 0.01
"""A peak holds at least 1 % of the values: fewer would be a blip, not a population."""
MAX_STEPS = 100
"""Fit iterations: a fit that would need more has a component that pruning then drops (and a
single peak's fit only seeds the joint one: a quarter of that)."""
JOINT_FIT = {"x_scale": "jac", "max_nfev": MAX_STEPS, "ftol": 1e-6, "xtol": 1e-6}
"""A relative change of 1e-6 in the likelihood is far below what moves a peak."""
VALLEY_Z = 2.0
VALLEY_HALF = 0.5
"""Two peaks are apart when the data dip between them: the values within half a width of the
valley are fewer than those around the lower peak, by 2 Poisson standard deviations."""
SEPARATION = 1.0
"""A component whose nearest mode lies further than a width away is a shoulder, not a peak."""


@dataclass(frozen=True, slots=True)
class Peak:
    """One population of the distribution: a Gaussian in log10 seconds."""

    location: float  # seconds: 10**mu of the fitted Gaussian in log10 space
    log_width: float  # sigma of the fitted Gaussian, in decades (log10 units)
    low: float  # seconds: 10**(mu - sigma)
    high: float  # seconds: 10**(mu + sigma)
    share: float  # 0..1: the component's weight (area) among all components
    count: int  # samples assigned to it (highest responsibility), outliers ignored
    residual: float  # the fit's RMS residual within mu ± 2 sigma, relative to the tallest bin


@dataclass(frozen=True, slots=True)
class PeakReport:
    """The peaks found, and the histogram they were found in."""

    peaks: list[Peak]  # by location, fastest first
    samples: int  # values used (positive, finite)
    bins: list[tuple[float, float, int]]  # (low s, high s, count) of the log histogram
    note: str = ""  # what was ignored, or why there are no peaks


@dataclass(frozen=True, slots=True)
class _Histogram:
    edges: Array  # log10 seconds
    counts: Array
    inside: Array  # the log10 values counted (those within the robust range), sorted
    lo: float  # the robust range, in log10 seconds
    hi: float

    @property
    def centers(self) -> Array:
        return (self.edges[:-1] + self.edges[1:]) / 2

    @property
    def width(self) -> float:
        return float(self.edges[1] - self.edges[0])

    @property
    def floor(self) -> Array:
        """Where the floor of outliers lies: not in the empty bins that pad the range."""
        inner = np.ones(self.counts.size)
        inner[:PAD_BINS] = inner[-PAD_BINS:] = 0.0
        return inner


@dataclass(frozen=True, slots=True)
class _Fit:
    components: Array  # rows of (count, mu, sigma)
    floor: float  # counts per bin
    deviance: float  # -2 log likelihood, up to a constant


def _clean(values: Sequence[float]) -> tuple[Array, int]:
    """The usable values (positive, finite), and how many were not usable."""
    raw = np.asarray(values, dtype=np.float64).ravel()
    good = raw[np.isfinite(raw) & (raw > 0)]
    return good, int(raw.size - good.size)


def _dequantize(values: Array) -> Array:
    """Values logged at a fixed step (whole milliseconds, whole seconds), spread evenly over
    their step.

    Why: in log space a repeated value is a spike, and at small values the spikes stand apart
    (1 s, 2 s, 3 s: 0.3 and 0.18 decades) like peaks of their own.
    """
    with np.errstate(over="ignore", invalid="ignore"):  # 1e300 s: no step to find anyway
        rounded = np.round(values, 9)  # float noise must not pass for a fine step
    rounded = np.where(np.isfinite(rounded), rounded, values)
    distinct = np.unique(rounded)
    if distinct.size < 3 or distinct.size > values.size / 2:
        return values
    step = float(np.min(np.diff(distinct)))
    multiples = rounded / step
    if np.max(np.abs(multiples - np.round(multiples))) > 1e-3:
        return values
    order = np.argsort(rounded, kind="stable")
    ordered = rounded[order]
    first = np.searchsorted(ordered, ordered, side="left")
    ties = np.searchsorted(ordered, ordered, side="right") - first
    spread = np.empty_like(values)
    spread[order] = ordered + step * ((np.arange(values.size) - first + 0.5) / ties - 0.5)
    return spread


def _range(x: Array) -> tuple[float, float]:
    """The histogram's range: robust quantiles, widened to the Tukey fences where data reach."""
    tail = min(0.05, max(TAIL, 3 / x.size))  # with few values, one extreme is already 1 %
    q_lo, q1, q3, q_hi = np.quantile(x, [tail, 0.25, 0.75, 1 - tail])
    fence = FENCE * (q3 - q1)
    lo = max(float(x.min()), min(q_lo, q1 - fence))
    hi = min(float(x.max()), max(q_hi, q3 + fence))
    if hi - lo < MIN_SPAN:
        middle = (hi + lo) / 2
        lo, hi = middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    return lo, hi


def _bin_width(ordered: Array, span: float) -> float:
    """Freedman–Diaconis on log10 values, its spread taken from the densest quarter of the data.

    Why not the IQR: on a mixture the IQR spans the gap between peaks, and the bins it gives
    are wider than the narrowest peak, which then cannot be fitted. The shortest interval that
    holds a quarter of the values sits in the densest peak; scaled (x 2.12) to what the IQR
    would be for one Gaussian, it gives that peak's bins.
    """
    k = max(1, ordered.size // 4)
    shortest = float(np.min(ordered[k:] - ordered[:-k])) if ordered.size > k else 0.0
    width = 2 * 2.12 * shortest / ordered.size ** (1 / 3)
    return float(np.clip(width, max(span / MAX_BINS, MIN_WIDTH), span / MIN_BINS))


def _histogram(x: Array) -> _Histogram:
    """The log histogram of the values within the robust range."""
    lo, hi = _range(x)
    inside = np.sort(x[(x >= lo) & (x <= hi)])
    width = _bin_width(inside, hi - lo)
    bins = max(MIN_BINS, min(MAX_BINS, math.ceil((hi - lo) / width - 1e-9)))
    width = (hi - lo) / bins
    # the padding gives a peak at an end of the range a side to fit, and to be found by
    counts, edges = np.histogram(inside, bins=bins, range=(lo, hi))
    pad = width * np.arange(1, PAD_BINS + 1)
    edges = np.concatenate([lo - pad[::-1], edges, hi + pad])
    counts = np.pad(counts.astype(np.float64), PAD_BINS)
    return _Histogram(edges, counts, inside, lo, hi)


def _gaussians(params: Array, edges: Array) -> tuple[Array, Array]:
    """Counts per bin of Gaussians (count, mu, sigma triples), and their derivatives by each
    parameter (the Jacobian: the fits need one solve per step rather than one per parameter).

    Exact bin integrals rather than densities at bin centres, so coarse bins do not widen the
    fitted sigma.
    """
    triples = params.reshape(-1, 3)
    total = np.zeros(edges.size - 1)
    jacobian = np.empty((edges.size - 1, triples.size))
    for k, (count, mu, sigma) in enumerate(triples):
        z = (edges - mu) / sigma
        density = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        share = np.diff(special.ndtr(z))
        total += count * share
        jacobian[:, 3 * k] = share
        jacobian[:, 3 * k + 1] = -count / sigma * np.diff(density)
        jacobian[:, 3 * k + 2] = -count / sigma * np.diff(z * density)
    return total, jacobian


def _expected(params: Array, edges: Array) -> Array:
    return _gaussians(params, edges)[0]


def _deviance(counts: Array, model: Array) -> tuple[Array, Array]:
    """Poisson deviance residuals, and their derivatives by the model's counts.

    Their sum of squares is -2 log likelihood (+ a constant), so least squares on them is a
    maximum-likelihood fit, right in the sparse tails too.
    """
    model = np.maximum(model, 1e-9)
    terms = np.clip(2 * (model - counts + special.xlogy(counts, counts / model)), 0, None)
    residuals = np.sign(counts - model) * np.sqrt(terms)
    # d residual / d model = -|model - count| / (model * |residual|), -1/sqrt(model) at the limit
    slope = np.where(
        terms > 1e-12,
        -np.abs(model - counts) / (model * np.sqrt(np.maximum(terms, 1e-300))),
        -1 / np.sqrt(model),
    )
    return np.asarray(residuals, dtype=np.float64), np.asarray(slope, dtype=np.float64)


def _tallest_peak(residual: Array, tallest: float, noise_z: float) -> tuple[int, float] | None:
    """The highest peak of what is left that stands out from noise: its bin and FWHM in bins."""
    smooth = ndimage.gaussian_filter1d(np.clip(residual, 0, None), 1.0)
    found, props = signal.find_peaks(smooth, prominence=REL_PROMINENCE * tallest)
    heights = smooth[found]
    real = props["prominences"] >= noise_z * SMOOTH_NOISE * np.sqrt(np.maximum(heights, 1.0))
    if not np.any(real):
        return None
    best = int(found[real][np.argmax(heights[real])])
    _, _, left, right = signal.peak_widths(smooth, [best], rel_height=0.5)
    halves = sorted([best - float(left[0]), float(right[0]) - best])
    # halves far apart: a neighbour holds the wider side up, so the narrower one is the peak's;
    # else their sum, which noise disturbs less than either
    return best, 2 * halves[0] if halves[1] > 1.5 * halves[0] else sum(halves)


def _fit_one(hist: _Histogram, residual: Array, at: int, fwhm: float) -> Array:
    """One Gaussian fitted to the top of a peak of the residual (Cockcroft's step)."""
    h, centers = hist.width, hist.centers
    mu0, sigma0 = float(centers[at]), max(fwhm * h / 2.355, h / 2)
    # fitting only the top keeps the neighbours' tails out of this component
    window = np.abs(centers - mu0) <= max(1.5 * sigma0, 2.5 * h)
    count0 = max(float(residual[at]), 1.0) * sigma0 * math.sqrt(2 * math.pi) / h
    # near the peak: on a residual that is mostly noise, an unbounded fit wanders off
    lower = [0.0, mu0 - sigma0, h / 3]
    upper = [np.inf, mu0 + sigma0, 3 * sigma0 + h]
    start = np.clip([count0, mu0, sigma0], lower, upper)

    def misfit(p: Array) -> Array:
        return (_expected(p, hist.edges) - residual)[window]

    def jacobian(p: Array) -> Array:
        return _gaussians(p, hist.edges)[1][window]

    try:
        fit = optimize.least_squares(
            misfit, start, jac=jacobian, bounds=(lower, upper), max_nfev=MAX_STEPS // 4
        )
        return np.asarray(fit.x, dtype=np.float64)
    except (ValueError, np.linalg.LinAlgError):
        return np.asarray(start, dtype=np.float64)


def _cockcroft(hist: _Histogram, max_peaks: int) -> Array:
    """Find, fit and subtract peaks until none stands out: (count, mu, sigma) rows."""
    residual = hist.counts.copy()
    tallest = float(ndimage.gaussian_filter1d(hist.counts, 1.0).max())
    found: list[Array] = []
    while len(found) < max_peaks:
        # the tallest bump of the histogram itself is a peak however noisy (the joint fit then
        # weighs it against a flat floor); those of the residual must stand out from noise
        peak = _tallest_peak(residual, tallest, NOISE_Z if found else 0.0)
        if peak is None:
            break
        component = _fit_one(hist, residual, *peak)
        found.append(component)
        residual = residual - _expected(component, hist.edges)
    return np.asarray(found, dtype=np.float64).reshape(-1, 3)


def _refit(hist: _Histogram, components: Array) -> _Fit:
    """All components and a flat floor fitted together, by binned maximum likelihood."""
    edges, counts, h, inner = hist.edges, hist.counts, hist.width, hist.floor
    _, mus, sigmas = components.reshape(-1, 3).T
    # the refit refines each component near where Cockcroft's step found it (left free, one
    # would drift to swallow the floor of outliers, or a neighbour), and within the data (a
    # cliff would put it beyond them)
    low_mu = np.clip(mus - sigmas, hist.lo, hist.hi)
    high_mu = np.clip(mus + sigmas, hist.lo, hist.hi)
    lower = np.column_stack([np.zeros(len(mus)), low_mu, np.full(len(mus), h / 3)])
    upper = np.column_stack([np.full(len(mus), np.inf), high_mu, 3 * sigmas + h])
    lower = np.append(lower.ravel(), 0.0)
    # the floor is for outliers, well below any peak: it must not stand in for a population
    upper = np.append(upper.ravel(), REL_PROMINENCE * float(counts.max()) + 1e-9)
    # the floor starts at the mean count of bins away from every component: started at zero,
    # on its bound, it tends to stay there while a widened component takes the outliers
    far = np.all(np.abs(hist.centers[:, None] - mus[None, :]) > 3 * sigmas[None, :], axis=1)
    far &= inner > 0
    floor0 = float(np.mean(counts[far])) if np.any(far) else 0.0
    start = np.clip(np.append(components.ravel(), floor0), lower, upper)

    def deviance(p: Array) -> Array:
        return _deviance(counts, _expected(p[:-1], edges) + p[-1] * inner)[0]

    def jacobian(p: Array) -> Array:
        model, by_params = _gaussians(p[:-1], edges)
        slope = _deviance(counts, model + p[-1] * inner)[1]
        return np.column_stack([by_params, inner]) * slope[:, None]

    try:
        fit = optimize.least_squares(
            deviance, start, jac=jacobian, bounds=(lower, upper), **JOINT_FIT
        )
        best = np.asarray(fit.x, dtype=np.float64)
    except (ValueError, np.linalg.LinAlgError):
        best = np.asarray(start, dtype=np.float64)
    return _Fit(best[:-1].reshape(-1, 3), float(best[-1]), float(np.sum(deviance(best) ** 2)))


def _modes(components: Array, lo: float, hi: float) -> Array:
    """Where the fitted density (floor left out) has its local maxima, in log10 seconds."""
    counts, mus, sigmas = components.T
    step = max(float(sigmas.min()) / 4, (hi - lo) / 20000)
    grid = np.arange(lo - step, hi + 2 * step, step)
    z = (grid[:, None] - mus[None, :]) / sigmas[None, :]
    density = np.sum(counts / sigmas * np.exp(-0.5 * z * z), axis=1)
    found, _ = signal.find_peaks(density, prominence=1e-9 * float(density.max()))
    return np.asarray(grid[found], dtype=np.float64)


def _no_valley(hist: _Histogram, components: Array) -> npt.NDArray[np.bool_]:
    """Which components the data show no valley for, between them and their next neighbour:
    the smaller of such a pair.

    Why the data, not the fit: Gaussians laid side by side to fit a plateau ripple, with dips
    the data do not have. The values within half a width of the fit's valley must be fewer
    than those around the lower peak, by VALLEY_Z Poisson standard deviations.
    """
    counts, mus, sigmas = components.T
    ordered = hist.inside
    weak = np.zeros(len(components), dtype=np.bool_)
    order = np.argsort(mus)
    for i, j in zip(order[:-1], order[1:], strict=True):
        half = max(min(sigmas[i], sigmas[j]) * VALLEY_HALF, hist.width)
        grid = np.linspace(mus[i], mus[j], 64)
        z = (grid[:, None] - mus[None, :]) / sigmas[None, :]
        valley = grid[np.argmin(np.sum(counts / sigmas * np.exp(-0.5 * z * z), axis=1))]
        centres = np.array([mus[i], mus[j], valley])
        around = np.searchsorted(ordered, np.concatenate([centres - half, centres + half]))
        at_i, at_j, low = around[3:] - around[:3]
        lower = min(at_i, at_j)
        if lower - low < VALLEY_Z * math.sqrt(lower + low + 1):
            weak[i if counts[i] < counts[j] else j] = True
    return weak


def _not_apart(hist: _Histogram, components: Array) -> npt.NDArray[np.bool_]:
    """Which components are tiny, too low, or not a peak of their own.

    A peak is a mode: a component whose neighbour's slope runs through it (no valley between
    them) is a shoulder, and the data cannot tell it from a skew of that neighbour.
    """
    counts, mus, sigmas = components.T
    if len(components) == 1:
        return np.zeros(1, dtype=np.bool_)
    heights = counts / sigmas
    weak = (counts < MIN_SHARE * counts.sum()) | (heights < REL_PROMINENCE * heights.max())
    modes = _modes(components, float(hist.edges[0]), float(hist.edges[-1]))
    if modes.size == 0:
        return np.ones(len(components), dtype=np.bool_)
    nearest = np.argmin(np.abs(mus[:, None] - modes[None, :]), axis=1)
    weak |= np.abs(modes[nearest] - mus) > SEPARATION * sigmas
    for i, j in zip(*np.nonzero(nearest[:, None] == nearest[None, :]), strict=True):
        if i != j:  # two components on one mode: the smaller is part of the larger
            weak[i if counts[i] < counts[j] else j] = True
    return np.asarray(weak | _no_valley(hist, components), dtype=np.bool_)


def _components(hist: _Histogram, max_peaks: int) -> _Fit:
    """The components that stand apart after the joint refit, fastest first.

    Each must also pay for its three parameters (BIC): without it, the others refitted, the
    likelihood must fall by more than that. Else it is a fluctuation, or a piece of a peak that
    Cockcroft's step split in two.
    """
    fit = _refit(hist, _cockcroft(hist, max_peaks))
    cost = 3 * math.log(max(float(hist.counts.sum()), 2.0))
    while len(fit.components):
        weak = _not_apart(hist, fit.components)
        if np.any(weak):
            drop = np.flatnonzero(weak)[np.argmin(fit.components[weak, 0])]
            fit = _refit(hist, np.delete(fit.components, drop, axis=0))
            continue
        trials = [_refit(hist, np.delete(fit.components, i, axis=0)) for i in range(len(weak))]
        cheapest = min(trials, key=lambda trial: trial.deviance)
        if cheapest.deviance - fit.deviance >= cost:
            break
        fit = cheapest
    order = np.argsort(fit.components[:, 1])
    return _Fit(fit.components[order], fit.floor, fit.deviance)


def _log_likelihoods(x: Array, mus: Array, sigmas: Array, shares: Array) -> Array:
    """Per value (rows) and component (columns), log of share times density; logs so that far
    values do not underflow to a tie at zero."""
    sigmas = np.maximum(sigmas, 1e-9)
    z = (x[:, None] - mus[None, :]) / sigmas[None, :]
    return np.log(np.maximum(shares, 1e-300))[None, :] - np.log(sigmas)[None, :] - 0.5 * z * z


def _peaks(hist: _Histogram, components: Array, floor: float) -> list[Peak]:
    """The fitted components as peaks, each with the values it most likely holds."""
    counts, mus, sigmas = components.T
    shares = counts / float(counts.sum())
    owners = np.argmax(_log_likelihoods(hist.inside, mus, sigmas, shares), axis=1)
    assigned = np.bincount(owners, minlength=len(components))
    misfit = hist.counts - _expected(components.ravel(), hist.edges) - floor * hist.floor
    tallest = max(float(hist.counts.max()), 1.0)
    peaks = []
    for i, (mu, sigma) in enumerate(zip(mus, sigmas, strict=True)):
        near = np.abs(hist.centers - mu) <= 2 * sigma + hist.width
        rms = float(np.sqrt(np.mean(misfit[near] ** 2))) if np.any(near) else 0.0
        peaks.append(
            Peak(
                location=float(10**mu),
                log_width=float(sigma),
                low=float(10 ** (mu - sigma)),
                high=float(10 ** (mu + sigma)),
                share=float(shares[i]),
                count=int(assigned[i]),
                residual=min(1.0, rms / tallest),
            )
        )
    return peaks


def find_peaks(values: Sequence[float], *, min_samples: int = 30, max_peaks: int = 5) -> PeakReport:
    """The peaks of a latency distribution (values in seconds), fastest first."""
    good, dropped = _clean(values)
    notes = [f"{dropped} non-positive or non-finite values ignored"] if dropped else []
    x = np.log10(_dequantize(good))
    if x.size == 0:
        return PeakReport(peaks=[], samples=0, bins=[], note="; ".join(notes or ["no values"]))
    hist = _histogram(x)
    if outside := x.size - hist.inside.size:
        notes.append(f"{outside} outliers beyond {10**hist.lo:.3g}–{10**hist.hi:.3g} s ignored")
    bins = [
        (float(10**a), float(10**b), int(c))
        for a, b, c in zip(hist.edges[:-1], hist.edges[1:], hist.counts, strict=True)
    ]
    peaks: list[Peak] = []
    if x.size < min_samples:
        notes.append(f"too few samples ({x.size}) to tell peaks apart")
    elif max_peaks > 0:
        fit = _components(hist, max_peaks)
        if len(fit.components):
            peaks = _peaks(hist, fit.components, fit.floor)
    return PeakReport(peaks=peaks, samples=int(x.size), bins=bins, note="; ".join(notes))


def assign(report: PeakReport, values: Sequence[float]) -> list[int | None]:
    """Index (into report.peaks) of the component each value most likely came from (None if no
    peaks, or for a value that is not a positive finite number)."""
    raw = np.asarray(values, dtype=np.float64).ravel()
    if not report.peaks or raw.size == 0:
        return [None] * raw.size
    good = np.isfinite(raw) & (raw > 0)
    mus = np.log10([p.location for p in report.peaks])
    sigmas = np.array([p.log_width for p in report.peaks])
    shares = np.array([p.share for p in report.peaks])
    owners = np.argmax(_log_likelihoods(np.log10(raw[good]), mus, sigmas, shares), axis=1)
    found = iter(owners.tolist())
    return [next(found) if usable else None for usable in good.tolist()]
