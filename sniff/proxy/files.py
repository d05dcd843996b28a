"""Provides the proxy's daily files, `<folder>/calls-YYYY-MM-DD.jsonl` (the UTC day a call
started), and `Writer`, the one task that fills them.

Why one writer fed by a queue: a call's handler only hands its `Call` over and goes on; the
line is made (bodies parsed, secrets masked) and written on a worker thread, one call at a
time, so lines never interleave and a stream never waits for a disk. Why one `os.write` on an
O_APPEND descriptor: other sniff commands read these files while they grow, and a proxy may be
killed at any time; a kill leaves whole lines (the file's torn end, should a crash have cut
one, is ended before the next line so that only it is spoilt).

Why a recording failure is only counted: the proxy must never be why a call fails. The first
failure is said on stderr, the rest counted and said once when the proxy stops.
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from sniff.errors import UserError
from sniff.proxy.record import Call, to_line

FLAGS = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)
FLAGS |= getattr(os, "O_BINARY", 0)  # Windows: no newline translation
MODE = 0o600
"""Prompts, file contents and answers pass through: readable by the user alone."""
PENDING_BYTES = 256 * 1024 * 1024
"""The most of calls' kept bodies waiting for the writer; a call past it is not recorded."""


def prepare(folder: Path) -> Path:
    """`folder`, created if missing.

    Raises:
        UserError: it cannot be created, or this process may not write there.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot create {folder}: {error.strerror or error}") from error
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise UserError(f"cannot write to {folder}: not a folder this user may write to")
    return folder


def day_file(folder: Path, started_at: float) -> Path:
    """The file of the UTC day of `started_at` (epoch seconds)."""
    return folder / f"calls-{datetime.fromtimestamp(started_at, UTC):%Y-%m-%d}.jsonl"


def append(folder: Path, started_at: float, line: bytes) -> None:
    """Append one whole line to its day's file.

    Raises:
        OSError: it cannot be written.
    """
    target = day_file(folder, started_at)
    try:
        descriptor = os.open(target, FLAGS, MODE)
    except FileNotFoundError:  # the folder was removed while running: make it again
        folder.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(target, FLAGS, MODE)
    try:
        data = _torn_end(descriptor) + line
        written = os.write(descriptor, data)
        if written < len(data):  # only for a full disk or a signal mid-write: finish the line
            os.write(descriptor, data[written:])
    finally:
        os.close(descriptor)


def _torn_end(descriptor: int) -> bytes:
    """A newline if the file does not end with one (a line a crash cut short), else nothing."""
    size = os.fstat(descriptor).st_size
    if size == 0:
        return b""
    os.lseek(descriptor, size - 1, os.SEEK_SET)  # O_APPEND still writes at the end after
    return b"" if os.read(descriptor, 1) == b"\n" else b"\n"


class Writer:
    """Takes calls from the handlers and writes their lines, in order, from one task."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.failures = 0
        self.written = 0
        self._queue: asyncio.Queue[Call | None] = asyncio.Queue()
        self._pending = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the writing task (on the running loop)."""
        self._task = asyncio.get_running_loop().create_task(self._run())

    def submit(self, call: Call) -> None:
        """Queue a call's line; never waits, never raises."""
        try:
            size = len(call.request.kept) + (len(call.response.kept) if call.response else 0)
            if self._pending + size > PENDING_BYTES:
                raise MemoryError("the writer is behind: this call is not recorded")
            self._pending += size
            self._queue.put_nowait(call)
        except Exception as error:  # recording must never break forwarding
            self.failed(error)

    async def close(self) -> None:
        """Write what is queued, then stop."""
        if self._task is None:
            return
        self._queue.put_nowait(None)
        await self._task
        if self.failures > 1:
            sys.stderr.write(f"sniff proxy: {self.failures} calls could not be recorded\n")

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while (call := await self._queue.get()) is not None:
            size = len(call.request.kept) + (len(call.response.kept) if call.response else 0)
            try:
                await loop.run_in_executor(None, self._write, call)
                self.written += 1
            except Exception as error:
                self.failed(error)
            finally:
                self._pending -= size

    def _write(self, call: Call) -> None:
        started_at, line = to_line(call)
        append(self.folder, started_at, line)

    def failed(self, error: BaseException) -> None:
        """Count a failure to record; say the first on stderr."""
        self.failures += 1
        if self.failures == 1:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else error
            sys.stderr.write(
                f"sniff proxy: a call could not be recorded ({type(error).__name__}: {reason}); "
                "forwarding goes on, and further failures are counted\n"
            )
