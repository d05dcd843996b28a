"""Provides `list_units` and `kept_parts`: an analysis's answer unit by unit, each unit's part
kept in the index under the identity of its files, so only units whose files changed are
analysed again (`scan`'s numbers, `drift`'s series).

The files are grouped into units that share nothing (`ingest.index.units`): no session, no call, no
chain crosses a unit, so an analysis whose parts join exactly can analyse each apart. A part is
kept under a scope naming everything besides the files it depends on (options, price data,
sniff's code) and the folders read; a part of another set of folders, read with the same
options, is borrowed where this one has none (a unit's part does not depend on the folders).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from sniff.analyses.cache.appended import Refused
from sniff.ingest.files.discover import SourceFile, expand, root_name, roots_for
from sniff.ingest.index.indexed import IndexedFiles
from sniff.ingest.index.store import IndexStore
from sniff.ingest.index.units import units
from sniff.ingest.parallel import map_balanced
from sniff.ingest.reading import account
from sniff.ingest.record import Prompts
from sniff.model import Dataset
from sniff.paths import file_identity, identity, price_data_identity

if TYPE_CHECKING:
    from sniff.workspace import Workspace

PARALLEL_ANALYSIS_BYTES = 32 * 1024 * 1024
"""Below this much log to analyse again, forking workers would cost more than it saves."""

Part = TypeVar("Part")


@dataclass(frozen=True, slots=True)
class Units:
    """The log files under some paths, read through the index, grouped into units."""

    indexed: IndexedFiles
    groups: list[list[int]]
    """Each unit's files, as positions in `files`."""
    files: list[SourceFile]
    roots: list[Path]
    sample: bool
    scope: str
    """The scope asked for, of these folders."""

    def size(self, group: list[int]) -> int:
        """The bytes of a unit's files."""
        return sum(self.indexed.entry(index).size for index in group)

    def account(self) -> Dataset:
        """Files, formats and issues, in file order; its `requests` left empty."""
        accounts = (self.indexed.account(index) for index in range(len(self.files)))
        roots = tuple(root_name(root) for root in self.roots)
        return account(self.files, accounts, roots=roots, sample=self.sample)


def list_units(
    paths: list[Path] | None,
    store: IndexStore,
    scope: str,
    *,
    log_format: str | None,
    with_prompts: Prompts,
    files: list[SourceFile] | None,
    while_waiting: Callable[[], object] | None,
) -> Units:
    """The units of the logs under `paths` (`files`: when the caller listed them already),
    every changed file parsed into the index (`while_waiting` runs meanwhile)."""
    roots, sample = roots_for(paths)
    files = files if files is not None else expand(roots)
    indexed = IndexedFiles(
        files, store, roots=[root_name(root) for root in roots], log_format=log_format,
        with_prompts=with_prompts, while_waiting=while_waiting,
    )  # fmt: skip
    groups = units([indexed.links(index) for index in range(len(files))])
    return Units(indexed, groups, files, roots, sample, _within(scope, roots))


def kept_parts(
    listed: Units,
    store: IndexStore,
    *,
    analyse: Callable[[list[int]], bytes],
    decode: Callable[[bytes], Part | None],
    grown: tuple[Callable[[list[int], Part], Part | Refused], Callable[[Part], bytes]]
    | None = None,
    priced: Callable[[Part], bool] | None = None,
    whole: list[str] | None = None,
) -> list[Part]:
    """Every unit's part: kept, or extended from the one kept before its files grew (`grown`:
    how, None where that is not exact, and how a part is encoded), or `analyse`d (encoded
    where it is made: as it is kept, and as it travels back from a worker); the new ones
    kept. Where this scope keeps no part of a unit, one its family kept (the same analysis
    and options over other folders: a status line's of one session, a scan's of every
    folder) serves, and is kept here too (`priced`: whether a part prices every request, for
    one kept from kept prices only: see `_borrowed`). `whole` gets a line per unit analysed
    whole, saying why."""
    groups, indexed = listed.groups, listed.indexed
    keys = [_unit_key(indexed, group) for group in groups]
    before = [_unit_key(indexed, group, before=True) if grown else None for group in groups]
    wanted = [key for key in keys + before if key is not None]
    kept = store.parts(listed.scope, wanted)
    missing = [key for key in wanted if key not in kept]
    borrowed = _borrowed(store, listed.scope, missing, decode, priced)
    kept |= borrowed
    found = [decode(kept[key]) if key in kept else None for key in keys]
    refused: dict[int, str] = {}
    new = _extended(groups, keys, before, kept, found, grown, decode, refused)
    new |= {key: borrowed[key] for key in keys if key in borrowed}  # kept here too
    todo = [index for index, part in enumerate(found) if part is None]
    if whole is not None:
        said = (_why_whole(listed, unit, keys[unit], before[unit], refused) for unit in todo)
        whole += [line for line in said if line]
    analysed = map_balanced(
        lambda position: analyse(groups[todo[position]]),
        list(range(len(todo))),
        [listed.size(groups[unit]) for unit in todo],
        minimum=PARALLEL_ANALYSIS_BYTES,
        inherit=True,
    )
    for unit, encoded in zip(todo, analysed, strict=True):
        found[unit] = decode(encoded)
        key = keys[unit]
        if key is not None:
            new[key] = encoded
    store.keep_parts(listed.scope, new, {key for key in keys if key is not None})
    return [part for part in found if part is not None]


