"""Provides `segment`: penalised least-squares segmentation of many signals at once.

Why sniff has its own: `sniff drift` used `ruptures.KernelCPD(kernel="linear", jump=1)` and
its PELT, but importing `ruptures` takes about a second (its package imports every cost, and
they import `scipy.stats` and `scipy.spatial`), while drift must answer in a fraction of one.
This module computes the same thing, and the tests check it against `ruptures`, cut for cut.

The problem: minimise Σ_segments [Σ x² − (Σ x)² / length] + penalty · (number of cuts), every
segment at least `min_size` long, a cut allowed at any position. It is solved by optimal
partitioning (dynamic programming over the start of the last segment), with PELT's pruning of
the oldest candidate starts, exactly as `ruptures`' C code does it: the same sums in the same
order, so that even ties between equally good cuts fall the same way. (With `min_size` > 1
that pruning, ruptures' and so this one, can on rare signals miss the optimum by a hair: a
start pruned at t could have served an end before t + min_size.) Each step is a few numpy
operations across every signal of the batch; signals are sorted longest first, and a step
only touches those still running.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def segment(
    signals: Sequence[Sequence[float]], penalties: Sequence[float], min_size: int
) -> list[list[int]]:
    """For each signal, the positions where a new segment starts (none for a signal shorter
    than `2 · min_size`), with `penalties[i]` the price of a cut in `signals[i]`.

    Raises:
        ValueError: the two sequences differ in length, `min_size` < 1, a penalty is not > 0
            or a value is not finite.
    """
    import numpy as np

    if len(signals) != len(penalties):
        raise ValueError("one penalty per signal")
    if min_size < 1 or any(not penalty > 0 for penalty in penalties):
        raise ValueError("min_size must be at least 1 and every penalty positive")
    if not signals:
        return []
    order = sorted(range(len(signals)), key=lambda i: -len(signals[i]))
    lengths = [len(signals[i]) for i in order]
    values = np.zeros((len(order), lengths[0]), dtype=float)
    for row, i in enumerate(order):
        values[row, : lengths[row]] = signals[i]
    if not np.isfinite(values).all():
        raise ValueError("every value must be finite")
    beta = np.asarray([penalties[i] for i in order], dtype=float)
    path = _paths(values, lengths, beta, min_size)
    cuts: list[list[int]] = [[] for _ in signals]
    for row, i in enumerate(order):
        cuts[i] = _starts(path[row], lengths[row])
    return cuts


def _paths(
    values: NDArray[np.float64], lengths: list[int], beta: NDArray[np.float64], min_size: int
) -> NDArray[np.int64]:
    """`path[b, t]`: the start of the last segment of the best segmentation of
    `values[b, :t]` (ruptures' `ekcpd_pelt_compute`, one step per t across the batch).

    A start that cannot be chosen (pruned, or inside the first segment) gets an infinite
    best cost, which keeps it out of every later minimum and inside the pruned leading run."""
    import numpy as np

    count, longest = values.shape
    squares = np.zeros((count, longest + 1))  # D: the prefix sums of x²
    np.cumsum(values * values, axis=1, out=squares[:, 1:])
    pairs = np.zeros((count, longest + 1))  # S[s]: Σ_{i,j in s..t} x_i x_j, updated per t
    best = np.zeros((count, longest + 1))  # M_V: the best penalised cost of x[:t]
    path = np.zeros((count, longest + 1), dtype=np.int64)
    oldest = np.zeros(count, dtype=np.int64)  # s_min: the oldest start not pruned
    work, more = np.empty((count, longest)), np.empty((count, longest))
    live = np.empty((count, longest), dtype=bool)
    running = count
    for t in range(1, longest + 1):
        while lengths[running - 1] < t:
            running -= 1
        first = int(oldest[:running].min())  # the starts all have pruned are left alone
        width, end = t - first, values[:running, t - 1 : t]
        # 2·c_r, from s = t-1 down: doubling is exact, so doubling x_{t-1} first is the same
        along = np.multiply(values[:running, first:t][:, ::-1], 2 * end, out=work[:running, :width])
        np.cumsum(along, axis=1, out=along)
        np.subtract(along, end * end, out=along)
        np.add(pairs[:running, first:t], along[:, ::-1], out=pairs[:running, first:t])
        total = squares[:running, t : t + 1]
        if t < 2 * min_size:  # no room for a cut yet
            best[:running, t] = total[:, 0] - squares[:running, 0] - pairs[:running, 0] / t
            best[:running, t] += beta[:running]
            continue
        if t == 2 * min_size:
            best[:, 1:min_size] = np.inf  # a first segment shorter than min_size
        last = t - min_size  # the latest start leaving a last segment of min_size
        width = last + 1 - first
        cost = np.subtract(total, squares[:running, first : last + 1], out=work[:running, :width])
        spans = np.arange(t - first, t - last - 1, -1, dtype=float)
        share = np.divide(pairs[:running, first : last + 1], spans, out=more[:running, :width])
        np.subtract(cost, share, out=cost)
        kept = np.add(best[:running, first : last + 1], cost, out=cost)  # M_pruning
        penalised = np.add(kept, beta[:running, None], out=more[:running, :width])
        chosen = np.argmin(penalised, axis=1)
        rows = np.arange(running)
        best[:running, t] = penalised[rows, chosen]
        path[:running, t] = chosen + first
        # prune the oldest starts whose cost alone already reaches the best: never chosen again
        alive = np.less(kept, best[:running, t : t + 1], out=live[:running, :width])
        found = np.argmax(alive, axis=1)
        pruned = np.where(alive[rows, found], found + first, last + 1)
        _forget(best, oldest[:running], pruned)
        oldest[:running] = pruned
    return path


def _forget(best: NDArray[np.float64], old: NDArray[np.int64], new: NDArray[np.int64]) -> None:
    """Set `best[b, old[b]:new[b]]` to infinity for every row b (the starts just pruned)."""
    import numpy as np

    counts = new - old
    if not counts.any():
        return
    rows = np.repeat(np.arange(len(old)), counts)
    offsets = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    best[rows, np.repeat(old, counts) + offsets] = np.inf


def _starts(path: NDArray[np.int64], length: int) -> list[int]:
    """The segment starts of the best segmentation of a signal of `length`, walking `path`
    back from its end, without 0."""
    found = []
    end = int(path[length])
    while end > 0:
        found.append(end)
        end = int(path[end])
    return found[::-1]
