"""Provides writing a user's files whole or not at all, and the one-line error when that fails.

How: the bytes go to a temporary name beside the target, are fsynced, then renamed over it,
and the folder is fsynced (a target that is not a regular file, such as `/dev/stdout`, is
written to instead). A rename within one folder is atomic, so a reader sees the old file
or the new one, never a part; a failure (a full disk, a read-only folder, Ctrl-C) removes the
temporary file, so nothing empty or partial is left. Temporary names start with `.` and end with
`.tmp`: a glob of `*.parquet` or `*.html`, and pyarrow's dataset discovery (which skips names
starting with `.` or `_`), never see one.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from sniff.errors import UserError

TEMPORARY_SUFFIX = ".tmp"


def temporary_name(target: Path) -> Path:
    """A name beside `target` that no other writer picks and no reader of `target`'s kind sees."""
    return target.with_name(f".{target.name}.{os.urandom(4).hex()}{TEMPORARY_SUFFIX}")


def is_temporary(name: str, target_prefix: str) -> bool:
    """Whether `name` is a `temporary_name` of a target whose name starts with `target_prefix`."""
    return name.startswith(f".{target_prefix}") and name.endswith(TEMPORARY_SUFFIX)


def write_whole(target: Path, data: bytes) -> None:
    """Replace `target` by `data`, whole or not at all.

    A link is followed (the file it names is replaced, the link kept), and the file keeps its
    permissions. A target that is not a regular file (`/dev/stdout`, a pipe, a terminal) is
    written to, as a shell's `>` would: replacing it would put a file in its place.

    Raises:
        UserError: it cannot be written (the reason in one line; `target` is as it was).
    """
    try:
        try:
            status: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            status = None
        if status is not None and not stat.S_ISREG(status.st_mode):
            with open(target, "wb") as file:
                file.write(data)
            return
        mode = None if status is None else stat.S_IMODE(status.st_mode)
        owner = None if status is None else (status.st_uid, status.st_gid)
        replace(Path(os.path.realpath(target)), data, mode, owner)
    except OSError as error:
        raise cannot_write(target, error) from error


def replace(
    target: Path, data: bytes, mode: int | None = None, owner: tuple[int, int] | None = None
) -> None:
    """Replace the regular file `target` by `data` (with permissions `mode` and, where this
    process may give it, `owner`: user and group ids), whole or not at all.

    Raises:
        OSError: it cannot be written; `target` is as it was and nothing is left beside it.
    """
    staged = stage(target, data)
    try:
        if mode is not None:
            os.chmod(staged, mode)
        if owner is not None:
            with contextlib.suppress(OSError):  # only root may give a file to another user
                os.chown(staged, *owner)
        os.replace(staged, target)
    except BaseException:
        discard(staged)
        raise
    sync_folder(target.parent)


def stage(target: Path, data: bytes) -> Path:
    """`data` on disk (fsynced) under a temporary name beside `target`: that name.

    Raises:
        OSError: it cannot be written; nothing is left behind (after an interrupt neither).
    """
    temporary = temporary_name(target)
    try:
        with open(temporary, "xb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        discard(temporary)
        raise
    return temporary


def sync_folder(folder: Path) -> None:
    """Make the renames in `folder` durable.

    Why the errors are ignored: this only guards against a power cut (a kill never undoes a
    rename), and some systems cannot open or fsync a folder at all.
    """
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def discard(path: Path) -> None:
    """Remove `path` if it is there; a file that cannot be removed is left (nothing to add)."""
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def cannot_write(target: Path, error: OSError) -> UserError:
    """The one-line error for `error` while writing `target`, a user's path."""
    return UserError(f"cannot write {target}: {error.strerror or error}")