def _extended(
    groups: list[list[int]],
    keys: list[str | None],
    before: list[str | None],
    kept: dict[str, bytes],
    found: list[Part | None],
    grown: tuple[Callable[[list[int], Part], Part | Refused], Callable[[Part], bytes]] | None,
    decode: Callable[[bytes], Part | None],
    refused: dict[int, str],
) -> dict[str, bytes]:
    """Fill in `found` the parts of units whose files grew, extended from the part kept before
    (why one could not be, in `refused`); the new parts, encoded by their keys."""
    new: dict[str, bytes] = {}
    for unit, key in enumerate(keys):
        old = before[unit]
        if grown is None or found[unit] is not None or old not in kept:
            continue
        extend, encode = grown
        part = decode(kept[old])
        extended = Refused("its kept part could not be read") if part is None else extend(
            groups[unit], part)  # fmt: skip
        if isinstance(extended, Refused):
            refused[unit] = extended.reason
            continue
        found[unit] = extended
        if key is not None:
            new[key] = encode(extended)
    return new


def _why_whole(
    listed: Units, unit: int, key: str | None, before: str | None, refused: dict[int, str]
) -> str:
    """One line saying which unit is analysed whole after its files changed, and why (`scan
    --verbose`); "" for a unit first read, or first analysed with these options."""
    group, indexed = listed.groups[unit], listed.indexed
    if unit in refused:
        why = f"what was appended cannot be judged against its kept part: {refused[unit]}"
    elif key is None:
        why = "a file changed too recently for its part to be kept"
    elif before is not None:
        why = "its files grew, but no part was kept of them before they did"
    elif any(i in indexed.parsed_now and i not in indexed.new for i in group):
        why = "a file was rewritten, not appended to"
    else:
        return ""
    first = Path(listed.files[group[0]].path).name
    more = f" and {len(group) - 1} more file(s)" if len(group) > 1 else ""
    return f"{first}{more}: {why}"


@contextmanager
def index_for(workspace: Workspace) -> Iterator[IndexStore | None]:
    """The index a Workspace keeps parts in, closed afterwards; None where there is none
    (without the index, on a cluster, or with no place for one)."""
    from sniff.ingest.index.indexed import open_index

    store = open_index() if workspace.use_index and not workspace.dask else None
    try:
        yield store
    finally:
        if store is not None:
            store.close()


def workspace_scope(analysis: str, workspace: Workspace) -> str:
    """The scope of an `analysis`'s parts read with a Workspace's options: those its numbers
    depend on, plus the price data (and sniff's version and code: `paths.identity`). A price
    book that knows only kept prices (the status line's) marks it `KEPT_PRICES`."""
    options = {
        "filters": workspace.filters, "zone": workspace.zone, "log_format": workspace.log_format,
        "pricing": file_identity(workspace.pricing) if workspace.pricing else None,
    }  # fmt: skip
    options_given = sorted((name, str(value)) for name, value in options.items())
    scope = identity(analysis, options_given, price_data_identity())
    return scope + KEPT_PRICES if getattr(workspace.prices, "kept_only", False) else scope


FAMILY = 16
"""How many leading characters of a kept scope name its family: the same analysis and options
read from other folders (see `_within`)."""
KEPT_PRICES = "|kept-prices"
KEPT_ONLY, LIBRARY = "k", "p"
"""The last character of a kept scope: its parts were priced from kept prices only, or with
the price library."""


def _within(scope: str, roots: list[Path]) -> str:
    """The scope of one set of folders: a scan of others must not forget this one's parts.

    Its first `FAMILY` characters are those of `scope` alone, whatever the folders and price
    book: a unit's part depends on its files and the options, not on the folders it was found
    under, so another set of folders' part of the same unit serves (`kept_parts` borrows it).
    Its last says how its parts were priced (`KEPT_ONLY`, `LIBRARY`)."""
    base = scope.removesuffix(KEPT_PRICES)
    family = hashlib.sha256(base.encode()).hexdigest()[:FAMILY]
    digest = hashlib.sha256(scope.encode())
    digest.update(json.dumps(sorted(os.path.abspath(root) for root in roots)).encode())
    priced = KEPT_ONLY if scope.endswith(KEPT_PRICES) else LIBRARY
    return family + digest.hexdigest()[: 31 - FAMILY] + priced


def _borrowed(
    store: IndexStore,
    scope: str,
    missing: list[str],
    decode: Callable[[bytes], Part | None],
    priced: Callable[[Part], bool] | None,
) -> dict[str, bytes]:
    """The parts of `missing` units its family kept under other scopes. A part priced from
    kept prices only lends to a scope priced so too, or where it holds no unpriced request
    (`priced`): the price library may price a model the kept prices lack."""
    if not missing:
        return {}
    found = {}
    for unit, (lender, data) in store.family_parts(scope[:FAMILY], scope, missing).items():
        if lender.endswith(KEPT_ONLY) and not scope.endswith(KEPT_ONLY):
            part = decode(data) if priced is not None else None
            if part is None or priced is None or not priced(part):
                continue
        found[unit] = data
    return found


def _unit_key(indexed: IndexedFiles, group: list[int], *, before: bool = False) -> str | None:
    """The identity of a unit's files (`before` they grew or new files joined them; if none
    did, None); None when one changed too recently to be trusted."""
    if before and all(indexed.grown(i) is None and i not in indexed.new for i in group):
        return None
    if before and all(index in indexed.new for index in group):
        return None  # a unit of new files only: nothing was kept of it
    digest = hashlib.sha256()
    for index in group:
        if before and index in indexed.new:
            continue  # not among the unit's files before it grew
        grown = indexed.grown(index) if before else None
        entry = indexed.entry(index) if grown is None else grown[0]
        if entry.mtime_ns < 0:  # stored as never matching: see `discover.RACY_NS`
            return None
        digest.update(f"{entry.path}\0{entry.identity}\0".encode())
    return digest.hexdigest()[:32]
