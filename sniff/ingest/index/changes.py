"""Provides `ticks`: when to read the followed logs again, by file events or by polling.

Why both: `watchfiles` (inotify, FSEvents, ReadDirectoryChangesW) answers within milliseconds
without burning a core, but some file systems (network mounts, some containers) send no
events; `--poll`, or the library missing, reads on every `interval` seconds instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path


def watching_available() -> bool:
    """Whether the file-event library can be imported."""
    try:
        import watchfiles  # noqa: F401
    except ImportError:
        return False
    return True


WAKE_MS = 50
"""How often the file-event wait wakes to check the deadline and the refresh clock."""


def ticks(roots: list[Path], *, poll: bool, interval: float, until: float | None) -> Iterator[None]:
    """Yield at once when the watching is set up (so a caller that reads the logs then misses
    nothing written after), then whenever the files under `roots` may have changed, and at
    least every `interval` seconds (a clock-driven view stays current), until the monotonic
    time `until`."""
    if poll or not watching_available():
        yield
        while until is None or time.monotonic() < until:
            time.sleep(_wait(interval, until))
            yield
        return
    import watchfiles

    events = watchfiles.watch(
        *roots, rust_timeout=WAKE_MS, yield_on_timeout=True, debounce=WAKE_MS, step=20,
        raise_interrupt=False,
    )  # fmt: skip
    next(events)  # the first wait returns after WAKE_MS: the watches are in place
    yield
    last = time.monotonic()
    for changes in events:
        now = time.monotonic()
        if until is not None and now >= until:
            return
        if changes or now - last >= interval:
            last = now
            yield


def _wait(interval: float, until: float | None) -> float:
    if until is None:
        return interval
    return max(0.0, min(interval, until - time.monotonic()))
