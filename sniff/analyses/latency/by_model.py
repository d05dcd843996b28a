"""Provides latency per model group: what the report shows a reader instead of peaks.

Why by model group: the first thing that sets how long a response takes is the model that
wrote it, so one distribution over every model mixes populations a reader cannot tell apart.
A group is a model's name without its snapshot date (`claude-sonnet-4-5`), as tables name
models. Why without peaks: finding them needs scipy, which a report must not wait a second for;
`sniff latency` finds them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sniff.analyses.latency.measures import Percentiles, percentiles
from sniff.analyses.latency.timing import Timing, timings
from sniff.model import Request
from sniff.model_names import model_group

REPORTED = ("ttft", "visible", "e2e")
"""The measures a report shows: when the answer began, was first seen, and ended."""


@dataclass(frozen=True, slots=True)
class ModelLatency:
    """The timed requests of one model group (or of all, `group` "all models")."""

    group: str
    timed: int
    """Requests the logs time by at least one measure."""
    exact: int
    """Of those, timed from exact timestamps (claude-trace, request logs)."""
    values: dict[str, list[float]]
    """Per measure of `REPORTED`, every request's value, in seconds."""
    exact_of: dict[str, int]
    """Per measure, how many of its values are exact."""

    def summary(self, metric: str) -> Percentiles | None:
        """The measure's percentiles; None when no request has it."""
        return percentiles(self.values[metric])


ALL = "all models"


def latency_by_model(requests: Iterable[Request]) -> list[ModelLatency]:
    """All models first, then each model group, most timed first; empty when nothing is timed.

    Requests an agent logged only as session totals have no call's times and are left out, as
    `sniff latency` leaves them out."""
    measured = timings(request for request in requests if not request.rollup)
    if not measured:
        return []
    groups: dict[str, list[Timing]] = {}
    for item in measured:
        groups.setdefault(model_group(item.request.model), []).append(item)
    ordered = sorted(groups.items(), key=lambda pair: (-len(pair[1]), pair[0]))
    return [_latency(ALL, measured), *(_latency(name, found) for name, found in ordered)]


def _latency(group: str, measured: list[Timing]) -> ModelLatency:
    values: dict[str, list[float]] = {metric: [] for metric in REPORTED}
    exact = dict.fromkeys(REPORTED, 0)
    for item in measured:
        for metric in REPORTED:
            value = item.value(metric)
            if value is not None:
                values[metric].append(value)
                exact[metric] += item.exact
    timed = len(measured)
    return ModelLatency(group, timed, sum(item.exact for item in measured), values, exact)
