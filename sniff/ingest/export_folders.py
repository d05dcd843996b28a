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
MACHINES = "machines"
"""A team folder's folder of machines' exports (`sniff export --team`): `machines/<name>/`."""
MACHINE_FILE = "machine.json"
"""A machine's record in a team folder: its names, first and last export times."""
UNKNOWN_FIRST = "~"
"""The first export time of a machine whose record does not say: sorts after every time."""


def is_export(path: Path) -> bool:
    """Whether `path` is a `sniff export` folder, the `requests` folder inside one, or a team
    folder (`is_team`)."""
    if not path.is_dir():
        return False
    if (path / MANIFEST).is_file() or is_team(path):
        return True
    return path.name == REQUESTS and (path.parent / MANIFEST).is_file()


def is_team(path: Path) -> bool:
    """Whether `path` is a team folder: a `machines/` folder holding a machine's export."""
    return bool(machine_exports(path))


def machine_exports(team: Path) -> list[Path]:
    """The machines' exports in a team folder, the first to export first (by `machine.json`'s
    first export time, then by name): a request two machines exported is credited to the
    earlier. None when `team` is no team folder.
    """
    try:
        names = sorted(os.listdir(team / MACHINES))
    except OSError:
        return []
    folders = [
        team / MACHINES / name for name in names if (team / MACHINES / name / MANIFEST).is_file()
    ]
    return sorted(folders, key=lambda folder: (_first_export(folder), folder.name))


def _first_export(folder: Path) -> str:
    try:
        return first_export_of(read_regular(folder / MACHINE_FILE, KEPT_FILE_BYTES))
    except OSError:
        return UNKNOWN_FIRST


def first_export_of(record: bytes) -> str:
    """A machine's first export time as its `machine.json` says (ISO, UTC: sorts as text);
    none sorts last."""
    try:
        loaded = json.loads(record)
    except ValueError:
        return UNKNOWN_FIRST
    first = loaded.get("first_export") if isinstance(loaded, dict) else None
    return first if isinstance(first, str) else UNKNOWN_FIRST


def is_machine_export(path: str) -> bool:
    """Whether the export at `path` (a folder or a store's URL) is a machine's in a team folder:
    `<team>/machines/<name>`."""
    return PurePosixPath(path.replace(os.sep, "/")).parent.name == MACHINES


def requests_folder(path: Path) -> Path:
    """The `requests` table of the export at `path` (see `is_export`)."""
    return path / REQUESTS if (path / MANIFEST).is_file() else path


def table_files(path: Path) -> list[Path]:
    """The Parquet files of the export's `requests` table, in a stable order.

    Those its manifest lists; for a manifest that lists none (written before manifests did),
    every Parquet file in the table's folder. A team folder's: each machine's, in turn.
    """
    if not (path / MANIFEST).is_file() and (path / MACHINES).is_dir():
        return [file for machine in machine_exports(path) for file in table_files(machine)]
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
        listed = listed_in(read_regular(root / MANIFEST, KEPT_FILE_BYTES))
    except OSError:
        return None
    if listed is None:
        return None
    return {table: [root / table / name for name in names] for table, names in listed.items()}


def listed_in(manifest: bytes) -> dict[str, list[str]] | None:
    """Each table's files a manifest lists, relative to the table's folder (None: it lists
    none, or is not a manifest of sniff's making)."""
    try:
        described = json.loads(manifest)
    except ValueError:
        return None
    files = described.get("files") if isinstance(described, dict) else None
    if not isinstance(files, dict):
        return None
    found: dict[str, list[str]] = {}
    for table, names in files.items():
        if not isinstance(names, list) or not all(map(_inside, names)):
            return None
        found[table] = names
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
