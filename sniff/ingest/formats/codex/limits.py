"""Provides `LimitSeries`: Codex's own readings of its usage limits, from the `rate_limits` its
`token_count` events carry (`primary`, the 5-hour window; `secondary`, the weekly one).

Why apart from the reader: a `rate_limits` of the wrong shape must cost only its own reading,
never the usage the same event counts, so it is decoded here, window by window, from the raw
bytes the line kept. Codex repeats the same reading on every event (several hundred a
session): a run of equal readings is kept as its first and its last, which says when a share
was first reached and when it was last seen at no more than two readings a run.
"""

from __future__ import annotations

import math

import msgspec

from sniff.ingest.plausible import epoch
from sniff.model import Harness, LimitReading

WINDOWS = ("primary", "secondary")
LIMIT_ID = "codex"
"""The limit the windows describe, where the event names one: the plan's own. Another one's
readings (a separately limited model) would interleave with these and blur both series."""
MAX_USED_PERCENT = 1_000.0
"""Beyond this a value is no share of a limit (another unit, a corrupted value); a little
over 100 is kept: a limit overshot is what a reader most wants to see."""
MAX_WINDOW_MINUTES = 366 * 24 * 60
MAX_RESET_SECONDS = MAX_WINDOW_MINUTES * 60
RESET_JITTER = 60.0
KNOWN = 8
"""How many `rate_limits` a series remembers the readings of (`LimitSeries`)."""


class Window(msgspec.Struct, gc=False):
    """One window's reading as Codex writes it (`resets_in_seconds`: before about 0.40)."""

    used_percent: float | None = None
    window_minutes: int | None = None
    resets_at: float | None = None
    resets_in_seconds: float | None = None


class RateLimits(msgspec.Struct, gc=False):
    """`payload.rate_limits`; each part stays raw until read, so one bad part costs itself."""

    limit_id: msgspec.Raw = msgspec.Raw(b"")
    primary: msgspec.Raw = msgspec.Raw(b"")
    secondary: msgspec.Raw = msgspec.Raw(b"")


class WellFormed(msgspec.Struct, gc=False):
    """`payload.rate_limits` as Codex writes it: read in one decoding where it is."""

    limit_id: str | None = None
    primary: Window | None = None
    secondary: Window | None = None


_WELL_FORMED = msgspec.json.Decoder(WellFormed)
_LIMITS = msgspec.json.Decoder(RateLimits)
_WINDOW = msgspec.json.Decoder(Window)
_ID = msgspec.json.Decoder(str | None)


def readings(raw: bytes, at: float | None) -> list[LimitReading]:
    """The readings a `rate_limits` holds, read at `at` (epoch seconds); none that is not
    a plausible reading (wrong types, negative, not finite, huge) and none when `at` is not."""
    if not raw or at is None:
        return []
    try:
        whole = _WELL_FORMED.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return _part_by_part(raw, at)
    if whole.limit_id not in (None, LIMIT_ID):
        return []
    windows = zip(WINDOWS, (whole.primary, whole.secondary), strict=True)
    found = [_reading(name, window, at) for name, window in windows if window is not None]
    return [reading for reading in found if reading is not None]


def _part_by_part(raw: bytes, at: float) -> list[LimitReading]:
    """The readings of a `rate_limits` not all of whose parts are as Codex writes them: each
    window read alone, so that one bad part costs only itself."""
    try:
        limits = _LIMITS.decode(raw)
        if limits.limit_id and _ID.decode(limits.limit_id) not in (None, LIMIT_ID):
            return []
    except (msgspec.DecodeError, msgspec.ValidationError):  # null, a list, a bad id...
        return []
    found = []
    for name, part in zip(WINDOWS, (limits.primary, limits.secondary), strict=True):
        try:
            window = _WINDOW.decode(part) if part else None
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        reading = None if window is None else _reading(name, window, at)
        if reading is not None:
            found.append(reading)
    return found


def _reading(name: str, window: Window, at: float) -> LimitReading | None:
    used, minutes = window.used_percent, window.window_minutes
    if used is None or not math.isfinite(used) or not 0 <= used <= MAX_USED_PERCENT:
        return None
    if minutes is not None and not 0 < minutes <= MAX_WINDOW_MINUTES:
        return None
    try:
        resets_at = _resets_at(window, at)
    except ValueError:
        return None
    return LimitReading(Harness.CODEX, name, float(used), at, resets_at, minutes)


