"""Provides the local history of the agents' own limit readings: `record` and `recorded`.

Why kept: Claude Code says how much of its 5-hour and weekly limits is used only in the JSON it
hands the status line, and says it again on each run; nothing else keeps it. The status line
records each reading that differs from the last of its window, so `blocks` can show the
official used percentage over time beside sniff's own estimate. The file (`limits.jsonl` in
sniff's data folder: what cannot be made again) holds one reading a line and stays bounded:
past `MAX_READINGS` the oldest quarter is dropped, atomically. A line that cannot be read
(a cut write, an edit) is passed over.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import msgspec

from sniff import atomic_write
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.model import Harness, LimitReading
from sniff.paths import data_folder

HISTORY_FILE = "limits.jsonl"
MAX_READINGS = 20_000
"""About 2 MB: months of readings at a change every few minutes."""
_DECODER = msgspec.json.Decoder(LimitReading)


def history_path(folder: Path | None = None) -> Path:
    return (folder or data_folder()) / HISTORY_FILE


def recorded(folder: Path | None = None, harness: Harness | None = None) -> list[LimitReading]:
    """The readings kept, oldest first (`harness`'s only, when given)."""
    try:
        data = read_regular(history_path(folder), KEPT_FILE_BYTES)
    except OSError:
        return []
    found = []
    for line in data.splitlines():
        try:
            reading = _DECODER.decode(line)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if harness is None or reading.harness is harness:
            found.append(reading)
    found.sort(key=lambda reading: reading.at)
    return found


def record(readings: Iterable[LimitReading], folder: Path | None = None) -> list[LimitReading]:
    """Keep each reading that differs from the last of its window (used share or reset time);
    the ones kept. Never raises for want of a folder or a disk: a history is a convenience."""
    kept = recorded(folder)
    last = {(r.harness, r.window): r for r in kept}
    fresh = []
    for reading in readings:
        before = last.get((reading.harness, reading.window))
        if before is not None and (before.used_percent, before.resets_at) == (
            reading.used_percent, reading.resets_at,
        ):  # fmt: skip
            continue
        last[reading.harness, reading.window] = reading
        fresh.append(reading)
    if not fresh:
        return []
    path = history_path(folder)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if len(kept) + len(fresh) > MAX_READINGS:
            newest = (kept + fresh)[-(MAX_READINGS * 3 // 4) :]
            atomic_write.replace(path, b"".join(_line(r) for r in newest), mode=0o600)
        else:  # one write of whole lines, appended
            descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(descriptor, b"".join(_line(reading) for reading in fresh))
            finally:
                os.close(descriptor)
    except OSError:
        return []
    return fresh


def _line(reading: LimitReading) -> bytes:
    return msgspec.json.encode(reading) + b"\n"
