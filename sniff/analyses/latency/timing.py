"""Provides `Timing`, how long one request took by each measure its log allows, and the
quantiles every latency figure is read with.

Why apart: the latency report (`measures`) and the first visible token beside TTFT (`visible`)
both read timings; each imports them from here, so neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sniff.model import Request


@dataclass(frozen=True, slots=True)
class Timing:
    """How long one request took, in seconds, by each measure the log allows."""

    request: Request
    ttft: float | None
    """Time to first token: from sending the request to the first response content."""
    tpot: float | None
    """Time per output token after the first: (end − first token) / (output tokens − 1); only
    where the log times the first and the last token (`EXACT_SOURCES`)."""
    e2e: float | None
    """End to end: from sending the request to the end of the response."""
    exact: bool
    visible: float | None = None
    """Time to first visible token: from sending the request to the first text (else tool
    call) of the response, where the log tells (Claude Code transcripts: approximate)."""

    def value(self, metric: str) -> float | None:
        """The measure named `ttft`, `visible`, `tpot` or `e2e`."""
        value: float | None = getattr(self, metric)
        return value


def median(values: Iterable[float]) -> float:
    """The median (of at least one value)."""
    return quantile(sorted(values), 0.5)


def quantile(ordered: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
