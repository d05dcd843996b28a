"""Provides the drift series: per day or week, overall and per agent version, model, project and
harness, the measures a change in the bill is explained by.

Every measure is a ratio of sums over requests, Σ num / Σ den (the hit rate is token-weighted:
Σ cache reads / Σ prompt tokens; a per-request figure has den = 1), and a bucket keeps the
sums of num², den² and num·den too, so the level of any run of buckets and its interval (the
normal interval of a ratio estimator, linearised: `Sums.interval`) come from the buckets alone.
The series are made from drift parts (`drift_part`): a unit of logs' buckets, joined.

Rollups (an agent's totals of many calls) and failed requests are left out of every
per-request measure: they are not one call each. Unpriced requests are left out of the cost
measures, and counted (`Bucket.unpriced`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date

import msgspec

from sniff.analyses.cache.break_report import CAUSES, EXPECTED, iso_week
from sniff.model import Agent, Request

BY = ("day", "week")
DIMENSIONS = ("overall", "version", "model", "project", "harness")
UNKNOWN_VERSION = "(unknown)"
Z95 = 1.959964
"""The 97.5 % quantile of the normal distribution: a two-sided 95 % interval."""


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure of the series: Σ num / Σ den over the requests it counts."""

    key: str
    label: str
    unit: str
    """`share` (shown in %), `usd` or `tokens`."""
    min_size: float
    """The smallest change worth reporting: absolute for shares, relative to the level else."""


MEASURES = (
    Measure("hit_rate", "hit rate", "share", 0.05),
    Measure("cost_per_request", "cost per request", "usd", 0.25),
    Measure("cache_writes_per_request", "cache writes per request", "tokens", 0.25),
    Measure("break_rate", "break rate", "share", 0.05),
    Measure("output_per_request", "output per request", "tokens", 0.25),
    Measure("reasoning_per_request", "reasoning per request", "tokens", 0.25),
    Measure("subagent_cost_share", "share of cost in subagents", "share", 0.1),
    Measure("compaction_cost_share", "share of cost in compaction", "share", 0.1),
)
FAULT_CAUSES = tuple(cause for cause in CAUSES if cause not in EXPECTED)
CAUSE_MEASURES = tuple(
    Measure(f"break_rate_{cause}", f"{cause} break rate", "share", 0.05) for cause in FAULT_CAUSES
)
"""The break rate of each cause of fault: searched for change points beside `MEASURES` (a
change of one cause can hide in the total), not tabled."""
SEARCHED = (*MEASURES, *CAUSE_MEASURES)
"""Every measure change points are searched in."""
BY_KEY = {measure.key: measure for measure in SEARCHED}
CAUSE_OF = {f"break_rate_{cause}": cause for cause in FAULT_CAUSES}


class Sums(msgspec.Struct, array_like=True, gc=False):
    """The sums one ratio's level and interval are computed from (kept in the index as an
    array: drift parts hold many)."""

    n: int = 0
    """Units (a session's requests in one period): the interval treats them as independent."""
    requests: int = 0
    num: float = 0.0
    den: float = 0.0
    num2: float = 0.0
    den2: float = 0.0
    cross: float = 0.0

    def add(self, num: float, den: float, requests: int = 1) -> None:
        """Count one unit in: the sums of its `requests`."""
        self.n += 1
        self.requests += requests
        self.num += num
        self.den += den
        self.num2 += num * num
        self.den2 += den * den
        self.cross += num * den

    def merge(self, other: Sums) -> None:
        """Add another bucket's sums."""
        self.n += other.n
        self.requests += other.requests
        self.num += other.num
        self.den += other.den
        self.num2 += other.num2
        self.den2 += other.den2
        self.cross += other.cross

    @property
    def level(self) -> float | None:
        """Σ num / Σ den; None when nothing was counted."""
        return self.num / self.den if self.den else None

    @property
    def variance(self) -> float | None:
        """The variance of `level` by linearisation: Σ (num − R·den)² / (Σ den)² · n/(n−1)."""
        level = self.level
        if level is None or self.n < 2:
            return None
        spread = self.num2 - 2 * level * self.cross + level * level * self.den2
        return max(spread, 0.0) / (self.den * self.den) * self.n / (self.n - 1)

    def interval(self) -> tuple[float, float] | None:
        """The 95 % normal interval of `level`."""
        level, variance = self.level, self.variance
        if level is None or variance is None:
            return None
        half = Z95 * math.sqrt(variance)
        return (level - half, level + half)


class Bucket(msgspec.Struct, array_like=True, gc=False):
    """The requests of one period (and one value of a dimension): each measure's sums, over
    units closed (`Cell.close_into`)."""

    requests: int = 0
    unpriced: int = 0
    prompt_tokens: int = 0
    sums: dict[str, Sums] = msgspec.field(default_factory=dict)
    """The sums of each of `MEASURES` counted."""
    causes: dict[str, int] = msgspec.field(default_factory=dict)
    """Breaks that were faults, by cause."""
    faults: dict[str, list[float]] = msgspec.field(default_factory=dict)
    """Per cause with a fault, the sums over units of its faults, their squares and their
    products with the unit's requests judged: with the break rate's other sums (the same
    units and requests judged), its break rate's sums. A cause with none needs no sums of its
    own, which keeps half the measures out of the index."""

    def held(self, key: str) -> Sums | None:
        """The sums of measure `key`; None when none was counted."""
        cause = CAUSE_OF.get(key)
        if cause is None:
            return self.sums.get(key)
        judged = self.sums.get("break_rate")
        if judged is None:
            return None
        num, num2, cross = self.faults.get(cause) or (0.0, 0.0, 0.0)
        return Sums(judged.n, judged.requests, num, judged.den, num2, judged.den2, cross)

    def sums_of(self, key: str) -> Sums:
        """The sums of measure `key` (empty ones when none was counted)."""
        held = self.held(key)
        return Sums() if held is None else held

    def merge(self, other: Bucket) -> None:
        """Add another bucket."""
        self.requests += other.requests
        self.unpriced += other.unpriced
        self.prompt_tokens += other.prompt_tokens
        mine = self.sums
        for key, sums in other.sums.items():
            held = mine.get(key)
            if held is None:
                mine[key] = held = Sums()
            held.merge(sums)
        for cause, count in other.causes.items():
            self.causes[cause] = self.causes.get(cause, 0) + count
        for cause, (num, num2, cross) in other.faults.items():
            totals = self.faults.setdefault(cause, [0.0, 0.0, 0.0])
            totals[0] += num
            totals[1] += num2
            totals[2] += cross


@dataclass(frozen=True, slots=True)
class Series:
    """One dimension's value (or everything: `overall`) period by period, oldest first."""

    dimension: str
    value: str | None
    periods: tuple[str, ...]
    buckets: tuple[Bucket, ...]
    total: Bucket
    """Every bucket summed."""

    def sums(self, key: str, start: int = 0, end: int | None = None) -> Sums:
        """The sums of measure `key` over the buckets `start:end`."""
        summed = Sums()
        for bucket in self.buckets[start:end]:
            held = bucket.held(key)
            if held is not None:
                summed.merge(held)
        return summed


def counted(request: Request) -> bool:
    """Whether a request is one call of its own: not a rollup, not failed."""
    return not request.rollup and request.error is None


@dataclass(slots=True)
class Cell:
    """The requests of one unit (a session's, in one period) being counted: per measure, the
    sums (num, den, requests) of its requests, before they are one draw of a `Bucket`."""

    requests: int = 0
    unpriced: int = 0
    prompt_tokens: int = 0
    parts: dict[str, list[float]] = field(default_factory=dict)
    causes: dict[str, int] = field(default_factory=dict)
    """Its faults, by cause."""

    def add(self, request: Request, cause: str | None) -> None:
        """Count `request` in (`cause`: that of its fault break, if it was one)."""
        usage, cost = request.usage, request.cost
        self.requests += 1
        self.prompt_tokens += usage.prompt_tokens
        self._part("hit_rate", usage.cache_read_tokens, usage.prompt_tokens, 1)
        self._part("cache_writes_per_request", usage.cache_write_tokens, 1, 1)
        self._part("output_per_request", usage.output_tokens, 1, 1)
        self._part("reasoning_per_request", usage.reasoning_tokens, 1, 1)
        self._part("break_rate", cause is not None, 1, 1)
        if cause is not None:
            self.causes[cause] = self.causes.get(cause, 0) + 1
        if cost is None:
            self.unpriced += 1
            return
        total = cost.total_usd
        self._part("cost_per_request", total, 1, 1)
        self._part("subagent_cost_share", total * (request.agent is Agent.SUBAGENT), total, 1)
        self._part("compaction_cost_share", total * (request.agent is Agent.COMPACTION), total, 1)

    def add_cell(self, other: Cell) -> None:
        """Count another cell's requests in."""
        self.requests += other.requests
        self.unpriced += other.unpriced
        self.prompt_tokens += other.prompt_tokens
        for cause, count in other.causes.items():
            self.causes[cause] = self.causes.get(cause, 0) + count
        for key, (num, den, requests) in other.parts.items():
            self._part(key, num, den, requests)

    def close_into(self, bucket: Bucket) -> None:
        """Add the cell to `bucket` as one unit: requests of one session vary together, so a
        session's requests in one period are one draw of the interval, not many. Each cause's
        break rate is over the unit's requests, as the total's is."""
        bucket.requests += self.requests
        bucket.unpriced += self.unpriced
        bucket.prompt_tokens += self.prompt_tokens
        for cause, count in self.causes.items():
            bucket.causes[cause] = bucket.causes.get(cause, 0) + count
        sums = bucket.sums
        for key, (num, den, requests) in self.parts.items():
            held = sums.get(key)
            if held is None:
                held = sums[key] = Sums()
            held.add(num, den, int(requests))
        judged = self.parts.get("break_rate")
        if judged is not None:
            for cause, faults in self.causes.items():
                totals = bucket.faults.setdefault(cause, [0.0, 0.0, 0.0])
                totals[0] += faults
                totals[1] += faults * faults
                totals[2] += faults * judged[1]

    def _part(self, key: str, num: float, den: float, count: float) -> None:
        held = self.parts.get(key)
        if held is None:
            self.parts[key] = [num, den, count]
        else:
            held[0] += num
            held[1] += den
            held[2] += count


def value_of(request: Request, dimension: str) -> str | None:
    """The value of `dimension` a request is counted under (None: `overall`)."""
    if dimension == "version":
        return version_label(request)
    if dimension == "model":
        return request.model
    if dimension == "project":
        return request.project
    if dimension == "harness":
        return str(request.harness)
    return None


def version_label(request: Request) -> str:
    """`claude-code 2.1.39`: the harness and its version (they are numbered apart)."""
    return f"{request.harness} {request.version or UNKNOWN_VERSION}"


def week_of_day(day: str) -> str:
    """The ISO week a day (`2026-03-04`) falls in, as `sniff report --by week` groups days."""
    return iso_week(date.fromisoformat(day))


def break_key(request: Request) -> str:
    """The identity a request and its break are matched by."""
    return f"{request.source}\x00{request.session_id}\x00{request.key}"
