"""Provides opening and reading a log only when it is a regular file, and saying why it was not.

Why: a FIFO named like a log blocks its reader forever, and a link to `/dev/zero` reads until
memory runs out. A path is opened only after `stat` says it is a regular file; `O_NONBLOCK`
guards the moment between the two (a file swapped for a FIFO opens at once instead of
waiting for a writer), and the opened file is checked again.
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


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder: it is never read as a log."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(f"not a regular file ({kind(mode)})")
        self.filename = path


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
