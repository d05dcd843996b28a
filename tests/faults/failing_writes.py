"""Write failures on demand, under one folder: a disk that fills up, a folder that refuses writes.

Why patched and not real: a real full disk needs a mount (no privilege for it here), and tests
run as root, whom `chmod` does not stop. So the failure is made at Python's file calls, the ones
every writer in sniff goes through (`open` for writing, and the calls that create, rename or
remove a name); files read, and everything outside the folder, are untouched. Where `chmod`
does stop this process (not root), the read-only folder is real and nothing is patched.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
from pathlib import Path
from typing import Any

import pytest

NAMING = ("mkdir", "replace", "rename", "unlink", "rmdir")
"""The `os` calls that change a folder's names."""


def _under(path: Any, root: Path) -> bool:
    try:
        return Path(os.fsdecode(path)).resolve().is_relative_to(root.resolve())
    except (TypeError, ValueError):  # a file descriptor, or no path at all
        return False


def _writes(mode: str) -> bool:
    return any(flag in mode for flag in "wxa+")


class _Filling(io.RawIOBase):
    """A file being written to a disk with `left[0]` bytes free; past them, `failure`."""

    def __init__(self, real: Any, left: list[int], failure: BaseException) -> None:
        super().__init__()
        self.real, self.left, self.failure = real, left, failure

    def write(self, data: Any) -> int:
        data = bytes(data)
        room = min(len(data), self.left[0])
        self.real.write(data[:room])
        self.left[0] -= room
        if room < len(data):
            raise self.failure
        return room

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return int(self.real.fileno())

    def flush(self) -> None:
        self.real.flush()

    def close(self) -> None:
        super().close()
        self.real.close()


def fill_disk(
    monkeypatch: pytest.MonkeyPatch, root: Path, free: int, failure: BaseException | None = None
) -> None:
    """Files written under `root` share `free` bytes; a write past them fails with ENOSPC
    (or `failure`, such as the KeyboardInterrupt of a Ctrl-C while writing)."""
    left = [free]
    failure = failure or OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    real_open = builtins.open

    def opened(
        file: Any,
        mode: str = "r",
        buffering: int = -1,
        encoding: str | None = None,
        errors: str | None = None,
        newline: str | None = None,
        *args: Any,
    ) -> Any:
        if not _writes(mode) or not _under(file, root):
            return real_open(file, mode, buffering, encoding, errors, newline, *args)
        binary = real_open(file, mode.replace("t", "") + ("" if "b" in mode else "b"), buffering=0)
        raw = _Filling(binary, left, failure)
        if "b" in mode:
            return raw
        text = io.BufferedWriter(raw)
        return io.TextIOWrapper(text, encoding or "utf-8", errors, newline)

    monkeypatch.setattr(builtins, "open", opened)
    monkeypatch.setattr(io, "open", opened)


def refuse_writes(monkeypatch: pytest.MonkeyPatch, root: Path, code: int = errno.EACCES) -> None:
    """Make `root` a folder whose contents cannot be changed, failing with `code`.

    By its mode where that binds this process; otherwise at Python's file calls.
    """
    for path in [root, *root.rglob("*")]:
        if path.is_dir():
            path.chmod(0o555)
    probe = root / ".probe"
    try:
        probe.touch()
    except OSError:
        return  # the mode is enough: a real read-only folder
    probe.unlink()

    def refused(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if any(_under(arg, root) for arg in args[:2] if not isinstance(arg, int)):
                if name in ("unlink", "rmdir") and not os.path.lexists(args[0]):
                    raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(args[0]))
                raise OSError(code, os.strerror(code), str(args[0]))
            return real(*args, **kwargs)

        return call

    for name in NAMING:
        monkeypatch.setattr(os, name, refused(name, getattr(os, name)))
    real_open = builtins.open

    def opened(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if _writes(mode) and _under(file, root):
            raise OSError(code, os.strerror(code), str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", opened)
    monkeypatch.setattr(io, "open", opened)


def writable_again(root: Path) -> None:
    """Undo `refuse_writes`'s modes, so the test's folder can be removed."""
    for path in [root, *root.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` (hidden ones too) and its bytes."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }
