"""Provides `DriftPart`: what `sniff drift` needs of some requests, summed so that parts of
logs that share no session join exactly, and the series made from it (`series_of`).

Why: a drift report reads every request, but what it needs of them is small: per period (day
and week) and per value of each dimension, the closed sums of each measure (`drift.Bucket`),
when each version was first seen, the sizes of the system prompts per day, and when each tool
was first used. A unit of logs (`ingest.index.units`: files whose sessions and chains never meet
another's) has its part kept in the index, so a run with a warm index joins parts instead of
analysing requests. A session's requests in one period are one unit of the intervals, and no
session crosses a unit of logs: the buckets of two parts add up (`Bucket.merge`) to those of
their requests together. A part is of days or of weeks (a session's week is one draw of the
interval, not one per day).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo

import msgspec

from sniff.analyses.cost.summary import LocalDays
from sniff.analyses.drift.series import (
    BY,
    DIMENSIONS,
    Bucket,
    Cell,
    Series,
    break_key,
    counted,
    value_of,
    week_of_day,
)
from sniff.model import Request, ToolCall

SEPARATOR = "\x1f"
"""Between a bucket key's dimension, value and period."""


@dataclass(slots=True)
class DriftPart:
    """What drift needs of some requests (see the module docstring)."""

    by: str = "day"
    """Its periods: days or weeks (`BY`)."""
    buckets: dict[str, Bucket] = field(default_factory=dict)
    """Per `dimension␟value␟period` (`bucket_key`), the closed sums."""
    first_seen: dict[str, float] = field(default_factory=dict)
    """Per version (`drift.version_label`), the time (POSIX) of its first request."""
    system: dict[str, dict[int, int]] = field(default_factory=dict)
    """Per day, the requests whose prompts held a system prompt, by its size in tokens."""
    tools_first: dict[str, float] = field(default_factory=dict)
    """Per tool name, the time (POSIX) of its first call."""
    requests: int = 0
    """Requests counted (rollups and failed ones left out)."""
    left_out: int = 0
    """Requests given but not counted."""


def bucket_key(dimension: str, value: str | None, period: str) -> str:
    """The key of a part's bucket."""
    return SEPARATOR.join((dimension, value or "", period))


def drift_part(
    requests: Sequence[Request],
    causes: Mapping[str, str],
    calls: Iterable[ToolCall],
    zone: tzinfo,
    by: str,
) -> DriftPart:
    """The part of `requests` (those the filters keep) and their tool `calls`, by `by` (day
    or week) in `zone`.

    `causes` maps a request's `break_key` to the cause of its fault break.

    Raises:
        ValueError: `by` is not one of BY.
    """
    if by not in BY:
        raise ValueError(f"unknown period {by!r}")
    day_of = LocalDays(zone)
    part = DriftPart(by)
    days: dict[tuple[str, str], dict[tuple[str | None, ...], Cell]] = {}
    for request in requests:
        if not counted(request):
            part.left_out += 1
            continue
        part.requests += 1
        day = day_of(request.when)
        values = tuple(value_of(request, dimension) for dimension in DIMENSIONS)
        cell = days.setdefault((request.session_id, day), {}).setdefault(values, Cell())
        cell.add(request, causes.get(break_key(request)))
        label, moment = values[1] or "", request.when.timestamp()
        if moment < part.first_seen.get(label, moment + 1):
            part.first_seen[label] = moment
        size = sum(block.tokens for block in request.blocks if block.role == "system")
        if size:
            sizes = part.system.setdefault(day, {})
            sizes[size] = sizes.get(size, 0) + 1
    if by == "week":
        weeks: dict[tuple[str, str], dict[tuple[str | None, ...], Cell]] = {}
        for (session, day), cells in days.items():
            held = weeks.setdefault((session, week_of_day(day)), {})
            for values, cell in cells.items():
                held.setdefault(values, Cell()).add_cell(cell)
        days = weeks
    part.buckets = _closed(days)
    for call in calls:
        if call.at is not None and call.at < part.tools_first.get(call.name, call.at + 1):
            part.tools_first[call.name] = call.at
    return part


def _closed(units: dict[tuple[str, str], dict[tuple[str | None, ...], Cell]]) -> dict[str, Bucket]:
    """Each session-period's cells, counted into every series their values name: the cells
    of one session, period and series value are one unit of that series."""
    buckets: dict[str, Bucket] = {}
    for (_, period), cells in units.items():
        for position, dimension in enumerate(DIMENSIONS):
            joined: dict[str | None, list[Cell]] = {}
            for values, cell in cells.items():
                joined.setdefault(values[position], []).append(cell)
            for value, held in joined.items():
                unit = held[0]
                if len(held) > 1:
                    unit = Cell()
                    for cell in held:
                        unit.add_cell(cell)
                unit.close_into(buckets.setdefault(bucket_key(dimension, value, period), Bucket()))
    return buckets


def join_parts(parts: Iterable[DriftPart], by: str) -> DriftPart:
    """The part of all the parts' requests together (all of periods `by`), their buckets
    merged into the first part's bucket of each key: the parts are used up."""
    joined = DriftPart(by)
    into = joined.buckets
    for part in parts:
        if part.by != by:
            raise ValueError(f"a part by {part.by} joined to parts by {by}")
        for key, bucket in part.buckets.items():
            held = into.get(key)
            if held is None:
                into[key] = bucket
            else:
                held.merge(bucket)
        for label, moment in part.first_seen.items():
            joined.first_seen[label] = min(moment, joined.first_seen.get(label, moment))
        for day, sizes in part.system.items():
            into_day = joined.system.setdefault(day, {})
            for size, count in sizes.items():
                into_day[size] = into_day.get(size, 0) + count
        for name, moment in part.tools_first.items():
            joined.tools_first[name] = min(moment, joined.tools_first.get(name, moment))
        joined.requests += part.requests
        joined.left_out += part.left_out
    return joined


def series_of(part: DriftPart) -> list[Series]:
    """Every series of the part: periods no request fell in are left out of a series.
    Overall first, then each dimension's values, most requests first."""
    grouped: dict[tuple[str, str | None], dict[str, Bucket]] = {}
    for key, bucket in part.buckets.items():
        dimension, value, period = key.split(SEPARATOR)
        named = value if dimension != "overall" else None
        grouped.setdefault((dimension, named), {})[period] = bucket
    built = []
    for (dimension, label), buckets in grouped.items():
        periods = tuple(sorted(buckets))
        total = Bucket()
        for period in periods:
            total.merge(buckets[period])
        built.append(Series(dimension, label, periods, tuple(buckets[p] for p in periods), total))
    built.sort(key=lambda s: (DIMENSIONS.index(s.dimension), -s.total.requests, s.value or ""))
    return built


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(DriftPart)


def encode_drift_part(part: DriftPart) -> bytes:
    """A part as msgpack: how the index keeps it and workers send it back."""
    return _ENCODER.encode(part)


def decode_drift_part(data: bytes) -> DriftPart | None:
    """The part `encode_drift_part` made; None for data that is not one."""
    try:
        return _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
