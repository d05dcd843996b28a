"""Provides the counters of a run's reading: files and bytes to read, and files, bytes and
requests read so far, shared with the worker processes, for a front end to show.

Why counters and not callbacks: files are parsed in worker processes, which cannot call into
the front end. Each bumps counters in shared memory, inherited by `fork`, and whoever shows
progress reads them (`watched`). While nobody watches, counting costs one test per file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Reading:
    """How far the reading is: what was planned so far, and what is done."""

    planned_files: int = 0
    planned_bytes: int = 0
    files: int = 0
    bytes: int = 0
    requests: int = 0
    """Requests as the files yield them, before calls logged in several files are merged."""


_counters: Any = None
"""While watched: a shared `multiprocessing.Array` of the five fields of `Reading`."""


@contextmanager
def watched() -> Iterator[Callable[[], Reading]]:
    """Count the reading done inside the block (here and in workers forked inside it); yields
    a function that tells how far it is (nothing read, where shared memory cannot be had)."""
    global _counters
    import multiprocessing

    try:
        counters = multiprocessing.Array("q", len(Reading.__slots__))
    except OSError:  # no shared memory here: nothing is counted, the work goes on
        yield Reading
        return
    _counters = counters

    def now() -> Reading:
        with counters.get_lock():
            return Reading(*counters[:])

    try:
        yield now
    finally:
        _counters = None


def planned(files: int, size: int) -> None:
    """`files` more files, of `size` bytes in all, are to be read."""
    _add(0, files, size)


def read(size: int, requests: int) -> None:
    """One file of `size` bytes was read; it yielded `requests`."""
    _add(2, 1, size, requests)


def _add(first: int, *amounts: int) -> None:
    counters = _counters
    if counters is None:
        return
    with counters.get_lock():
        for offset, amount in enumerate(amounts):
            counters[first + offset] += amount
