"""Provides how deep the data dip between two places of a latency distribution, against the
noise: the rule that tells two peaks from one (`sniff.analyses.latency.peaks`).

Why apart from the peak finding: the presenters say each valley's depth beside the rule, and
must not import numpy and scipy to do so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

VALLEY_Z = 2.5
"""Two neighbouring populations are two peaks when the data dip between them by more than
this many Poisson standard deviations: deeper than noise makes between the parts of one."""


@dataclass(frozen=True, slots=True)
class Valley:
    """How deep the data dip between two neighbouring places, against the noise."""

    left: float  # seconds: the faster place's location
    right: float  # seconds: the slower's
    depth: float
    """The dip below the lower of the two, in Poisson standard deviations (negative: no dip)."""
    apart: bool
    """Whether they are two peaks (the dip deeper than `VALLEY_Z`), else merged into one."""


EXACT_UP_TO = 2_000
"""Counts up to which the dip is judged by the exact binomial tail, not its normal form."""


def dip_sigmas(side: int, valley: int) -> float:
    """How many standard deviations of noise `valley` lies below `side`, two Poisson counts:
    given their sum, were they equal in expectation the valley's would be binomial (half of
    it); its lower tail as a z-score. Exact for small counts, where the normal form
    (side − valley) / √(side + valley) understates a dip to nothing (16 against 0: 4.0σ,
    exactly 4.17σ); that form above `EXACT_UP_TO`, where the two agree."""
    total = side + valley
    if total == 0:
        return 0.0
    if total > EXACT_UP_TO:
        return (side - valley) / math.sqrt(total)
    halves = total * math.log(2.0)
    tail = math.fsum(
        math.exp(math.lgamma(total + 1) - math.lgamma(k + 1) - math.lgamma(total - k + 1) - halves)
        for k in range(valley + 1)
    )
    tail = min(max(tail, 1e-300), 1.0 - 1e-16)
    return -NormalDist().inv_cdf(tail)
