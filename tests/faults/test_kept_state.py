"""Fault injection: what sniff keeps between runs, damaged, is ignored and rebuilt (issue 18, §2).

A kept answer that is not one (valid JSON of the wrong shape, garbage) and an index row whose
columns or blobs do not decode (a damaged page SQLite does not notice, another program's
write) are read as if absent: the command prints what it printed before, and keeps them anew.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import msgspec
import pytest

from sniff.ingest.record import decode_result
from sniff.model import LineIssue
from tests.faults.test_poison_lines import CLAUDE_CODE, CLAUDE_TRACE, logs, run

SETTLED = (1_770_000_000, 1_770_000_000)
"""Times long past: answers are kept only for logs that no longer change."""


@pytest.mark.parametrize(
    "kept",
    [b'{"stdout": 5, "stderr": ""}', b"[1, 2]", b'"text"', b"\xff\xfe garbage", b""],
    ids=["wrong types", "a list", "a string", "garbage", "empty"],
)
def test_a_kept_answer_that_does_not_decode_is_ignored_and_rebuilt(tmp_path, kept):
    path = logs(tmp_path / "logs", CLAUDE_CODE)
    os.utime(path, SETTLED)  # settled: answers are kept only then
    first = run("scan", "--json", str(path))
    answers = Path(os.environ["SNIFF_CACHE_DIR"]) / "answers"
    [stored] = answers.glob("*.json")
    stored.write_bytes(kept)
    again = run("scan", "--json", str(path))
    assert again.exit_code == 0, again.output
    assert again.stdout == first.stdout
    assert msgspec.json.decode(stored.read_bytes())["stdout"] == first.stdout  # kept anew


@pytest.mark.parametrize(
    ("damage", "command"),
    [
        ("UPDATE files SET links = x'c1c1'", "scan"),
        ("UPDATE files SET issues = x'93a1'", "scan"),
        ("UPDATE files SET size = 'abc'", "scan"),
        ("UPDATE files SET first_at = 'x'", "scan"),
        ("UPDATE records SET data = x'c1'", "agents"),  # scan and sessions read kept parts
    ],
    ids=["links", "issues", "size", "first_at", "result"],
)
def test_an_index_row_that_does_not_decode_is_ignored_and_rebuilt(tmp_path, damage, command):
    folder = tmp_path / "logs"
    for session in (CLAUDE_CODE, CLAUDE_TRACE):
        os.utime(logs(folder, session), SETTLED)
    first = run(command, "--json", str(folder))
    cache = Path(os.environ["SNIFF_CACHE_DIR"])
    with sqlite3.connect(cache / "index.sqlite3") as db:
        db.execute(damage)
    for answer in (cache / "answers").glob("*.json"):
        answer.unlink()
    again = run(command, "--json", str(folder))
    assert again.exit_code == 0, again.output
    assert again.stdout == first.stdout
    with sqlite3.connect(cache / "index.sqlite3") as db:
        rows = db.execute(
            "SELECT size, first_at, links, issues, data FROM files JOIN records USING (path, mode)"
        ).fetchall()
    assert len(rows) == 2
    for size, first_at, links, issues, result in rows:  # each row rebuilt: all of it decodes
        assert isinstance(size, int) and isinstance(first_at, float)
        msgspec.msgpack.decode(links, type=list[str])
        msgspec.msgpack.decode(issues, type=list[LineIssue])
        decode_result(result)
