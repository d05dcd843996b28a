"""The index and the kept answers never serve numbers a file no longer holds.

A file rewritten in place with its size kept and its mtime set back was still counted as it
was, by the index and by the kept answers; so was a file made unreadable after it was indexed.
A file's identity now holds its inode change time and a checksum of its last 4 KiB, taken
afresh on every run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sniff.ingest.files.discover import listed
from sniff.workspace import Workspace
from tests.faults.logs import PROJECT, deny, good_logs, scan_here, settle, totals, with_locked

RESPONSES = 30
"""Enough for a file of several times 4 KiB: an edit can lie before its last 4 KiB."""


def kept_answers() -> list[Path]:
    return sorted((Path(os.environ["SNIFF_CACHE_DIR"]) / "answers").glob("*.json"))


def rewrite_in_place(path: Path, old: bytes, new: bytes, *, last: bool) -> None:
    """Replace `old` by `new` (as long) where it last or first occurs, in place (same inode),
    then set the mtime back to what it was: same size, same mtime, same inode."""
    before = path.stat()
    data = path.read_bytes()
    at = data.rindex(old) if last else data.index(old)
    assert len(old) == len(new)
    with open(path, "r+b") as handle:
        handle.seek(at)
        handle.write(new)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (
        before.st_size,
        before.st_mtime_ns,
        before.st_ino,
    )


@pytest.fixture
def coarse_ctime(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system whose change times never move (as on one with coarse timestamps, or two
    writes within one tick): what the tail checksum alone must catch."""
    real = os.fstat

    def frozen(descriptor: int) -> os.stat_result:
        status = real(descriptor)
        times = {"st_atime_ns": status.st_atime_ns, "st_mtime_ns": status.st_mtime_ns}
        return os.stat_result(tuple(status)[:10], {**times, "st_ctime_ns": 0})

    monkeypatch.setattr(os, "fstat", frozen)


EDITS = {
    # before the last 4 KiB: the inode change time tells
    "early": (b'"output_tokens": 100', b'"output_tokens": 987', False),
    # in the last 4 KiB, with change times that do not move: the checksum tells
    "last 4 KiB": (b'"output_tokens": 129', b'"output_tokens": 987', True),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_file_rewritten_with_its_size_and_mtime_kept_is_counted_anew(
    tmp_path: Path, request: pytest.FixtureRequest, edit: str
) -> None:
    old, new, last = EDITS[edit]
    if last:
        request.getfixturevalue("coarse_ctime")
    good_logs(tmp_path, "kept")
    edited = tmp_path / "projects" / PROJECT / "edited.jsonl"
    good_logs(tmp_path, "edited", responses=RESPONSES)
    assert edited.stat().st_size > 4 * 4_096
    cold, _ = scan_here(tmp_path)
    assert len(kept_answers()) == 1
    assert scan_here(tmp_path)[0] == cold  # replayed

    rewrite_in_place(edited, old, new, last=last)
    fresh, _ = scan_here(tmp_path, "--no-index")
    changed = int(new.split()[-1]) - int(old.split()[-1])
    assert fresh["totals"]["output_tokens"] == cold["totals"]["output_tokens"] + changed
    assert scan_here(tmp_path)[0] == fresh  # through the kept answers
    assert scan_here(tmp_path, "--verbose")[0] == fresh  # through the index alone
    assert scan_here(tmp_path)[0] == fresh  # and the answer kept for it


def test_the_browsers_reader_reads_a_rewritten_file_again(
    tmp_path: Path, coarse_ctime: None
) -> None:
    good_logs(tmp_path, "edited", responses=RESPONSES)
    edited = tmp_path / "projects" / PROJECT / "edited.jsonl"
    workspace = Workspace(tmp_path)
    [*_, first] = workspace.batches()
    rewrite_in_place(edited, b'"output_tokens": 129', b'"output_tokens": 987', last=True)
    [*_, second] = workspace.batches()
    assert second.changed == 1
    outputs = [sum(r.usage.output_tokens for r in p.dataset.requests) for p in (first, second)]
    assert outputs[1] == outputs[0] + 987 - 129


def test_a_file_made_unreadable_after_it_was_indexed_is_reported_and_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected, locked = with_locked(tmp_path)
    both, _ = scan_here(tmp_path)
    assert both["totals"]["requests"] == 2 * expected["requests"]
    assert len(kept_answers()) == 1

    deny(monkeypatch, locked)  # as `chmod 000` does for a user other than root
    for options in ((), ("--verbose",), ("--no-index",)):  # kept answers, index, neither
        report, errors = scan_here(tmp_path, *options)
        assert totals(report) == expected
        assert report["warnings"]["unreadable_files"] == [str(locked)]
        assert f"sniff: {locked}: cannot read file: Permission denied" in errors


def test_a_sqlite_logs_identity_holds_its_write_ahead_log(tmp_path: Path) -> None:
    database = tmp_path / "opencode.db"
    database.write_bytes(b"SQLite format 3\0" + bytes(4_080))
    settle(database)
    alone, _ = listed(str(database), "x", sidecars=("-wal",))
    wal = tmp_path / "opencode.db-wal"
    wal.write_bytes(b"\x37\x7f\x06\x82" + bytes(100))
    settle(wal)
    with_wal, _ = listed(str(database), "x", sidecars=("-wal",))
    assert with_wal.size == alone.size + 104
    assert with_wal.identity != alone.identity
    assert listed(str(database), "x")[0].identity == alone.identity  # asked without it

    stamp = wal.stat().st_mtime_ns
    with open(wal, "r+b") as handle:  # a new row in the log, the database file untouched
        handle.seek(50)
        handle.write(b"row")
    os.utime(wal, ns=(stamp, stamp))
    rewritten, _ = listed(str(database), "x", sidecars=("-wal",))
    assert (rewritten.size, rewritten.mtime_ns) == (with_wal.size, with_wal.mtime_ns)
    assert rewritten.identity != with_wal.identity
    assert rewritten.tail_crc != with_wal.tail_crc
