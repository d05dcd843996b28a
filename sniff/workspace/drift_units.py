"""Provides `drift_units`: `sniff drift`'s part of the logs from the index, unit by unit
(`workspace.parts`): only units whose files changed are analysed again, and the parts of the
others are joined (`analyses.drift.part`: exact, as no session crosses a unit).
"""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from sniff.analyses.cache.breaks import CacheRules, break_part
from sniff.analyses.drift.part import (
    DriftPart,
    decode_drift_part,
    drift_part,
    encode_drift_part,
    join_parts,
)
from sniff.analyses.drift.series import break_key
from sniff.analyses.filters import Filters, keep_activity
from sniff.ingest.files.discover import SourceFile
from sniff.ingest.index.store import IndexStore
from sniff.ingest.merge import merge, merge_activity
from sniff.ingest.parallel import collector_paused
from sniff.ingest.record import Prompts
from sniff.model import Dataset
from sniff.pricing import PriceBook
from sniff.workspace.parts import index_for, kept_parts, list_units, workspace_scope

if TYPE_CHECKING:
    from sniff.workspace import Workspace


@collector_paused()  # (see there) joining parts builds many objects
def drift_units(
    paths: list[Path] | None,
    store: IndexStore,
    prices: PriceBook,
    filters: Filters,
    zone: tzinfo,
    by: str,
    *,
    log_format: str | None,
    scope: str,
    files: list[SourceFile] | None = None,
) -> tuple[DriftPart, Dataset]:
    """The drift part of the logs under `paths` (read with prompts sized, as breaks are
    judged), its buckets of periods `by`, and an account of the files (its `requests` left
    empty).

    Each unit's part is made as `Workspace.drift_report` makes one of all the logs: its
    requests the filters keep, the faults among their breaks, and their tool calls.
    """
    listed = list_units(
        paths, store, scope, log_format=log_format, with_prompts=Prompts.SIZED, files=files,
        while_waiting=prices.prepare,
    )  # fmt: skip
    indexed, rules = listed.indexed, CacheRules()

    def analyse(group: list[int]) -> bytes:
        results = [indexed.result(index) for index in group]
        requests = merge([r for result in results for r in result.responses], prices.cost)
        found = break_part(requests, prices, rules, filters.keep, advise_ttl=False).breaks
        causes = {break_key(each.request): each.cause for each in found if each.fault}
        activity = merge_activity((result.activity for result in results), requests)
        calls = keep_activity(activity, filters, requests).calls
        return encode_drift_part(drift_part(filters.apply(requests), causes, calls, zone, by))

    parts = kept_parts(listed, store, analyse=analyse, decode=decode_drift_part)
    prices.save()
    return join_parts(parts, by), listed.account()


def drift_from_index(workspace: Workspace, by: str) -> tuple[DriftPart, Dataset] | None:
    """`drift_units` of a Workspace's logs, by `by`; None where no index keeps parts (without
    the index, on a cluster, or with no place for one)."""
    from sniff.workspace.answers import listed

    with index_for(workspace) as store:
        if store is None:
            return None
        return drift_units(
            workspace.paths, store, workspace.prices, workspace.filters, workspace.zone, by,
            log_format=workspace.log_format, scope=workspace_scope(f"drift-{by}", workspace),
            files=listed(),
        )  # fmt: skip
