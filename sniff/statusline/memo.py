"""Provides `remembered`: a session's numbers kept for as long as its files are unchanged.

Why: Claude Code runs the status line every few seconds, mostly while the transcript has not
grown; then the numbers are those of the last run, and reading them back skips the index, the
workspace and their imports. The key is the files' identities (size, modification time, inode),
the kept prices, and sniff's own code (`paths.identity`), so a grown transcript, a new subagent,
newly kept prices or an upgraded sniff is read again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import msgspec

from sniff import atomic_write
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.paths import cache_folder
from sniff.statusline.session import SessionNumbers, session_files

MEMO_FILE = "statusline-session.json"


class _Memo(msgspec.Struct, frozen=True):
    key: list[list[str | int]]
    numbers: SessionNumbers | None


def memo_key(transcript: Path, session_id: str | None) -> list[list[str | int]]:
    """What the numbers depend on: the session and each of its files' identity."""
    from sniff.paths import identity
    from sniff.price_table import CACHE_FILE

    key: list[list[str | int]] = [[session_id or "", identity("statusline", 1)]]
    folder = cache_folder()
    prices = None if folder is None else folder / CACHE_FILE
    if prices is not None and prices.is_file():  # prices kept since may price more models
        key.append(["prices", prices.stat().st_size, prices.stat().st_mtime_ns, 0])
    for path in session_files(transcript):
        paths = [path] if path.is_file() else sorted(path.rglob("*.jsonl"))
        for file in paths:
            status = file.stat()
            key.append([str(file), status.st_size, status.st_mtime_ns, status.st_ino])
    return key


def remembered(
    transcript: Path,
    session_id: str | None,
    work_out: Callable[[Path, str | None], SessionNumbers | None],
) -> SessionNumbers | None:
    """The session's numbers: kept ones while its files are unchanged, else `work_out`'s."""
    folder = cache_folder()
    key = memo_key(transcript, session_id)
    path = None if folder is None else folder / MEMO_FILE
    if path is not None:
        try:
            kept = msgspec.json.decode(read_regular(path, KEPT_FILE_BYTES), type=_Memo)
            if kept.key == key:
                return kept.numbers
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            pass
    numbers = work_out(transcript, session_id)
    if path is not None:
        try:
            os.makedirs(path.parent, exist_ok=True)
            atomic_write.replace(path, msgspec.json.encode(_Memo(key, numbers)))
        except OSError:
            pass
    return numbers