def _resets_at(window: Window, at: float) -> float | None:
    """When the window resets (None: not said).

    Raises:
        ValueError: what is said is no moment near `at` (a window resets within its length,
            at most a year): not finite, out of the years sniff reads, or in milliseconds.
    """
    if window.resets_at is not None:
        moment = window.resets_at
    elif window.resets_in_seconds is not None:
        moment = at + window.resets_in_seconds
    else:
        return None
    if epoch(moment) != moment or abs(moment - at) > MAX_RESET_SECONDS:  # NaN fails too
        raise ValueError(moment)
    return moment


class LimitSeries:
    """The readings of one rollout so far, a run of equal readings kept as its first and last.

    Why `read` remembers what it read: Codex writes most usage events twice, the same bytes
    each time, and between two changes of a share its reset time wavers between two values; a
    repeat of the last `rate_limits` only moves its readings' time on (settled when something
    else is read or the series is asked for), and one of the few read lately is not decoded
    again (decoding each would cost the rollout's reading half as much again).
    """

    def __init__(self) -> None:
        self.by_window: dict[str, list[LimitReading]] = {}
        self.raw = msgspec.Raw(b"")
        self.last: list[LimitReading] = []
        """The readings `raw` held, as first read."""
        self.repeated: str | None = None
        """When `raw` was last read again (the line's timestamp, read when settled)."""
        self.known: dict[bytes, list[LimitReading]] = {}
        """The readings of the `rate_limits` read lately that say their reset time."""

    def read(self, raw: msgspec.Raw, timestamp: str) -> None:
        """A `rate_limits`'s readings (`readings`), read at the line's `timestamp`."""
        if self.last and (raw == self.raw or self._says_again(bytes(raw))):
            self.repeated = timestamp
            return
        self._settle()
        self.raw, self.last = raw, self._readings(bytes(raw), epoch(timestamp))
        for reading in self.last:
            self.add(reading)

    def add(self, reading: LimitReading) -> None:
        series = self.by_window.setdefault(reading.window, [])
        if len(series) >= 2 and _same(series[-1], reading) and _same(series[-2], reading):
            series[-1] = reading  # the run's last reading moves on; its first stays
        else:
            series.append(reading)

    def all(self) -> tuple[LimitReading, ...]:
        """Every reading kept, in time order."""
        self._settle()
        kept = [reading for series in self.by_window.values() for reading in series]
        return tuple(sorted(kept, key=lambda reading: (reading.at, reading.window)))

    def _says_again(self, raw: bytes) -> bool:
        """Whether `raw`, read lately, says what the last one read did (but for a reset time
        that wavers)."""
        known = self.known.get(raw)
        return (
            known is not None and len(known) == len(self.last) and all(map(_same, known, self.last))
        )

    def _readings(self, raw: bytes, at: float | None) -> list[LimitReading]:
        known = self.known.get(raw)
        if known is None or at is None:
            found = readings(raw, at)
            if b"resets_in_seconds" not in raw:  # else each reading's reset depends on `at`
                if len(self.known) >= KNOWN:
                    self.known.clear()
                self.known[raw] = found
            return found
        return [
            msgspec.structs.replace(reading, at=at)
            for reading in known
            if reading.resets_at is None or abs(reading.resets_at - at) <= MAX_RESET_SECONDS
        ]

    def _settle(self) -> None:
        at = epoch(self.repeated) if self.repeated is not None else None
        if at is not None:  # an undated repeat says nothing new
            for reading in self.last:
                self.add(msgspec.structs.replace(reading, at=at))
        self.repeated = None


def _same(one: LimitReading, other: LimitReading) -> bool:
    """Whether two readings say the same; Codex's `resets_at` wavers by a second between
    events of one window, so resets within `RESET_JITTER` seconds are one."""
    if (one.used_percent, one.window_minutes) != (other.used_percent, other.window_minutes):
        return False
    if one.resets_at is None or other.resets_at is None:
        return one.resets_at is other.resets_at
    return abs(one.resets_at - other.resets_at) <= RESET_JITTER
