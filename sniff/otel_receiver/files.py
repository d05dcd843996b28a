"""Provides the receiver's daily files: whole lines appended to
`<folder>/<signal>-YYYY-MM-DD.jsonl`, one file per signal and UTC day of receipt.

Why whole lines: readers follow these files while they grow, and a receiver may be killed at
any time. Each line goes to a descriptor opened with O_APPEND in one `os.write`, under a lock
the server's threads share: two requests never interleave, and a kill leaves every line whole.
A line a crash did cut short (a power cut, a write the kernel stopped halfway) is ended before
the next one is appended, so it spoils only itself.
"""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime
from pathlib import Path

from sniff.errors import UserError

FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
FLAGS |= getattr(os, "O_BINARY", 0)  # Windows: no newline translation
MODE = 0o600
"""What agents send can hold prompts and file contents: readable by the user alone."""


class DailyFiles:
    """The daily files in one folder, appended to by any number of threads."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._lock = threading.Lock()

    @classmethod
    def prepare(cls, folder: Path) -> DailyFiles:
        """The files of `folder`, created if missing.

        Raises:
            UserError: the folder cannot be created, or this process may not write there.
        """
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"cannot create {folder}: {error.strerror or error}") from error
        if not os.access(folder, os.W_OK | os.X_OK):
            raise UserError(f"cannot write to {folder}: permission denied")
        return cls(folder)

    def path(self, signal: str, moment: datetime) -> Path:
        """The file of `signal` ("logs", "traces", "metrics") for `moment`'s UTC day."""
        return self.folder / f"{signal}-{moment.astimezone(UTC):%Y-%m-%d}.jsonl"

    def append(self, signal: str, line: bytes) -> Path:
        """Append `line` (one whole line, ending with a newline) to today's file of `signal`;
        the file it went to.

        Raises:
            OSError: it cannot be written (a full disk, the folder removed and not re-creatable).
        """
        with self._lock:
            target = self.path(signal, datetime.now(UTC))
            try:
                descriptor = os.open(target, FLAGS, MODE)
            except FileNotFoundError:  # the folder was removed while running: make it again
                self.folder.mkdir(parents=True, exist_ok=True)
                descriptor = os.open(target, FLAGS, MODE)
            try:
                _write_all(descriptor, _torn_end(descriptor) + line)
            finally:
                os.close(descriptor)
            return target

    def close(self) -> None:
        """Wait for a line being written to be whole (no later one starts: the server has
        stopped taking requests by then)."""
        with self._lock:
            pass


def _torn_end(descriptor: int) -> bytes:
    """A newline if the file does not end with one (a line a crash cut short), else nothing."""
    size = os.fstat(descriptor).st_size
    if size == 0:
        return b""
    # a seek, not pread (Windows has none): O_APPEND still writes at the end afterwards
    os.lseek(descriptor, size - 1, os.SEEK_SET)
    return b"" if os.read(descriptor, 1) == b"\n" else b"\n"


def _write_all(descriptor: int, data: bytes) -> None:
    """Write `data` in one `os.write`; should the system take only a part (it may, for a write
    interrupted halfway), the rest follows while the lock is still held."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]
