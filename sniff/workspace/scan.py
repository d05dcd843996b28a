"""Provides `scan_units`: `sniff scan`'s numbers from the index, re-analysing only what changed.

The files are grouped into units that share nothing (`ingest.index.units`); each unit's part of the
scan (`analyses.cost.scan_parts`) is kept in the index under the identity of its files and of every
option and piece of data the part depends on (`workspace.parts`). A run after a few files grew
re-parses those files from where they ended, re-analyses their units, and joins every other
unit's kept part:
the result is exactly that of analysing everything, because no call, session or chain crosses
a unit. A unit whose files only grew is not analysed again: the requests of the appended
lines are added to its part as it was (`scan_parts.extend_part`), where that is exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path

from sniff.analyses.cache.appended import Refused
from sniff.analyses.cache.breaks import CacheRules
from sniff.analyses.cost.scan_parts import (
    BreakDigest,
    ScanPart,
    decode_part,
    encode_part,
    extend_part,
    join,
    scan_part,
)
from sniff.analyses.cost.summary import Summary
from sniff.analyses.filters import Filters
from sniff.ingest.files.discover import SourceFile
from sniff.ingest.files.log_formats import REQUEST_LOG
from sniff.ingest.index import rows as index_rows
from sniff.ingest.index.indexed import IndexedFiles
from sniff.ingest.index.store import IndexStore
from sniff.ingest.merge import merge
from sniff.ingest.parallel import collector_paused
from sniff.ingest.record import Prompts
from sniff.ingest.telemetry import TELEMETRY
from sniff.model import Dataset
from sniff.pricing import PriceBook
from sniff.workspace.parts import kept_parts, list_units

JOINED_FORMATS = frozenset({TELEMETRY, REQUEST_LOG})
"""Formats whose calls a whole unit's merge joins to copies in other files (`telemetry`)."""


@dataclass(frozen=True, slots=True)
class ScanNumbers:
    """What `sniff scan` prints: the summary, the breaks' digest, and an account of the files."""

    summary: Summary
    breaks: BreakDigest
    dataset: Dataset
    """Files, formats and issues; its `requests` are left empty (the parts hold the numbers)."""
    analysed_whole: tuple[str, ...] = ()
    """A line per unit of files analysed from all its requests, saying why (`--verbose`)."""


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
            data, sniff's code); the folders read are added to it (`parts.list_units`).
        files: the log files under `paths`, when the caller listed them already (a kept
            answer's key was made from exactly these).
    """
    listed = list_units(
        paths, store, scope, log_format=log_format, with_prompts=with_prompts, files=files,
        while_waiting=prices.prepare,
    )  # fmt: skip
    indexed, rules = listed.indexed, CacheRules()

    def analyse(group: list[int]) -> bytes:
        responses = [r for index in group for r in indexed.result(index).responses]
        # a part that a grown file's appended requests may join keeps its chains' ends; not
        # one dated by a file's time, which its growth changes
        grows = any(indexed.entry(i).size >= index_rows.STATE_MIN_BYTES for i in group)
        grows = grows and all(response.last_at is not None for response in responses)
        requests = merge(responses, prices.cost)
        return encode_part(scan_part(requests, prices, zone, filters.keep, rules, grows))

    def extend(group: list[int], part: ScanPart) -> ScanPart | Refused:
        return _extended(indexed, group, part, prices, zone, filters, rules)

    whole: list[str] = []
    found = kept_parts(
        listed, store, analyse=analyse, decode=decode_part, grown=(extend, encode_part),
        priced=ScanPart.all_priced, whole=whole,
    )  # fmt: skip
    parts = [part.whole(zone, filters.keep) for part in found]
    prices.save()  # the price tables resolved for this run, for the next one
    summary, breaks = join(parts)
    return ScanNumbers(summary, breaks, listed.account(), tuple(whole))


def _extended(
    indexed: IndexedFiles,
    group: list[int],
    part: ScanPart,
    prices: PriceBook,
    zone: tzinfo,
    filters: Filters,
    rules: CacheRules,
) -> ScanPart | Refused:
    """The part of a unit whose files only grew, from its `part` before they did and what
    their appended lines yield; `Refused` when it must be analysed again."""
    if any(indexed.entry(index).log_format in JOINED_FORMATS for index in group):
        return Refused("telemetry or a proxy's record joins calls to their copies in other files")
    linked: dict[str, set[str]] = {}
    responses = []
    for index in group:
        grown, path = indexed.grown(index), indexed.entry(index).path
        if index in indexed.new:  # a file that appeared (a subagent's): all it yields is new
            linked[path] = set()
            responses += indexed.result(index).responses
        elif grown is None:
            linked[path] = set(indexed.links(index))
        else:
            linked[path] = set(index_rows.LINKS.decode(grown[0].links))
            responses += grown[1].responses
    if any(response.last_at is None for response in responses):
        return Refused("a request is dated by its file's time, which later lines change")
    if len({response.key for response in responses}) < len(responses):
        return Refused("a call appended to two files: which copy is kept depends on both")
    requests = merge(responses, prices.cost)
    return extend_part(part, requests, linked, prices, zone, filters.keep, rules)
