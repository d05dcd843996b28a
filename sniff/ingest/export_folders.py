"""Provides finding `sniff export` folders among paths, and their identity.

Apart from reading them (`parquet_in`) because discovery runs at every start: it must not import
the records, msgspec or pyarrow.
"""

from __future__ import annotations

import os
from pathlib import Path

MANIFEST = "sniff-export.json"
"""The file that marks a folder as an export (`sniff.export.writer.MANIFEST`)."""
REQUESTS = "requests"
"""The table read back; the others derive from it."""


def is_export(path: Path) -> bool:
    """Whether `path` is a `sniff export` folder, or the `requests` folder inside one."""
    if not path.is_dir():
        return False
    if (path / MANIFEST).is_file():
        return True
    return path.name == REQUESTS and (path.parent / MANIFEST).is_file()


def requests_folder(path: Path) -> Path:
    """The `requests` table of the export at `path` (see `is_export`)."""
    return path / REQUESTS if (path / MANIFEST).is_file() else path


def table_files(path: Path) -> list[Path]:
    """The Parquet files of the export's `requests` table, in a stable order."""
    found: list[Path] = []
    for directory, subdirs, files in os.walk(requests_folder(path)):
        subdirs.sort()
        found.extend(Path(directory, name) for name in sorted(files) if name.endswith(".parquet"))
    return found


def identity(path: Path) -> tuple[int, int]:
    """(size, modification time in ns) of the export as a whole, for the index and answers.

    The bytes of its manifest and Parquet files, and the latest modification of any of them or
    of the folders holding them: a file rewritten, added or removed changes one or the other.

    Raises:
        OSError: the export vanished while being looked at.
    """
    root = path if (path / MANIFEST).is_file() else path.parent
    status = (root / MANIFEST).stat()
    size, latest = status.st_size, status.st_mtime_ns
    for directory, _, files in os.walk(requests_folder(path)):
        latest = max(latest, os.stat(directory).st_mtime_ns)
        for name in files:
            status = os.stat(os.path.join(directory, name))
            size += status.st_size
            latest = max(latest, status.st_mtime_ns)
    return size, latest
