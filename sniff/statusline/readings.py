"""Provides `keep_readings`: Claude Code's own limit readings, handed to sniff's history
(`limits_history.record`) without slowing the status line.

Why a memo: `record` reads the whole history (up to 20,000 readings: about 10 ms) to find
whether a reading changed, and the status line runs every few seconds with the same readings.
So the readings last handed over are kept in the cache folder beside the history file's
identity (size, modification time, inode); while both are the same, the history is not read.
Another writer (another account's status line, a deleted history) changes the identity, and
`record`, which keeps only what differs from the last reading of each window, decides again.
Nothing here ever fails the line: a history is a convenience.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import msgspec

from sniff import atomic_write
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.paths import cache_folder
from sniff.statusline.told import Limit

MEMO_FILE = "statusline-limits.json"


class _Memo(msgspec.Struct, frozen=True):
    history: list[str | int]
    """The history file's path and identity after the readings were handed over."""
    readings: list[tuple[str, float, float | None]]


def _identity(path: os.PathLike[str]) -> list[str | int]:
    try:
        status = os.stat(path)
    except OSError:  # none yet, or no folder
        return [os.fspath(path)]
    return [os.fspath(path), status.st_size, status.st_mtime_ns, status.st_ino]


def keep_readings(limits: Sequence[Limit], now: float) -> None:
    """Record `limits` (read at `now`, epoch seconds) in the history, unless these very
    readings were the last handed over and the history has not changed since."""
    if not limits:
        return
    from sniff.limits_history import history_path

    path = history_path()
    readings = [(limit.window, limit.used_percent, limit.resets_at) for limit in limits]
    folder = cache_folder()
    memo = None if folder is None else folder / MEMO_FILE
    if memo is not None:
        try:
            kept = msgspec.json.decode(read_regular(memo, KEPT_FILE_BYTES), type=_Memo)
            if kept.readings == readings and kept.history == _identity(path):
                return
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            pass  # none, or damaged: record decides, and the memo is written anew
    _record(limits, now)
    if memo is not None:
        try:
            memo.parent.mkdir(parents=True, exist_ok=True)
            atomic_write.replace(memo, msgspec.json.encode(_Memo(_identity(path), readings)))
        except OSError:
            pass


def _record(limits: Sequence[Limit], now: float) -> None:
    """Hand the readings to the history, as Claude Code's."""
    from sniff.limits_history import record
    from sniff.model import Harness, LimitReading

    readings = [
        LimitReading(
            harness=Harness.CLAUDE_CODE,
            window=limit.window,
            used_percent=limit.used_percent,
            at=now,
            resets_at=limit.resets_at,
        )
        for limit in limits
    ]
    record(readings)
