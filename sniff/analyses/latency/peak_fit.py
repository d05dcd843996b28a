"""Provides the fitting half of the peak finder: the log histogram, and Gaussians in log10
seconds found, fitted and subtracted one by one (Cockcroft's step), then refitted jointly.

The joint fit is a binned maximum-likelihood fit (Poisson deviance residuals, exact bin
integrals) with a low flat floor that absorbs scattered outliers. Which of the components it
returns are peaks is decided by `sniff.analyses.latency.peaks`, from the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import ndimage, optimize, signal, special  # type: ignore[import-untyped, unused-ignore]

Array = npt.NDArray[np.float64]

TAIL = 0.005
"""Quantiles at each end that the histogram always covers..."""
GAP = 0.5
"""...and beyond them, every value up to the first gap of half a decade (3.2x): a handful of
extreme values must not stretch the histogram."""
MIN_BINS, MAX_BINS = 10, 400
SHOWN_BINS = 20
"""The histogram shown, in which each peak's tallest bin is judged, has at most 30 bins: the
fit's bins merged by a whole factor, so that it reads on a screen."""
PAD_BINS = 2
"""Empty bins each side of the range: they show the fits where the data end."""
MIN_SPAN = 0.1
"""Decades: the narrowest histogram range, so that near-identical values still get bins..."""
MIN_WIDTH = 0.005
"""...and the narrowest bin (1.2 %): finer, identical values would spread over hundreds."""
NOISE_Z = 2.0
"""Standard deviations of Poisson noise by which the data must show something: a bump of the
residual above its surroundings to be fitted, a valley between peaks, a top elsewhere than a
peak's smoothed top (`sniff.analyses.latency.peaks`)."""
SCALES = (1.0, 2.0, 4.0, 8.0)
"""Smoothing widths (in bins) at which the residual is searched: a narrow peak stands out at
the finest, a wide, low one only once its bins are summed over its own width."""
FLOOR_SHARE = 0.05
"""The floor of outliers stays below 5 % of the tallest bin: it must not stand in for a
population."""
MAX_STEPS = 100
"""Fit iterations: a fit that would need more has a component that pruning then drops (and a
single peak's fit only seeds the joint one: a quarter of that)."""
JOINT_FIT = {"x_scale": "jac", "max_nfev": MAX_STEPS, "ftol": 1e-6, "xtol": 1e-6}
"""A relative change of 1e-6 in the likelihood is far below what moves a peak."""


@dataclass(frozen=True, slots=True)
class Histogram:
    """The log10 values within the robust range, binned."""

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
    def step(self) -> int:
        """How many of the fit's bins make one bin of the histogram shown."""
        return math.ceil(self.counts.size / SHOWN_BINS)

    @property
    def shown(self) -> Array:
        """The edges of the histogram shown: the fit's, merged by a whole factor."""
        return self.shown_at(0)

    def shown_at(self, phase: int) -> Array:
        """The edges of the histogram shown when its merged bins start `phase` fit bins in
        (the first and last bins are then partial: the padding's empty bins)."""
        edges = self.edges[phase :: self.step]
        if phase:
            edges = np.insert(edges, 0, self.edges[0])
        return edges if edges[-1] == self.edges[-1] else np.append(edges, self.edges[-1])

    @property
    def floor(self) -> Array:
        """Where the floor of outliers lies: not in the empty bins that pad the range."""
        inner = np.ones(self.counts.size)
        inner[:PAD_BINS] = inner[-PAD_BINS:] = 0.0
        return inner


@dataclass(frozen=True, slots=True)
class Fit:
    """Components fitted together: rows of (count, mu, sigma) in log10 seconds."""

    components: Array
    floor: float  # counts per bin
    deviance: float  # -2 log likelihood, up to a constant


def clean(values: Array) -> tuple[Array, int]:
    """The usable values (positive, finite), and how many were not usable."""
    raw = np.asarray(values, dtype=np.float64).ravel()
    good = raw[np.isfinite(raw) & (raw > 0)]
    return good, int(raw.size - good.size)


def dequantize(values: Array) -> Array:
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
    """The histogram's range: robust quantiles, widened to the values that continue the data
    without a gap wider than GAP (a thin population's tail is data; a value far beyond is not).
    """
    ordered = np.sort(x)
    tail = min(0.05, max(TAIL, 3 / x.size))  # with few values, one extreme is already 1 %
    q_lo, q_hi = np.quantile(ordered, [tail, 1 - tail])
    wide = np.flatnonzero(np.diff(ordered) > GAP)  # a gap after ordered[i]
    below, above = wide[ordered[wide] < q_lo], wide[ordered[wide + 1] > q_hi]
    lo = float(ordered[below[-1] + 1]) if below.size else float(ordered[0])
    hi = float(ordered[above[0]]) if above.size else float(ordered[-1])
    if hi - lo < MIN_SPAN:
        middle = (hi + lo) / 2
        lo, hi = middle - MIN_SPAN / 2, middle + MIN_SPAN / 2
    return lo, hi


