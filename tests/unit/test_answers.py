"""Kept answers (`sniff.answers`): `sniff scan` to a pipe replays its last output when nothing
it depends on changed, and reads again when anything did."""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_index import (
    append,
    index_path,
    output_of,
    scan_json,
    settle,
    transcript,
    turn,
)


def test_an_unchanged_archive_is_answered_without_reading_it(tmp_path: Path) -> None:
    transcript(tmp_path, "a", 2)
    first = scan_json(tmp_path).communicate(timeout=120)[0]
    index_path().unlink()  # a run that read anything would make a new index

    again = scan_json(tmp_path).communicate(timeout=120)[0]

    assert again == first
    assert not index_path().exists()


def test_a_grown_file_or_another_option_is_read_again(tmp_path: Path) -> None:
    path = transcript(tmp_path, "a", 2)
    before = output_of(scan_json(tmp_path))
    append(path, turn("more", 600, "a1-a2", output=777))
    settle(path)

    grown = output_of(scan_json(tmp_path))

    assert grown["totals"]["output_tokens"] == before["totals"]["output_tokens"] + 777
    assert grown == output_of(scan_json(tmp_path, "--no-index"))
    assert output_of(scan_json(tmp_path, "--tz", "Asia/Tokyo")) == output_of(
        scan_json(tmp_path, "--tz", "Asia/Tokyo", "--no-index")
    )


def test_no_answer_is_kept_while_a_file_may_still_change(tmp_path: Path) -> None:
    transcript(tmp_path, "a", 2, fresh=True)  # modified just now: within its mtime's resolution
    scan_json(tmp_path).communicate(timeout=120)
    answers = index_path().parent / "answers"
    assert not answers.exists() or not any(answers.iterdir())
