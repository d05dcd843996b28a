"""Provides reading a log in blocks of whole lines, each fed to its format's reader as it comes.

Why: one session file reaches hundreds of megabytes. Held whole, with every line decoded from
it at once, it took more memory than anything it yields; read a block at a time, only one
block and its decoded lines are alive at once, whatever the file's size. Formats whose reader
keeps its own state between lines (`READERS`) are read this way, from the start of a file or
from where an earlier run stopped (`read_lines`); the others are read whole.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Protocol

from sniff.ingest.files.regular import read_at
from sniff.ingest.record import FileResult
from sniff.model import LineIssue

BLOCK_BYTES = 2 << 20
"""Bytes read at once: enough that decoding a block dwarfs the call, small beside a big log."""


class Resumable(Protocol):
    """A parser's reading state that can be kept and fed the lines appended since."""

    APPENDS: bool
    """Whether, resumed, `result` holds only what the lines fed since yield."""

    def feed(self, data: bytes, first_line: int = 1, newlines: int | None = None) -> None: ...

    def result(self) -> FileResult: ...


READERS: dict[str, str] = {"claude-code": "claude_code.reader", "codex": "codex.reader"}
"""Formats whose reader reads a block at a time and can resume (the others are read whole),
and the module of each (`sniff.ingest.formats.<module>.Reader`), imported when a file of it is
read."""


def reader_of(log_format: str) -> Callable[[str, str], Resumable] | None:
    """The maker of a format's resumable reader; None for a format read whole."""
    module = READERS.get(log_format)
    if module is None:
        return None
    reader: Callable[[str, str], Resumable] = import_module(f"sniff.ingest.formats.{module}").Reader
    return reader


@dataclass(frozen=True, slots=True)
class Read:
    """What reading a log gave: its yield, how far its whole lines go, the reader's state."""

    result: FileResult
    offset: int = 0
    """Bytes of whole lines read into `state` (0 for a log read whole)."""
    lines: int = 0
    """Lines in those bytes."""
    state: bytes | None = None
    """The reader after those lines (pickled), when asked for."""
    problem: LineIssue | None = None
    """Why the file could not be read, when it could not."""


def head(descriptor: int, lines: int) -> bytes:
    """The file's first bytes: a block, or more until they hold `lines` lines."""
    data = read_at(descriptor, BLOCK_BYTES, 0)
    while not _holds(data, lines):
        more = read_at(descriptor, BLOCK_BYTES, len(data))
        if not more:
            break
        data += more
    return data


def _holds(data: bytes, lines: int) -> bool:
    """Whether `data` holds `lines` newlines, found one by one: counting all of a block's
    newlines, for the first few, cost a cold scan of the benchmark corpus about 3 %."""
    end = -1
    for _ in range(lines):
        end = data.find(b"\n", end + 1)
        if end < 0:
            return False
    return True


def read_lines(
    descriptor: int,
    reader: Resumable,
    start: int = 0,
    lines_before: int = 0,
    read: bytes = b"",
    *,
    keep_state: bool = False,
) -> Read:
    """Feed `reader` the file from byte `start` (after line `lines_before`) on, a block at a
    time, then a last line cut short (being written, say) if there is one.

    Args:
        read: the first of those bytes, read already.
        keep_state: keep the reader as it is after the last whole line (`Read.state`), to be
            fed what is appended later.
    """
    offset, lines, pending = start, lines_before, read
    while True:
        cut = pending.rfind(b"\n") + 1
        if cut:
            whole = pending[:cut]
            count = whole.count(b"\n")
            reader.feed(whole, lines + 1, count)
            offset, lines, pending = offset + cut, lines + count, pending[cut:]
        block = read_at(descriptor, BLOCK_BYTES, offset + len(pending))
        if not block:
            break
        pending = pending + block if pending else block
    state = pickle.dumps(reader, protocol=pickle.HIGHEST_PROTOCOL) if keep_state else None
    if pending:
        reader.feed(pending, lines + 1)
    return Read(reader.result(), offset, lines, state)
