"""Files named by options, and sniff's own kept files, are read the way logs are (issue 29).

A FIFO given as `--pricing` waited for a writer for ever, and `/dev/zero` (or a link to it) was
read until the memory ran out; so were `--policy-file`, `--plan-file`, and the prices kept in
the cache folder. Now a named file that is no regular file, or larger than such files are, is
one line and exit code 2; a kept file of that kind is not trusted but made again. Each run is a
process of its own with a deadline, so a hang fails its test instead of stalling the suite.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from sniff.ingest.files.regular import KEPT_FILE_BYTES, OPTION_FILE_BYTES
from sniff.price_table import CACHE_FILE
from sniff.statusline import archive
from sniff.statusline.memo import MEMO_FILE
from tests.faults.logs import good_logs, report_of, scan
from tests.faults.test_special_files import fifo, link_to_zero
from tests.faults.test_user_errors import SAMPLE_LOGS, sniff

DEADLINE = 10.0
"""Seconds a run may take, start-up included (a refusal takes a fraction of one)."""


def to_zero(path: Path) -> str:
    return "/dev/zero"  # the device itself, named as it is


def named_fifo(path: Path) -> str:
    fifo(path)
    return str(path)


def named_link_to_zero(path: Path) -> str:
    link_to_zero(path)
    return str(path)


def oversized(path: Path) -> str:
    with path.open("wb") as file:  # sparse: no bytes written, nothing read
        file.truncate(OPTION_FILE_BYTES + 1)
    return str(path)


NAMED: dict[str, tuple[Callable[[Path], str], str]] = {
    "fifo": (named_fifo, "not a regular file (a FIFO)"),
    "link to /dev/zero": (named_link_to_zero, "not a regular file (a character device)"),
    "/dev/zero": (to_zero, "not a regular file (a character device)"),
    "too large": (oversized, f"larger than {OPTION_FILE_BYTES >> 20} MiB"),
}
OPTIONS = {
    "--pricing": (["scan", str(SAMPLE_LOGS), "--json"], "pricing file"),
    "--policy-file": (["cache", str(SAMPLE_LOGS), "--breaks", "--json"], "policy file"),
    "--plan-file": (["blocks", str(SAMPLE_LOGS), "--plan", "pro", "--json"], "plan file"),
}


@pytest.mark.parametrize("option", list(OPTIONS))
@pytest.mark.parametrize("name", list(NAMED))
def test_a_named_file_that_is_no_option_file_is_one_line_and_exit_2(
    tmp_path: Path, option: str, name: str
) -> None:
    make, reason = NAMED[name]
    path = make(tmp_path / "given.toml")
    arguments, what = OPTIONS[option]
    started = time.monotonic()
    done = sniff(*arguments, option, path, timeout=DEADLINE)
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == f"sniff: error: cannot read {what} {path}: {reason}\n"
    assert elapsed < DEADLINE


def damaged(path: Path) -> None:
    path.write_bytes(b'{"format": 4, "models": {')


def kept_too_large(path: Path) -> None:
    with path.open("wb") as file:
        file.truncate(KEPT_FILE_BYTES + 1)


KEPT: dict[str, Callable[[Path], None]] = {
    "fifo": fifo,
    "link to /dev/zero": link_to_zero,
    "damaged": damaged,
    "too large": kept_too_large,
}


def cache() -> Path:
    folder = Path(os.environ["SNIFF_CACHE_DIR"])  # this test's own (tests/conftest.py)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.mark.parametrize("name", list(KEPT))
def test_special_or_damaged_kept_prices_are_replaced_and_the_run_succeeds(name: str) -> None:
    kept = cache() / CACHE_FILE
    KEPT[name](kept)
    done = sniff("scan", "--json", "--no-index", str(SAMPLE_LOGS), timeout=DEADLINE)
    assert report_of(done)["totals"]["unpriced_requests"] == 0
    assert not kept.is_symlink() and kept.is_file()  # a regular file in its place
    assert msgspec.json.decode(kept.read_bytes())["models"]  # holding the prices just resolved


def test_a_kept_answer_replaced_by_a_fifo_is_answered_again(tmp_path: Path) -> None:
    good_logs(tmp_path)
    first = scan(str(tmp_path))
    [answer] = (cache() / "answers").glob("*.json")
    answer.unlink()
    fifo(answer)
    again = scan(str(tmp_path))
    assert report_of(again) == report_of(first)
    assert answer.is_file()  # kept anew
    assert json.loads(answer.read_bytes())["stdout"] == first.stdout


@pytest.mark.parametrize("name", ["fifo", "link to /dev/zero"])
def test_the_status_lines_kept_numbers_in_a_special_file_are_made_again(
    tmp_path: Path, name: str
) -> None:
    good_logs(tmp_path)
    transcript = next((tmp_path / "projects").rglob("*.jsonl"))
    memo = cache() / MEMO_FILE
    KEPT[name](memo)
    given = json.dumps({"session_id": "session-good", "transcript_path": str(transcript)})
    done = sniff("statusline", "--plain", "--parts", "session", input=given, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "session unpriced\n"  # worked out (prices: only those kept)
    assert memo.is_file() and not memo.is_symlink()


@pytest.mark.parametrize("name", list(KEPT))
def test_the_archive_numbers_in_a_special_file_are_not_read(name: str) -> None:
    path = archive.kept_path()
    assert path is not None
    KEPT[name](path)
    assert archive.load(time.time()) is None  # at once: a refresh writes them anew
