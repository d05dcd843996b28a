"""Provides an export's files on disk, changed so that no reader ever sees a part of one.

Layout: `DIR/<table>/day=YYYY-MM-DD/part-<digest>.parquet` (hive partitions by UTC day; the
digest is of the file's bytes) and `DIR/sniff-export.json`, the manifest, which lists every
file of every table.

`commit` never changes a file in place:
1. each new file is written under a temporary name beside its final one and fsynced (a file
   whose bytes the export holds already keeps its name and is not written again);
2. the new files are renamed to their final names, and their folders fsynced;
3. the manifest is replaced the same way (`atomic_write.replace`);
4. only then are the files it no longer lists removed, with whatever a killed merge left.
So a reader that follows the manifest sees the old export or the new one, and a reader that
globs the folders sees whole files holding every earlier row: a request can show twice only
between steps 2 and 4 (and, after a merge killed there, until the next export). One merge at a
time writes to a folder (`locked`), so none removes the files of another.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sniff.atomic_write import cannot_write, discard, is_temporary, replace, stage, sync_folder
from sniff.errors import UserError
from sniff.ingest.export_folders import MANIFEST, manifest_files, walk_table
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.version import __version__

TABLES = ("requests", "sessions", "breaks", "blocks")
FORMAT_VERSION = 2
"""2: the manifest lists each table's files (`files`), named by the digest of their bytes."""
PARTITION = "day"
THREADS = 8
"""Files encoded or fsynced at once: pyarrow encodes outside the interpreter's lock, and a disk
commits the fsyncs that wait together in one go."""
T = TypeVar("T")
R = TypeVar("R")


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """`directory`, created if need be, written by this process alone while the block runs.

    A directory this call created is removed again when the block fails before an export with
    rows was committed to it, so a failed first export leaves nothing behind.

    Raises:
        UserError: it cannot be created, or another export is writing to it.
    """
    created = not directory.exists()
    if not created and not directory.is_dir():
        raise UserError(f"not a directory: {directory}")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise cannot_write(directory, error) from error
    try:
        with held(directory):
            yield
    except BaseException:
        if created and not any(files_of(directory).values()):
            shutil.rmtree(directory, ignore_errors=True)
        raise


def files_of(directory: Path) -> dict[str, list[Path]]:
    """Each table's files: those the manifest lists, or (an older export) all in its folder."""
    listed = manifest_files(directory)
    if listed is not None:
        return listed
    return {name: walk_table(directory / name) for name in TABLES}


def commit(directory: Path, tables: Mapping[str, pa.Table]) -> None:
    """Make `tables` the export in `directory`, as the module docstring says.

    Raises:
        UserError: a file cannot be written (a full disk, a read-only folder); the export in
            `directory` is then as it was, and nothing of this commit is left.
    """
    held = {file for files in files_of(directory).values() for file in files}
    sweep(directory, held)  # what a killed merge left
    files: dict[str, list[str]] = {}
    try:
        staged = _stage_tables(directory, tables, held, files)
        for temporary, final in staged:
            os.replace(temporary, final)
        folders = {final.parent for _, final in staged} | {directory / name for name in tables}
        in_parallel(sync_folder, folders)
        _write_manifest(directory, tables, files)
    except BaseException as error:
        # keep what the manifest on disk lists: an interrupt may come just after it switched
        sweep(directory, _committed(directory, held))
        if isinstance(error, OSError):
            raise UserError(
                f"cannot write {directory}: {error.strerror or error} (nothing in it was changed)"
            ) from error
        raise
    sweep(directory, _committed(directory, held))


def sweep(directory: Path, keep: set[Path]) -> None:
    """Remove the export's files that `keep` does not hold, temporary files, empty day folders.

    Only names an export writes are removed: anything else in the folders is left as it is.
    """
    for name in TABLES:
        for folder, _, names in os.walk(directory / name, topdown=False):
            for file in names:
                path = Path(folder, file)
                if _written_here(file) and path not in keep:
                    discard(path)
            if Path(folder).name.startswith(f"{PARTITION}="):
                with contextlib.suppress(OSError):  # not empty: still in use
                    os.rmdir(folder)
    with contextlib.suppress(OSError):
        for file in os.listdir(directory):
            if is_temporary(file, f"{MANIFEST}."):
                discard(directory / file)


def _committed(directory: Path, held: set[Path]) -> set[Path]:
    """The files of the export the manifest on disk describes (`held`: its files before)."""
    listed = manifest_files(directory)
    return held if listed is None else {file for files in listed.values() for file in files}


