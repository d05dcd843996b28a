"""Provides `scan_units`: `sniff scan`'s numbers from the index, re-analysing only what changed.

The files are grouped into units that share nothing (`ingest.units`); each unit's part of the
scan (`analyses.scan_parts`) is kept in the index under the identity of its files and of every
option and piece of data the part depends on. A run after a few files grew re-parses those
files from where they ended, re-analyses their units, and joins every other unit's kept part:
the result is exactly that of analysing everything, because no call, session or chain crosses
a unit. A unit whose files only grew is not analysed again: the requests of the appended
lines are added to its part as it was (`scan_parts.extend_part`), where that is exact.
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
from sniff.analyses.scan_parts import (
    BreakDigest,
    ScanPart,
    decode_part,
    encode_part,
    extend_part,
    join,
    scan_part,
)
from sniff.analyses.summary import Summary
from sniff.ingest import index_rows
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
    grown = [_unit_key(indexed, group, before=True) for group in groups]
    kept = store.parts(scope, [key for key in keys + grown if key is not None])
    rules = CacheRules()
    found = [decode_part(kept[key]) if key in kept else None for key in keys]
    new: dict[str, bytes] = {}
    for unit, key in enumerate(keys):
        old = grown[unit]
        if found[unit] is None and old in kept and (part := decode_part(kept[old])) is not None:
            found[unit] = extended = _extended(
                indexed, groups[unit], part, prices, zone, filters, rules
            )
            if extended is not None and key is not None:
                new[key] = encode_part(extended)
    todo = [index for index, part in enumerate(found) if part is None]

    def analyse(position: int) -> bytes:
        """A unit's part, encoded where it is made: as it is kept, and as it travels."""
        group = groups[todo[position]]
        responses = [r for index in group for r in indexed.result(index).responses]
        # a part that a grown file's appended requests may join keeps its chains' ends; not
        # one dated by a file's time, which its growth changes
        grows = any(indexed.entry(i).size >= index_rows.STATE_MIN_BYTES for i in group)
        grows = grows and all(response.last_at is not None for response in responses)
        requests = merge(responses, prices.cost)
        return encode_part(scan_part(requests, prices, zone, filters.keep, rules, grows))

    sizes = [sum(indexed.entry(index).size for index in groups[unit]) for unit in todo]
    analysed = map_balanced(
        analyse, list(range(len(todo))), sizes, minimum=PARALLEL_ANALYSIS_BYTES, inherit=True
    )
    for unit, encoded in zip(todo, analysed, strict=True):
        found[unit] = decode_part(encoded)
        key = keys[unit]
        if key is not None:
            new[key] = encoded
    parts = [part.whole(zone, filters.keep) for part in found if part is not None]
    store.keep_parts(scope, new, {key for key in keys if key is not None})
    prices.save()  # the price tables resolved for this run, for the next one
    summary, breaks = join(parts)
    accounts = (indexed.account(index) for index in range(len(files)))  # in file order
    dataset = account(files, accounts, roots=tuple(str(root) for root in roots), sample=sample)
    return ScanNumbers(summary, breaks, dataset)


def scan_scope(**options: object) -> str:
    """The scope of parts: the options given plus the price data (and sniff's version and code:
    `paths.identity`)."""
    options_given = sorted((name, str(value)) for name, value in options.items())
    return identity("scan", options_given, price_data_identity())


def _within(scope: str, roots: list[Path]) -> str:
    """The scope of one set of folders: a scan of others must not forget this one's parts."""
    digest = hashlib.sha256(scope.encode())
    digest.update(json.dumps(sorted(os.path.abspath(root) for root in roots)).encode())
    return digest.hexdigest()[:32]


def _extended(
    indexed: IndexedFiles,
    group: list[int],
    part: ScanPart,
    prices: PriceBook,
    zone: tzinfo,
    filters: Filters,
    rules: CacheRules,
) -> ScanPart | None:
    """The part of a unit whose files only grew, from its `part` before they did and what
    their appended lines yield; None when it must be analysed again."""
    linked: dict[str, set[str]] = {}
    responses = []
    for index in group:
        grown, path = indexed.grown(index), indexed.entry(index).path
        if grown is None:
            linked[path] = set(indexed.links(index))
        else:
            linked[path] = set(index_rows.LINKS.decode(grown[0].links))
            responses += grown[1].responses
    if any(response.last_at is None for response in responses):
        return None  # dated by its file's time, which later lines change
    if len({response.key for response in responses}) < len(responses):
        return None  # copies in two files: which is kept depends on the sessions' ends
    requests = merge(responses, prices.cost)
    return extend_part(part, requests, linked, prices, zone, filters.keep, rules)


def _unit_key(indexed: IndexedFiles, group: list[int], *, before: bool = False) -> str | None:
    """The identity of a unit's files (`before` they grew, if one did not, None); None when
    one changed too recently to be trusted."""
    if before and all(indexed.grown(index) is None for index in group):
        return None
    digest = hashlib.sha256()
    for index in group:
        grown = indexed.grown(index) if before else None
        entry = indexed.entry(index) if grown is None else grown[0]
        if entry.mtime_ns < 0:  # stored as never matching: see `discover.RACY_NS`
            return None
        digest.update(f"{entry.path}\0{entry.identity}\0".encode())
    return digest.hexdigest()[:32]
