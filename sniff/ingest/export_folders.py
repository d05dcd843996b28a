"""Provides finding `sniff export` folders among paths, their identity, and the files they hold.

Apart from reading them (`parquet_in`) because discovery runs at every start: it must not import
the records, msgspec or pyarrow.
"""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath

from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular

MANIFEST = "sniff-export.json"
"""The file that marks a folder as an export and lists its files (`sniff.export.layout`)."""
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
    """The Parquet files of the export's `requests` table, in a stable order.

    Those its manifest lists; for a manifest that lists none (written before manifests did),
    every Parquet file in the table's folder.
    """
    folder = requests_folder(path)
    listed = manifest_files(folder.parent)
    return walk_table(folder) if listed is None else listed.get(REQUESTS, [])


def manifest_files(root: Path) -> dict[str, list[Path]] | None:
    """The files of each table that the manifest of the export at `root` lists.

    Why the manifest and not the folder: a merge writes its files beside the old ones and
    switches the manifest, then removes the old files, so the manifest always names one whole
    export. None when it lists no files (an older export, or a manifest not of sniff's making).
    """
    try:
        described = json.loads(read_regular(root / MANIFEST, KEPT_FILE_BYTES))
    except (OSError, ValueError):
        return None
    files = described.get("files") if isinstance(described, dict) else None
    if not isinstance(files, dict):
        return None
    found: dict[str, list[Path]] = {}
    for table, names in files.items():
        if not isinstance(names, list) or not all(map(_inside, names)):
            return None
        found[table] = [root / table / name for name in names]
    return found


def walk_table(folder: Path) -> list[Path]:
    """Every Parquet file under a table's folder, in a stable order, temporary files aside."""
    found: list[Path] = []
    for directory, subdirs, files in os.walk(folder):
        subdirs.sort()
        found.extend(
            Path(directory, name)
            for name in sorted(files)
            if name.endswith(".parquet") and not name.startswith((".", "_"))
        )
    return found


def _inside(name: object) -> bool:
    """Whether a manifest's entry names a Parquet file inside its table's folder."""
    if not isinstance(name, str) or not name.endswith(".parquet"):
        return False
    relative = PurePosixPath(name)
    return not relative.is_absolute() and ".." not in relative.parts


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
