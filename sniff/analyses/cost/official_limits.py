"""Provides `official`: an agent's own reading of its usage limit within a block or a week,
beside sniff's estimate from token sums, and when that limit reaches 100% at the current rate.

Why both: sniff's blocks and weeks are reckoned from the logs' token sums and a guessed
window; the agents themselves say how much of their limits is used (Claude Code to its status
line, Codex in its rollouts' `token_count` events). Those shares are the agent's own figures,
shown as they are: the last reading within each block or week, and a linear projection from
the readings of the window that reading belongs to.

The projection takes the rate between the first and the last reading of the current window
(readings since the last reset: the same reset time, and no drop in the share), and carries
it on from the last. There is none when fewer than two readings span any time, when the rate
is not positive, when the window resets first, or when it has reset already.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sniff.ingest.plausible import epoch
from sniff.model import Harness, LimitReading

FULL = 100.0
MAX_USED_PERCENT = 1_000.0
"""Beyond this a reading is no share of a limit (another unit, a corrupted value)."""
RESET_JITTER = 60.0
"""Codex's reset time wavers by a second from event to event: resets this close are one."""


@dataclass(frozen=True, slots=True)
class Window:
    """Which of an agent's official windows stands beside a view of sniff's."""

    harness: Harness
    name: str
    """`five_hour`, `seven_day` (Claude Code); `primary`, `secondary` (Codex)."""
    minutes: int | None = None
    """The length a reading must say it has (Codex's windows are named by position only)."""


BLOCK_WINDOWS = {
    Harness.CLAUDE_CODE: Window(Harness.CLAUDE_CODE, "five_hour"),
    Harness.CODEX: Window(Harness.CODEX, "primary", 300),
}
"""The official 5-hour window of each agent that has one, beside the 5-hour blocks."""
WEEK_WINDOWS = {
    Harness.CLAUDE_CODE: Window(Harness.CLAUDE_CODE, "seven_day"),
    Harness.CODEX: Window(Harness.CODEX, "secondary", 10_080),
}
"""The official weekly window of each agent that has one, beside `--weekly`'s weeks."""


@dataclass(frozen=True, slots=True)
class Official:
    """The agent's own reading of a limit within one block or week."""

    window: Window
    used_percent: float
    """The share of the limit used, in percent, as the agent last said within the span."""
    read_at: datetime
    resets_at: datetime | None
    """When the agent said the window resets, where it said."""
    projected_full_at: datetime | None
    """When the share reaches 100% at the current window's rate (see the module's rules)."""


Span = tuple[datetime, datetime] | None
"""A block's or week's (start, end); None for a gap between blocks."""


@dataclass(frozen=True, slots=True)
class Officials:
    """The official window beside a view (None: the agent has none), and its reading within
    each span of the view, in order."""

    window: Window | None = None
    each: list[Official | None] = field(default_factory=list)

    @property
    def found(self) -> bool:
        """Whether any span holds a reading."""
        return any(found is not None for found in self.each)


def officials(
    readings: Iterable[LimitReading],
    harness: str,
    spans: Sequence[Span],
    now: datetime,
    *,
    weekly: bool,
) -> Officials:
    """`harness`'s official readings (of its weekly window, or its 5-hour one) within each
    of `spans`.

    Why only one agent's: each agent's limit is its own subscription's; a view sums one
    agent's requests, and another's share beside them would read as a measure of them.
    """
    try:
        window = (WEEK_WINDOWS if weekly else BLOCK_WINDOWS).get(Harness(harness))
    except ValueError:  # no agent's name
        window = None
    if window is None:
        return Officials(None, [None] * len(spans))
    kept = readings_of(readings, window)
    return Officials(
        window, [None if span is None else official(kept, window, span, now) for span in spans]
    )


def readings_of(readings: Iterable[LimitReading], window: Window) -> list[LimitReading]:
    """`window`'s readings that can be read, in time order: a finite share in [0, 1000], a
    plausible time, a plausible reset time or none, and the window's length when it has one."""
    kept = [
        reading
        for reading in readings
        if reading.harness is window.harness
        and reading.window == window.name
        and (window.minutes is None or reading.window_minutes == window.minutes)
        and _plausible(reading)
    ]
    kept.sort(key=lambda reading: reading.at)
    return kept


def _plausible(reading: LimitReading) -> bool:
    used = reading.used_percent
    if not isinstance(used, int | float) or not math.isfinite(used):
        return False
    if not 0 <= used <= MAX_USED_PERCENT or epoch(reading.at) != reading.at:
        return False
    return reading.resets_at is None or epoch(reading.resets_at) == reading.resets_at


def official(
    readings: Sequence[LimitReading],
    window: Window,
    span: tuple[datetime, datetime],
    now: datetime,
) -> Official | None:
    """The last of `readings` (one window's, in time order: `readings_of`) within `span`
    (start, end), and the projection from it; None when none falls within it."""
    start, end = span[0].timestamp(), span[1].timestamp()
    inside = [reading for reading in readings if start <= reading.at < end]
    if not inside:
        return None
    last = inside[-1]
    return Official(
        window,
        last.used_percent,
        _moment(last.at),
        None if last.resets_at is None else _moment(last.resets_at),
        _projected(current_window(inside), now, end),
    )


def current_window(readings: Sequence[LimitReading]) -> list[LimitReading]:
    """The readings (in time order) of the window the last one belongs to: back to the last
    reset (a reset time said otherwise, or a share lower than the one after it)."""
    if not readings:
        return []
    first = len(readings) - 1
    while first > 0:
        before, after = readings[first - 1], readings[first]
        if not _same_reset(before, after) or before.used_percent > after.used_percent:
            break
        first -= 1
    return list(readings[first:])


def _same_reset(one: LimitReading, other: LimitReading) -> bool:
    if one.resets_at is None or other.resets_at is None:
        return one.resets_at is other.resets_at
    return abs(one.resets_at - other.resets_at) <= RESET_JITTER


def _projected(window: Sequence[LimitReading], now: datetime, span_end: float) -> datetime | None:
    """When the window's share reaches 100% at the rate between its first and last readings;
    None for a window that resets first, or has reset (or, with no reset time said, whose
    span has ended) by `now`."""
    if not window:
        return None
    first, last = window[0], window[-1]
    ends = last.resets_at if last.resets_at is not None else span_end
    if ends <= now.timestamp():
        return None
    if last.used_percent >= FULL:  # full already: since its first reading at 100%
        return _moment(next(r.at for r in window if r.used_percent >= FULL))
    if last.at <= first.at:
        return None
    rate = (last.used_percent - first.used_percent) / (last.at - first.at)
    if rate <= 0:
        return None
    full_at = last.at + (FULL - last.used_percent) / rate
    if last.resets_at is not None and full_at >= last.resets_at:
        return None
    return _moment(full_at) if epoch(full_at) == full_at else None


def _moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)
