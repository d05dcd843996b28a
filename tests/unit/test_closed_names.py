"""A kept reader's older names: kept as strings by a reader read whole, as hashes once resumed,
asked the same questions either way."""

from __future__ import annotations

import uuid

import pytest

from sniff.ingest.formats.claude_code.closed import HASHES, STRINGS, Closed, kept_names

OLD = {str(uuid.UUID(int=number)) for number in range(1, 2_000)}
OTHER = [str(uuid.UUID(int=number)) for number in range(5_000, 5_050)]


def test_a_reader_read_whole_keeps_strings_and_the_next_keeps_hashes() -> None:
    whole = kept_names(set(), set(OLD), set())
    assert whole[:1] == STRINGS
    resumed = Closed(whole)
    later = resumed.kept_with({"msg_new", OTHER[0]}, {OTHER[1]})
    assert later[:1] == HASHES and len(later) == 1 + 8 * (len(OLD) + 2)
    for kept in (resumed, Closed(later)):
        assert all(name in kept for name in OLD)
        assert not any(name in kept for name in OTHER[2:])
        assert kept.isdisjoint(OTHER[2:]) and not kept.isdisjoint([OTHER[3], next(iter(OLD))])
    assert "msg_new" in Closed(later) and OTHER[1] not in Closed(later)


def test_a_name_back_in_the_window_is_no_longer_closed() -> None:
    kept = Closed(Closed(kept_names(set(), set(OLD), set())).kept_with(set(), set()))
    back = next(iter(sorted(OLD)))
    again = Closed(kept.kept_with(set(), {back}))
    assert back not in again and len(again.kept) == len(OLD) - 1


def test_anything_else_is_not_kept_names() -> None:
    with pytest.raises(ValueError):
        Closed(b"\x91\xa1x")  # an older sniff's msgpack of a set
    assert 3 not in Closed() and "x" not in Closed()