def _bin_width(ordered: Array, span: float) -> float:
    """Freedman–Diaconis on log10 values, its spread taken from the densest quarter of the data.

    Why not the IQR: on a mixture the IQR spans the gap between peaks, and the bins it gives
    are wider than the narrowest peak, which then cannot be fitted. The shortest interval that
    holds a quarter of the values sits in the densest peak; scaled (x 2.12) to what the IQR
    would be for one Gaussian, it gives that peak's bins. Wider, lower peaks are searched at
    coarser scales (`SCALES`).
    """
    k = max(1, ordered.size // 4)
    shortest = float(np.min(ordered[k:] - ordered[:-k])) if ordered.size > k else 0.0
    width = 2 * 2.12 * shortest / ordered.size ** (1 / 3)
    return float(np.clip(width, max(span / MAX_BINS, MIN_WIDTH), span / MIN_BINS))


def histogram(x: Array) -> Histogram:
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
    return Histogram(edges, counts, inside, lo, hi)


def gaussians(params: Array, edges: Array) -> tuple[Array, Array]:
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


def expected(params: Array, edges: Array) -> Array:
    """Counts per bin of Gaussians (count, mu, sigma triples)."""
    return gaussians(params, edges)[0]


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


def _tallest_peak(residual: Array, counts: Array, noise_z: float) -> tuple[int, float] | None:
    """The largest bump of what is left that stands out from the counts' Poisson noise at the
    finest smoothing scale where any does: its bin and its FWHM in bins.

    Why the finest first: smoothed further, a skewed tail and the hump beyond it blur into one
    bump, which one Gaussian would then swallow.
    """
    positive = np.clip(residual, 0, None)
    best: tuple[float, int, float] | None = None  # (area, bin, fwhm)
    for scale in SCALES if noise_z else SCALES[:1]:
        smooth = ndimage.gaussian_filter1d(positive, scale)
        found, props = signal.find_peaks(smooth, prominence=0)
        if not found.size:
            continue
        # a smoothed count keeps (4 pi s^2)^-1/4 of its Poisson noise, and a prominence is the
        # difference of two such counts (x 1.41)
        noise = math.sqrt(2) * (4 * math.pi * scale**2) ** -0.25
        spread = noise * np.sqrt(np.maximum(ndimage.gaussian_filter1d(counts, scale)[found], 1))
        real = props["prominences"] >= noise_z * spread
        if not np.any(real):
            continue
        at = found[real]
        _, _, left, right = signal.peak_widths(smooth, at, rel_height=0.5)
        for bin_, low, high, rise in zip(at, left, right, props["prominences"][real], strict=True):
            halves = sorted([bin_ - float(low), float(high) - bin_])
            # halves far apart: a neighbour holds the wider side up, so the narrower one is the
            # peak's; else their sum, which noise disturbs less than either
            fwhm = 2 * halves[0] if halves[1] > 1.5 * halves[0] else sum(halves)
            fwhm = math.sqrt(max(fwhm**2 - (2.355 * scale) ** 2, 1.0)) if scale > 1 else fwhm
            if best is None or rise * fwhm > best[0]:
                best = (float(rise * fwhm), int(bin_), fwhm)
        if best is not None:
            return best[1], best[2]
    return None


def _fit_one(hist: Histogram, residual: Array, at: int, fwhm: float) -> Array:
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
        return (expected(p, hist.edges) - residual)[window]

    def jacobian(p: Array) -> Array:
        return gaussians(p, hist.edges)[1][window]

    try:
        fit = optimize.least_squares(
            misfit, start, jac=jacobian, bounds=(lower, upper), max_nfev=MAX_STEPS // 4
        )
        return np.asarray(fit.x, dtype=np.float64)
    except (ValueError, np.linalg.LinAlgError):
        return np.asarray(start, dtype=np.float64)


def cockcroft(hist: Histogram, max_peaks: int) -> Array:
    """Find, fit and subtract peaks until none stands out: (count, mu, sigma) rows."""
    residual = hist.counts.copy()
    found: list[Array] = []
    while len(found) < max_peaks:
        # the tallest bump of the histogram itself is a peak however noisy (the joint fit then
        # weighs it against a flat floor); those of the residual must stand out from noise
        peak = _tallest_peak(residual, hist.counts, NOISE_Z if found else 0.0)
        if peak is None:
            break
        component = _fit_one(hist, residual, *peak)
        found.append(component)
        residual = residual - expected(component, hist.edges)
    return np.asarray(found, dtype=np.float64).reshape(-1, 3)


def refit(hist: Histogram, components: Array) -> Fit:
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
    upper = np.append(upper.ravel(), FLOOR_SHARE * float(counts.max()) + 1e-9)
    # the floor starts at the mean count of bins away from every component: started at zero,
    # on its bound, it tends to stay there while a widened component takes the outliers
    far = np.all(np.abs(hist.centers[:, None] - mus[None, :]) > 3 * sigmas[None, :], axis=1)
    far &= inner > 0
    floor0 = float(np.mean(counts[far])) if np.any(far) else 0.0
    start = np.clip(np.append(components.ravel(), floor0), lower, upper)

    def deviance(p: Array) -> Array:
        return _deviance(counts, expected(p[:-1], edges) + p[-1] * inner)[0]

    def jacobian(p: Array) -> Array:
        model, by_params = gaussians(p[:-1], edges)
        slope = _deviance(counts, model + p[-1] * inner)[1]
        return np.column_stack([by_params, inner]) * slope[:, None]

    try:
        fit = optimize.least_squares(
            deviance, start, jac=jacobian, bounds=(lower, upper), **JOINT_FIT
        )
        best = np.asarray(fit.x, dtype=np.float64)
    except (ValueError, np.linalg.LinAlgError):
        best = np.asarray(start, dtype=np.float64)
    return Fit(best[:-1].reshape(-1, 3), float(best[-1]), float(np.sum(deviance(best) ** 2)))
