"""Provides `export`: write (or merge into) a directory of Parquet tables partitioned by day.

Layout (`layout`): `DIR/<table>/day=YYYY-MM-DD/part-<digest>.parquet` for the tables
`requests`, `sessions`, `breaks` and `blocks`, and `DIR/sniff-export.json` listing them. Rows
have stable keys (the provider's request id), so exporting into a directory that already holds
an export merges: one row per request key, sessions and breaks derived again from the union.
Exporting the same logs twice, or two overlapping folders one after the other, gives the rows of
one export of the union. A merge that is killed or fails leaves the earlier export as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sniff.analyses.cache.breaks import find_breaks
from sniff.analyses.cost.summary import summarize
from sniff.errors import UserError
from sniff.export import layout
from sniff.export.tables import (
    blocks_table,
    breaks_table,
    read_requests,
    requests_table,
    sessions_table,
)
from sniff.ingest.export_folders import MANIFEST
from sniff.ingest.files import remote
from sniff.model import Request
from sniff.pricing import PriceBook


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What an export wrote."""

    destination: str
    """The folder, or the store's URL."""
    rows: dict[str, int]
    added: int
    """Requests that were not in the directory before."""
    kept: int
    """Requests given that were already there."""


def export(
    directory: Path,
    requests: list[Request],
    prices: PriceBook,
    stamp: Mapping[str, str] | None = None,
) -> ExportResult:
    """Write the requests (merged with any export already in `directory`) and what derives.

    `stamp`: columns of the `requests` table given one value in every row (a team export's
    `machine` and `user`).

    Raises:
        UserError: `directory` is a file, holds something that is not a sniff export or a file
            of its export that cannot be read, or cannot be written (it is then as it was).
    """
    with layout.locked(directory):
        existing = read_export(directory)
        if not (directory / MANIFEST).is_file():
            layout.commit(directory, {})  # an export from the start, should this one be killed
        tables = merged_tables(existing, requests, prices, stamp or {})
        layout.commit(directory, tables)
    return result(str(directory), tables, existing, requests)


def merged_tables(
    existing: list[Request], requests: list[Request], prices: PriceBook, stamp: Mapping[str, str]
) -> dict[str, pa.Table]:
    """The tables of an export of `existing` and `requests` merged by request key (see the
    module docstring), the `requests` table's `stamp` columns given one value in every row."""
    ordered = sorted(_union(existing, requests).values(), key=lambda r: (r.ended_at, r.key))
    return {
        "requests": _stamped(requests_table(ordered), stamp),
        "sessions": sessions_table(summarize(ordered, UTC).sessions),
        "breaks": breaks_table(find_breaks(ordered, prices, zone=UTC).breaks),
        "blocks": blocks_table(ordered),
    }


def result(
    where: str, tables: Mapping[str, pa.Table], existing: list[Request], requests: list[Request]
) -> ExportResult:
    """What an export of `requests` into one holding `existing` wrote as `tables`."""
    known = {r.key for r in existing}
    added = sum(1 for r in requests if r.key not in known)
    rows = {name: table.num_rows for name, table in tables.items()}
    return ExportResult(where, rows, added, len(requests) - added)


def read_export(directory: Path) -> list[Request]:
    """The requests of an export directory (none when it does not exist or is empty).

    Raises:
        UserError: it is a file, a non-empty directory that is not a sniff export, or an export
            with a file that cannot be read (merging into it would lose that file's rows).
    """
    if not directory.exists():
        return []
    if not directory.is_dir():
        raise UserError(f"not a directory: {directory}")
    if not (directory / MANIFEST).is_file():
        if any(directory.iterdir()):
            raise UserError(f"{directory} is not empty and holds no sniff export: choose another")
        return []
    return requests_in(str(directory), layout.files_of(directory))


def requests_in(where: str, files: Mapping[str, Sequence[Path | str]]) -> list[Request]:
    """The requests (with their prompt blocks) of an export's files, each table's on disk or
    a store's URLs (`remote`); `where` names the export in errors.

    Raises:
        UserError: a file cannot be read (merging into the export would lose its rows).
    """
    requests = _read(where, files.get("requests", []))
    if requests is None:
        return []
    return read_requests(requests, _read(where, files.get("blocks", [])))


def _stamped(table: pa.Table, stamp: Mapping[str, str]) -> pa.Table:
    """`table` with each column `stamp` names holding its one value in every row."""
    for name, value in stamp.items():
        index = table.schema.get_field_index(name)
        column = pa.array([value] * table.num_rows, pa.string())
        table = table.set_column(index, name, column)
    return table


def _union(old: list[Request], new: list[Request]) -> dict[str, Request]:
    """One request per key; where both have it, the fuller copy (then the first by file)."""
    merged: dict[str, Request] = {}
    for request in [*old, *new]:
        held = merged.get(request.key)
        if held is None or _rank(request) < _rank(held):
            merged[request.key] = request
    return merged


def _rank(request: Request) -> tuple[int, int, str, int]:
    return (-request.usage.total_tokens, -len(request.blocks), request.file, request.line)


def _read(where: str, files: Sequence[Path | str]) -> pa.Table | None:
    """One table of the files' rows (None for no file).

    Raises:
        UserError: one cannot be read.
    """
    if not files:
        return None
    parts = []
    for file in files:
        try:
            source = pa.BufferReader(remote.read(file)) if isinstance(file, str) else file
            with pq.ParquetFile(source) as parquet:
                parts.append(parquet.read())
        except (OSError, ValueError) as error:  # pyarrow's errors derive from these
            reason = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
            raise UserError(
                f"cannot merge into {where}: {file} cannot be read ({reason}); "
                "export to another place"
            ) from error
    return pa.concat_tables(parts, promote_options="default")
