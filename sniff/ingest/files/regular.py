"""Provides opening and reading a file only when it is a regular file, and saying why it was not.

Why: a FIFO named like a log blocks its reader forever, and a link to `/dev/zero` reads until
memory runs out. A path is opened only after `stat` says it is a regular file; `O_NONBLOCK`
guards the moment between the two (a file swapped for a FIFO opens at once instead of
waiting for a writer), and the opened file is checked again. Logs are opened so
(`open_regular`); so are the files named by options (`--pricing`, `--policy-file`) and sniff's
own kept files, read whole up to a limit (`read_regular`), since a file of that kind that is
larger than the limit is no such file.
"""

from __future__ import annotations

import os
import stat
import sys

KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_FLAGS |= getattr(os, "O_BINARY", 0)  # (Windows has neither of the first two, and needs this)


OPTION_FILE_BYTES = 4 << 20
"""The most a file named by an option (`--pricing`, `--policy-file`, `--plan-file`) or a
pyproject.toml may hold: they are a few kilobytes of TOML or JSON."""
KEPT_FILE_BYTES = 64 << 20
"""The most one of sniff's own kept files (prices, answers, the status line's numbers) may
hold: a larger one is none that sniff wrote, and is made again."""


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder: it is never read as a log."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(f"not a regular file ({kind(mode)})")
        self.filename, self.strerror = path, self.args[0]  # as the system's errors say them


class TooLarge(OSError):
    """The regular file holds more than its kind ever does: it is not read."""

    def __init__(self, path: str, limit: int) -> None:
        whole_mib = limit >= 1 << 20 and not limit % (1 << 20)
        super().__init__(
            f"larger than {limit >> 20} MiB" if whole_mib else f"larger than {limit:,} bytes"
        )
        self.filename, self.strerror = path, self.args[0]


def kind(mode: int) -> str:
    """What a file of `mode` is, in words (`a FIFO`)."""
    return KINDS.get(stat.S_IFMT(mode), "a special file")


def open_regular(path: str, *, listed_regular: bool = False) -> tuple[int, os.stat_result]:
    """A read-only descriptor of the regular file at `path`, and its status.

    `listed_regular`: a folder's listing just said `path` is a regular file, not a link (its
    entry's type): the `stat` before opening is spared, the check of the opened file is not.

    Raises:
        NotRegularFile: `path` is anything but a regular file (links followed).
        OSError: it cannot be opened.
    """
    if not listed_regular:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
    descriptor = os.open(path, _FLAGS)
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):  # replaced between the stat and the open
            raise NotRegularFile(path, status.st_mode)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor, status


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The whole of the regular file at `path`, which holds at most `limit` bytes.

    Read to one byte past the limit, not by the size `stat` gives: a file may grow while it is
    read, and some (`/proc`'s) say they hold nothing.

    Raises:
        NotRegularFile: `path` is anything but a regular file (links followed).
        TooLarge: it holds more than `limit` bytes.
        OSError: it cannot be opened or read.
    """
    name = os.fspath(path)
    descriptor, status = open_regular(name)
    try:
        if status.st_size > limit:
            raise TooLarge(name, limit)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(descriptor, min(limit + 1 - size, 1 << 20)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise TooLarge(name, limit)
    finally:
        os.close(descriptor)
    return b"".join(chunks)


def read_at(descriptor: int, length: int, offset: int) -> bytes:
    """Up to `length` bytes of an open file from `offset` on, in one call where the system
    has one (`pread`)."""
    if sys.platform != "win32":
        return os.pread(descriptor, length, offset)
    os.lseek(descriptor, offset, os.SEEK_SET)
    return os.read(descriptor, length)


def why_unread(error: OSError, what: str = "file") -> str:
    """Why a path was not read, for the warnings: skipped (`NotRegularFile`) or failed."""
    if isinstance(error, NotRegularFile):
        return f"skipped, {error.args[0]}"
    return f"cannot read {what}: {error.strerror or error}"
