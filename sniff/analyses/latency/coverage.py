"""Provides `coverage`: per harness, how many requests a latency metric measured, and why each
of the others could not be measured.

Why: a latency figure rests on the requests whose logs time it, and those are often a minority.
Codex writes no time per token, Claude Code stamps records as it writes them, Droid and Goose
log sessions' totals only, and a failed call has no response to time. A reader must see how
many requests each agent's figure rests on, and what the rest lacked, per harness, without
guessing from a total.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sniff.analyses.latency.timing import timing
from sniff.model import Request

REASONS = {
    "failed": "failed",
    "totals_only": "totals only",
    "untimed": "not timed",
    "not_measurable": "not this measure",
}
"""Why a request was not measured, each key with its short words (`MEANING` says more)."""
MEANING = (
    "failed: no response to time; totals only: logged as a session's totals; not timed: the "
    "log has no start time for it; not this measure: the log times the call, not this measure"
)


@dataclass(frozen=True, slots=True)
class Coverage:
    """One harness's requests: how many were measured, and why the others were not."""

    harness: str
    requests: int = 0
    measured: int = 0
    failed: int = 0
    totals_only: int = 0
    untimed: int = 0
    """No start time in the log, or clocks that disagree (an end before the start)."""
    not_measurable: int = 0

    def reasons(self) -> dict[str, int]:
        """The reasons that apply, each with its count."""
        return {key: getattr(self, key) for key in REASONS if getattr(self, key)}


def coverage(requests: Iterable[Request], metric: str) -> list[Coverage]:
    """Per harness (most requests first), what `metric` measured of `requests`."""
    counts: dict[str, dict[str, int]] = {}
    for request in requests:
        row = counts.setdefault(str(request.harness), dict.fromkeys(("requests", "measured",
                                *REASONS), 0))  # fmt: skip
        row["requests"] += 1
        row[_outcome(request, metric)] += 1
    found = [Coverage(harness, **row) for harness, row in counts.items()]
    return sorted(found, key=lambda row: (-row.requests, row.harness))


def _outcome(request: Request, metric: str) -> str:
    if request.rollup:
        return "totals_only"
    if request.error is not None:
        return "failed"
    measured = timing(request)
    if measured is None:
        return "untimed"
    return "measured" if measured.value(metric) is not None else "not_measurable"
