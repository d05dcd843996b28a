"""`sniff scan` unit by unit (`analyses.cost.scan_parts`): parts analysed apart and joined give
exactly the scan of everything at once, and survive being kept (msgpack) in the index."""

from __future__ import annotations

import random
from datetime import UTC

import pytest

from sniff.analyses.cache.breaks import CacheRules, find_breaks
from sniff.analyses.cost.scan_parts import (
    TOP_BREAKS,
    ScanPart,
    decode_part,
    digest,
    encode_part,
    join,
    join_digests,
    scan_part,
)
from sniff.analyses.cost.summary import summarize
from sniff.ingest.index.units import units
from sniff.logs import load
from sniff.model import Request
from sniff.pricing import PriceBook
from tests.conftest import SAMPLE_LOGS


def everything() -> tuple[list[Request], PriceBook]:
    prices = PriceBook()
    dataset = load([SAMPLE_LOGS], prices, use_index=False)
    return dataset.requests, prices


def independent(requests: list[Request]) -> list[list[Request]]:
    """Requests grouped as the index groups files (`ingest.index.units`): by session and by the
    call each continues (a resumed session continues another's)."""
    tokens = [
        [f"s:{r.session_id}", f"k:{r.key}", *([f"k:{r.previous}"] if r.previous else [])]
        for r in requests
    ]
    return [[requests[index] for index in group] for group in units(tokens)]


def test_parts_joined_equal_the_scan_of_everything_even_after_being_kept() -> None:
    requests, prices = everything()
    groups = independent(requests)
    assert len(groups) > 5
    rules = CacheRules()
    parts = [scan_part(unit, prices, UTC, lambda _: True, rules) for unit in groups]
    kept = [decode_part(encode_part(part)) for part in parts]
    assert kept == parts
    random.Random(7).shuffle(kept)  # parts come back in any order

    summary, breaks = join(part for part in kept if part is not None)

    assert summary == summarize(requests, UTC)
    whole = digest(find_breaks(requests, prices, zone=UTC).breaks)
    assert breaks == whole
    assert breaks.faults >= TOP_BREAKS  # the planted project has one break of each cause
    assert len(breaks.top) == TOP_BREAKS


@pytest.mark.parametrize("extendable", [False, True])
def test_a_part_weighs_no_ttl_advice_scan_never_shows(
    monkeypatch: pytest.MonkeyPatch, extendable: bool
) -> None:
    import sniff.analyses.cache.breaks as breaks_module
    import sniff.analyses.cache.ttl_advice as ttl_module

    requests, prices = everything()
    weighed: list[int] = []
    weigh = ttl_module.longer_ttl_for
    monkeypatch.setattr(ttl_module, "longer_ttl_for", lambda r: weighed.append(1) or weigh(r))
    rules = CacheRules()
    for unit in independent(requests):
        scan_part(unit, prices, UTC, lambda _: True, rules, extendable)
    assert weighed == []
    breaks_module.break_part(requests, prices, rules)  # the advice still weighs them
    assert weighed


def test_a_digest_of_digests_keeps_the_dearest_and_sums_every_cost_exactly() -> None:
    requests, prices = everything()
    found = find_breaks(requests, prices, zone=UTC).breaks
    pieces: list[list[int]] = [[], [], []]
    for index in range(len(found)):
        pieces[index % 3].append(index)
    joined = join_digests([digest([found[i] for i in piece]) for piece in pieces])
    faults = [item for item in found if item.fault]
    assert joined.faults == len(faults)
    assert joined.expected == len(found) - len(faults)
    assert joined.top == tuple(faults[:TOP_BREAKS])
    assert joined.cost_usd == digest(found).cost_usd
    assert joined.cost_usd > 0


def test_a_kept_part_keeps_its_times_and_something_else_is_no_part() -> None:
    requests, prices = everything()
    part = scan_part(requests, prices, UTC, lambda _: True, CacheRules())
    back = decode_part(encode_part(part))
    assert isinstance(back, ScanPart)
    assert [(t.first, t.last) for t in back.cells.values()] == [
        (t.first, t.last) for t in part.cells.values()
    ]
    assert all(t.first is not None and t.first.tzinfo is not None for t in back.cells.values())
    assert back.breaks.top[0].request == part.breaks.top[0].request
    assert decode_part(b"\x80\x05not a part") is None
    assert decode_part(encode_part(part)[:-3]) is None
