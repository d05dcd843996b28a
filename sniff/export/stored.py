"""Provides a machine's export into a team folder kept in a store (`s3://bucket/team`).

The layout is a team folder's (`<url>/machines/<machine>/`, the tables as `layout` names their
files, the manifest, `machine.json`), written so that a reader never sees a part of an export
though a store renames nothing atomically:
1. the files the manifest does not list yet are put, whole (a put is atomic; a file's name is
   the digest of its bytes, so one already there is the same and is not put again);
2. the manifest is put: readers follow it (`ingest.remote_exports`), so it is the switch;
3. `machine.json` is put (its last export time moves only once the export is in);
4. only then are the files the manifest no longer lists deleted, with what a killed export left.
A kill anywhere leaves the earlier manifest, every file it lists, and perhaps objects no
manifest lists, which the next export deletes.

Machines write only under their own folder, so machines export at once without touching each
other's objects. One export of a machine at a time is held by a lock in this machine's config
folder: two at once could delete the files of each other's manifest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sniff.errors import UserError
from sniff.export import layout
from sniff.export.writer import ExportResult, merged_tables, requests_in, result
from sniff.ingest.export_folders import MACHINE_FILE, MACHINES, MANIFEST, listed_in
from sniff.ingest.files import remote

if TYPE_CHECKING:
    import pyarrow as pa

    from sniff.model import Request
    from sniff.pricing import PriceBook

LOCKS = "export-locks"
"""The folder of the config folder holding the lock of each store folder this machine exports
to."""


Record = Callable[[bytes | None, bool], bytes | None]
"""(the machine's `machine.json` before, whether the export changed) → its bytes after, or None
when the old one holds (`team.machine_record`)."""


def export_stored(
    team: str,
    requests: list[Request],
    prices: PriceBook,
    machine: str,
    stamp: Mapping[str, str],
    record: Record,
) -> ExportResult:
    """Merge `requests` into `machine`'s export in the team folder at the store URL `team`, as
    the module docstring says; its rows stamped with `stamp`, its `machine.json` as `record`
    makes it.

    Raises:
        UserError: `team` holds something that is not a team folder, an object of the
            machine's export cannot be read, or the store refuses a write (the export is then as
            it was).
    """
    folder = remote.joined(team, MACHINES, machine)
    with _locked(folder):
        try:
            names = remote.names_in(team)
            if names and MACHINES not in names:
                raise UserError(f"{team} is not empty and holds no team export: choose another")
            old_manifest = _read_or_none(remote.joined(folder, MANIFEST))
            existing = _requests(folder, old_manifest)
            tables = merged_tables(existing, requests, prices, stamp)
            _commit(folder, tables, old_manifest, record)
        except OSError as error:
            raise UserError(f"cannot export to {team}: {error} (its export is as it was)") from None
    return result(team, tables, existing, requests)


def last_export(team: str, machine: str) -> bytes | None:
    """The bytes of `machine.json` of `machine` in the store's team folder (None: none).

    Raises:
        UserError: the store cannot be read.
    """
    try:
        return _read_or_none(remote.joined(team, MACHINES, machine, MACHINE_FILE))
    except OSError as error:
        raise UserError(f"cannot read {team}: {error}") from None


def _commit(
    folder: str, tables: Mapping[str, pa.Table], old_manifest: bytes | None, record: Record
) -> None:
    """Steps 1 to 4 of the module docstring.

    Raises:
        OSError: the store refused a read or a write.
    """
    files: dict[str, list[str]] = {}
    made = layout.encoded(tables, files)
    held = _listed(old_manifest)
    new = [(f"{name}/{relative}", data) for name, relative, data in made]
    layout.in_parallel(
        lambda each: remote.write(remote.joined(folder, each[0]), each[1]),
        [(name, data) for name, data in new if name not in held],
    )
    manifest = layout.manifest(tables, files)
    if manifest != old_manifest:
        remote.write(remote.joined(folder, MANIFEST), manifest)
    kept = record(_read_or_none(remote.joined(folder, MACHINE_FILE)), manifest != old_manifest)
    if kept is not None:
        remote.write(remote.joined(folder, MACHINE_FILE), kept)
    listed = {name for name, _ in new}
    left = [
        name
        for name in remote.files_under(folder)
        if name not in listed and name.rsplit("/", 1)[-1].startswith("part-")
    ]
    remote.remove(folder, left)


def _requests(folder: str, manifest: bytes | None) -> list[Request]:
    """The requests of the machine's export the manifest lists (none without one).

    Raises:
        UserError: a file it lists cannot be read (merging would lose its rows).
    """
    listed = listed_in(manifest) if manifest is not None else None
    files = {
        table: [remote.joined(folder, table, name) for name in names]
        for table, names in (listed or {}).items()
    }
    return requests_in(folder, files)


def _listed(manifest: bytes | None) -> set[str]:
    """The files (`<table>/<relative name>`) a manifest lists."""
    listed = listed_in(manifest) if manifest is not None else None
    return {f"{table}/{name}" for table, names in (listed or {}).items() for name in names}


def _read_or_none(url: str) -> bytes | None:
    """An object's bytes, None when there is none.

    Raises:
        OSError: the store refused the read.
    """
    try:
        return remote.read(url)
    except FileNotFoundError:
        return None


@contextmanager
def _locked(folder: str) -> Iterator[None]:
    """The machine's folder in the store, exported to by this process alone while the block
    runs (a lock file in this machine's config folder, named by the folder's URL).

    Raises:
        UserError: another export of this machine is writing there, or the lock cannot be made.
    """
    from sniff.atomic_write import cannot_write
    from sniff.paths import config_folder

    name = hashlib.blake2b(folder.encode(), digest_size=12).hexdigest()
    lock = config_folder() / LOCKS / f"{name}.lock"
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.touch()
    except OSError as error:
        raise cannot_write(lock, error) from error
    with layout.held(lock, named=folder):
        yield
