"""Provides sniff exports kept in a store (`s3://bucket/team`): the exports a URL holds, in the
order their requests are credited, and the files each one's manifest lists.

A store has no folders to lock or rename, so it is read by the manifests alone: an export
switches its manifest last (`sniff.export.stored`), and a reader that follows the manifest
sees the old export or the new one, whatever objects were written or left beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sniff.ingest.export_folders import (
    MACHINE_FILE,
    MACHINES,
    MANIFEST,
    REQUESTS,
    UNKNOWN_FIRST,
    first_export_of,
    listed_in,
)
from sniff.ingest.files import remote


@dataclass(frozen=True, slots=True)
class StoredExport:
    """One export in a store: its URL and its manifest's bytes (what tells it changed)."""

    url: str
    manifest: bytes


def exports_at(url: str) -> list[StoredExport]:
    """The exports at `url`: itself when it holds a manifest, else each machine's of a team
    (`<url>/machines/<name>/`), the first to export first (then by name). None: it holds none.

    Raises:
        OSError: the store cannot be listed or read.
    """
    names = remote.names_in(url)
    if MANIFEST in names:
        return [StoredExport(url, remote.read(remote.joined(url, MANIFEST)))]
    if MACHINES not in names:
        return []
    found: list[tuple[str, str, StoredExport]] = []
    for name in remote.names_in(remote.joined(url, MACHINES)):
        machine = remote.joined(url, MACHINES, name)
        try:
            manifest = remote.read(remote.joined(machine, MANIFEST))
        except FileNotFoundError:  # a machine whose first export never finished
            continue
        try:
            first = first_export_of(remote.read(remote.joined(machine, MACHINE_FILE)))
        except FileNotFoundError:
            first = UNKNOWN_FIRST
        found.append((first, name, StoredExport(machine, manifest)))
    return [export for _, _, export in sorted(found, key=lambda each: each[:2])]


def table_files(url: str, table: str = REQUESTS) -> list[str]:
    """The URLs of the files of `table` the manifest of the export at `url` lists.

    Raises:
        OSError: the manifest cannot be read.
    """
    listed = listed_in(remote.read(remote.joined(url, MANIFEST))) or {}
    return [remote.joined(url, table, name) for name in listed.get(table, [])]
