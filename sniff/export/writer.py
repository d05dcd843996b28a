"""Provides `export`: write (or merge into) a directory of Parquet tables partitioned by day.

Layout: `DIR/<table>/day=YYYY-MM-DD/part-0.parquet` for the tables `requests`, `sessions`,
`breaks` and `blocks`, and `DIR/sniff-export.json` describing them. Rows have stable keys (the
provider's request id), so exporting into a directory that already holds an export merges: one
row per request key, sessions and breaks derived again from the union. Exporting the same logs
twice, or two overlapping folders one after the other, gives the rows of one export of the union.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from sniff import __version__
from sniff.analyses.breaks import find_breaks
from sniff.analyses.summary import summarize
from sniff.errors import UserError
from sniff.export.tables import (
    blocks_table,
    breaks_table,
    read_requests,
    requests_table,
    sessions_table,
)
from sniff.model import Request
from sniff.pricing import PriceBook

MANIFEST = "sniff-export.json"
FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What an export wrote."""

    directory: Path
    rows: dict[str, int]
    added: int
    """Requests that were not in the directory before."""
    kept: int
    """Requests given that were already there."""


def export(directory: Path, requests: list[Request], prices: PriceBook) -> ExportResult:
    """Write the requests (merged with any export already in `directory`) and what derives.

    Raises:
        UserError: `directory` is a file, or holds something that is not a sniff export.
    """
    existing = read_export(directory)
    merged = _union(existing, requests)
    ordered = sorted(merged.values(), key=lambda r: (r.ended_at, r.key))
    tables = {
        "requests": requests_table(ordered),
        "sessions": sessions_table(summarize(ordered, UTC).sessions),
        "breaks": breaks_table(find_breaks(ordered, prices, zone=UTC).breaks),
        "blocks": blocks_table(ordered),
    }
    directory.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        _write(directory / name, table)
    rows = {name: table.num_rows for name, table in tables.items()}
    manifest = {
        "format": "sniff-export",
        "version": FORMAT_VERSION,
        "sniff": __version__,
        "partitioning": "hive, by UTC day: <table>/day=YYYY-MM-DD/part-0.parquet",
        "rows": rows,
    }
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    known = {r.key for r in existing}
    added = sum(1 for r in requests if r.key not in known)
    return ExportResult(directory, rows, added, len(requests) - added)


def read_export(directory: Path) -> list[Request]:
    """The requests of an export directory (none when it does not exist or is empty).

    Raises:
        UserError: it is a file, or a non-empty directory that is not a sniff export.
    """
    if not directory.exists():
        return []
    if not directory.is_dir():
        raise UserError(f"not a directory: {directory}")
    if not (directory / MANIFEST).is_file():
        if any(directory.iterdir()):
            raise UserError(f"{directory} is not empty and holds no sniff export: choose another")
        return []
    requests = _read(directory / "requests")
    if requests is None:
        return []
    return read_requests(requests, _read(directory / "blocks"))


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


def _write(folder: Path, table: pa.Table) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    if table.num_rows == 0:
        return
    pq.write_to_dataset(
        table,
        folder,
        partition_cols=["day"],
        basename_template="part-{i}.parquet",
        existing_data_behavior="delete_matching",
    )


def _read(folder: Path) -> pa.Table | None:
    if not folder.is_dir() or not any(folder.rglob("*.parquet")):
        return None
    return pq.read_table(folder, partitioning="hive")