def _stage_tables(
    directory: Path, tables: Mapping[str, pa.Table], held: set[Path], files: dict[str, list[str]]
) -> list[tuple[Path, Path]]:
    """Each new file written under its temporary name: (temporary, final) pairs.

    Fills `files` with each table's files, relative to its folder, as the manifest lists them.

    Raises:
        OSError: one cannot be written (the ones staged before are swept by the caller).
    """
    new: list[tuple[Path, bytes]] = []
    for name in tables:
        (directory / name).mkdir(exist_ok=True)
    for name, relative, data in encoded(tables, files):
        final = directory / name / relative
        if final not in held:  # the same name is the same bytes
            final.parent.mkdir(exist_ok=True)
            new.append((final, data))
    temporaries = in_parallel(lambda pair: stage(*pair), new)
    return [(temporary, final) for temporary, (final, _) in zip(temporaries, new, strict=True)]


def encoded(
    tables: Mapping[str, pa.Table], files: dict[str, list[str]]
) -> list[tuple[str, str, bytes]]:
    """(table, file name relative to its folder, bytes) of each file the tables make: one per
    table and day, named by the digest of its bytes. Fills `files` as the manifest lists them.
    """
    parts = [
        (name, day, part) for name, table in tables.items() for day, part in _partitions(table)
    ]
    data = in_parallel(lambda named: _encode(named[2]), parts)
    found: list[tuple[str, str, bytes]] = []
    for name in tables:
        files[name] = []
    for (name, day, _), bytes_ in zip(parts, data, strict=True):
        digest = hashlib.blake2b(bytes_, digest_size=8).hexdigest()
        relative = f"{PARTITION}={day}/part-{digest}.parquet"
        files[name].append(relative)
        found.append((name, relative, bytes_))
    return found


def in_parallel(function: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """`function` of each item, in order, on `THREADS` threads.

    Raises:
        Exception: the first that `function` raised, once every call begun has ended.
    """
    pool = ThreadPoolExecutor(max_workers=THREADS)
    try:
        return list(pool.map(function, items))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _write_manifest(
    directory: Path, tables: Mapping[str, pa.Table], files: dict[str, list[str]]
) -> None:
    """The manifest of the export `files` make up, replaced only if it says something new."""
    data = manifest(tables, files)
    with contextlib.suppress(OSError):
        if read_regular(directory / MANIFEST, KEPT_FILE_BYTES) == data:
            return
    replace(directory / MANIFEST, data)


def manifest(tables: Mapping[str, pa.Table], files: dict[str, list[str]]) -> bytes:
    """The bytes of the manifest of the export `files` (each table's, as `encoded` names them)
    make up: the same export, the same bytes."""
    described = {
        "format": "sniff-export",
        "version": FORMAT_VERSION,
        "sniff": __version__,
        "partitioning": "hive, by UTC day: <table>/day=YYYY-MM-DD/part-<digest>.parquet",
        "rows": {name: table.num_rows for name, table in tables.items()},
        "files": files,
    }
    return (json.dumps(described, indent=2) + "\n").encode()


def _partitions(table: pa.Table) -> Iterator[tuple[str, pa.Table]]:
    """(day, its rows without the day column) for each day of the table, in order."""
    table = table.take(pc.sort_indices(table, [(PARTITION, "ascending")]))  # stable
    runs = pc.run_end_encode(table.column(PARTITION).combine_chunks())
    body = table.drop_columns([PARTITION])
    start = 0
    for end, day in zip(runs.run_ends.to_pylist(), runs.values.to_pylist(), strict=True):
        yield day, body.slice(start, end - start)
        start = end


def _encode(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def _written_here(name: str) -> bool:
    """Whether a file name is one an export writes: a part file, or a temporary one of them."""
    return name.startswith("part-") and name.endswith(".parquet") or is_temporary(name, "part-")


@contextlib.contextmanager
def held(directory: Path, named: str | None = None) -> Iterator[None]:
    """Hold `directory` (or a file) for this process while the block runs, or fail at once if
    another does. `named`: what the user knows it as, when not by its path.

    Raises:
        UserError: another export is writing to it.
    """
    try:
        import fcntl
    except ImportError:  # no folder locks on Windows: one export at a time is then up to the user
        yield
        return
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError as error:
        raise cannot_write(directory, error) from error
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise UserError(
            f"another sniff export is writing to {named or directory}: try again when it is done"
        ) from None
    except OSError:  # a file system without locks (some network ones): go on, as before
        pass
    try:
        yield
    finally:
        os.close(descriptor)
