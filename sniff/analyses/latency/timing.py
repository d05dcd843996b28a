"""Provides `timing`: how long one request took by each measure its log allows (`Timing`), and
the quantiles every latency figure is read with.

Why apart: the latency report (`measures`) and the first visible token beside TTFT (`visible`)
both read timings; each imports them from here, so neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sniff.model import Request

EXACT_SOURCES = frozenset({"claude-trace", "request-log", "proxy"})
"""Logs that record when a request was sent, when its response began and when it ended."""


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
    """Timed from exact timestamps: a log that records them, or the agent's own telemetry."""
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


def end_to_end(request: Request) -> float | None:
    """Seconds from sending the request to the end of its response, as `sniff latency` measures
    it (None where the log does not time it, the request failed or the clocks disagree)."""
    measured = timing(request)
    return None if measured is None else measured.e2e


def timing(request: Request) -> Timing | None:
    """The timing of a request (None for a failed one or one the log does not time)."""
    if request.error is not None or request.started_at is None:
        return None
    start, first, end = request.started_at, request.first_token_at, request.ended_at
    e2e = _positive((end - start).total_seconds())
    ttft = _positive((first - start).total_seconds()) if first is not None else None
    shown = request.visible_at
    visible = _positive((shown - start).total_seconds()) if shown is not None else None
    # the agent's own telemetry timed the first token: first-hand, where the transcript
    # only stamps lines as written
    first_hand = request.first_hand is not None and request.first_hand.ttft
    exact = request.source in EXACT_SOURCES or first_hand
    tpot = None
    if exact and first is not None and request.usage.output_tokens > 1:
        streaming = (end - first).total_seconds()
        tpot = _positive(streaming / (request.usage.output_tokens - 1))
    if e2e is None and ttft is None:
        return None
    return Timing(request, ttft, tpot, e2e, exact, visible)


def timings(requests: Iterable[Request]) -> list[Timing]:
    """The timings of every request the log times."""
    found = (timing(request) for request in requests)
    return [item for item in found if item is not None]


def _positive(seconds: float) -> float | None:
    """A duration, or None when clocks disagree (zero or negative)."""
    return seconds if seconds > 0 else None
