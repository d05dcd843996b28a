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


def ticks(roots: list[Path], *, poll: bool, interval: float, until: float | None) -> Iterator[None]:
    """Yield whenever the files under `roots` may have changed, and at least every `interval`
    seconds (so a caller's clock-driven view stays current), until the monotonic time `until`."""
    if poll or not watching_available():
        while until is None or time.monotonic() < until:
            time.sleep(_wait(interval, until))
            yield
        return
    import watchfiles

    for _changes in watchfiles.watch(
        *roots,
        rust_timeout=int(_wait(interval, until) * 1000) or 1,
        yield_on_timeout=True,
        debounce=50,
        step=20,
        raise_interrupt=False,
    ):
        if until is not None and time.monotonic() >= until:
            return
        yield


def _wait(interval: float, until: float | None) -> float:
    if until is None:
        return interval
    return max(0.0, min(interval, until - time.monotonic()))
