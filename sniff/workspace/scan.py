"""Provides `scan_units`: `sniff scan`'s numbers from the index, re-analysing only what changed.

The files are grouped into units that share nothing (`ingest.units`); each unit's part of the
scan (`analyses.scan_parts`) is kept in the index under the identity of its files and of every
option and piece of data the part depends on. A run after a few files grew re-parses those
files from where they ended, re-analyses their units, and joins every other unit's kept part:
the result is exactly that of analysing everything, because no call, session or chain crosses
a unit.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from sniff.analyses.breaks import CacheRules
from sniff.analyses.filters import Filters
from sniff.analyses.scan_parts import BreakDigest, decode_part, encode_part, join, scan_part
from sniff.analyses.summary import Summary
from sniff.ingest.discover import SourceFile, expand, roots_for
from sniff.ingest.index_store import IndexStore
from sniff.ingest.indexed import IndexedFiles
from sniff.ingest.merge import merge
from sniff.ingest.parallel import collector_paused, map_balanced
from sniff.ingest.reading import account
from sniff.ingest.record import Prompts
from sniff.ingest.units import units
from sniff.model import Dataset
from sniff.paths import identity, price_data_identity
from sniff.pricing import PriceBook

PARALLEL_ANALYSIS_BYTES = 32 * 1024 * 1024
"""Below this much log to analyse again, forking workers would cost more than it saves."""


@dataclass(frozen=True, slots=True)
class ScanNumbers:
    """What `sniff scan` prints: the summary, the breaks' digest, and an account of the files."""

    summary: Summary
    breaks: BreakDigest
    dataset: Dataset
    """Files, formats and issues; its `requests` are left empty (the parts hold the numbers)."""


@collector_paused()  # (see there) joining and keeping parts build many objects too
def scan_units(
    paths: list[Path] | None,
    store: IndexStore,
    prices: PriceBook,
    filters: Filters,
    zone: tzinfo,
    *,
    log_format: str | None = None,
    with_prompts: Prompts = Prompts.SIZED,
    scope: str,
    files: list[SourceFile] | None = None,
) -> ScanNumbers:
    """The scan of the logs under `paths` (see the module docstring).

    Args:
        scope: identifies everything besides the files that parts depend on (options, price
            data, sniff's code); the folders read are added to it here. Parts of another
            scope are never used.
        files: the log files under `paths`, when the caller listed them already (a kept
            answer's key was made from exactly these).
    """
    roots, sample = roots_for(paths)
    scope = _within(scope, roots)
    files = files if files is not None else expand(roots)
    indexed = IndexedFiles(
        files,
        store,
        roots=[str(root) for root in roots],
        log_format=log_format,
        with_prompts=with_prompts,
        while_waiting=prices.prepare,
    )
    groups = units([indexed.links(index) for index in range(len(files))])
    keys = [_unit_key(indexed, group) for group in groups]
    kept = store.parts(scope, [key for key in keys if key is not None])
    rules = CacheRules()
    found = [decode_part(kept[key]) if key in kept else None for key in keys]
    todo = [index for index, part in enumerate(found) if part is None]

    def analyse(position: int) -> bytes:
        """A unit's part, encoded where it is made: as it is kept, and as it travels."""
        group = groups[todo[position]]
        responses = [r for index in group for r in indexed.result(index).responses]
        part = scan_part(merge(responses, prices.cost), prices, zone, filters.keep, rules)
        return encode_part(part)

    sizes = [sum(indexed.entry(index).size for index in groups[unit]) for unit in todo]
    new: dict[str, bytes] = {}
    analysed = map_balanced(
        analyse, list(range(len(todo))), sizes, minimum=PARALLEL_ANALYSIS_BYTES, inherit=True
    )
    for unit, encoded in zip(todo, analysed, strict=True):
        found[unit] = decode_part(encoded)
        key = keys[unit]
        if key is not None:
            new[key] = encoded
    parts = [part for part in found if part is not None]
    store.keep_parts(scope, new, {key for key in keys if key is not None})
    prices.save()  # the price tables resolved for this run, for the next one
    summary, breaks = join(parts)
    dataset = _account(indexed, tuple(str(root) for root in roots), sample)
    return ScanNumbers(summary, breaks, dataset)


def scan_scope(**options: object) -> str:
    """The scope of parts: the options given plus the price data (and sniff's version and code:
    `paths.identity`)."""
    return identity("scan", sorted((name, str(value)) for name, value in options.items()),
                    price_data_identity())  # fmt: skip


def _within(scope: str, roots: list[Path]) -> str:
    """The scope of one set of folders: a scan of others must not forget this one's parts."""
    digest = hashlib.sha256(scope.encode())
    digest.update(json.dumps(sorted(os.path.abspath(root) for root in roots)).encode())
    return digest.hexdigest()[:32]


def _unit_key(indexed: IndexedFiles, group: list[int]) -> str | None:
    """The identity of a unit's files; None when one changed too recently to be trusted."""
    digest = hashlib.sha256()
    for index in group:
        entry = indexed.entry(index)
        if entry.mtime_ns < 0:  # stored as never matching: see `discover.RACY_NS`
            return None
        digest.update(f"{entry.path}\0{entry.identity}\0".encode())
    return digest.hexdigest()[:32]


def _account(indexed: IndexedFiles, roots: tuple[str, ...], sample: bool) -> Dataset:
    """The dataset's account of files, formats and issues, in file order."""
    return account(
        indexed.files,
        (indexed.account(index) for index in range(len(indexed.files))),
        roots=roots,
        sample=sample,
    )
