"""The on-disk index: a run with it gives exactly what a run without it gives, and parses less.

Every test changes log files the way the world does (a transcript grows, a line is cut short
then finished, a file is cut, rewritten, replaced, deleted, touched, two runs at once, a broken
index) and compares the whole dataset of an indexed run with an independent run with the index
off: every request field, every issue, the formats and file lists. A spy on the index's parse
entry points checks that an unchanged file is not parsed and that a grown one is read on from
where the last run stopped instead of again from its start.

Every test has its own index: `tests/conftest.py` gives each its own `SNIFF_CACHE_DIR`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import count
from pathlib import Path
from typing import Any

import msgspec
import pytest

from sniff.ingest.files.discover import SourceFile
from sniff.ingest.index import indexed
from sniff.ingest.index import rows as index_rows
from sniff.ingest.index.store import INDEX_FILE, Entry, IndexStore
from sniff.ingest.record import Prompts
from sniff.logs import load
from tests.conftest import REPO, SAMPLE_LOGS, Lines
from tests.unit.test_log_formats import token_count

T0 = datetime(2026, 3, 4, 10, 0, tzinfo=UTC)
HINT = "hint-folder"
"""The folder transcripts are written under: a project name other than the lines' `cwd`."""
CODEX_ROLLOUT = (
    SAMPLE_LOGS / "codex/sessions/2026/03/06"
    "/rollout-2026-03-06T14-02-11-019cc374-b49a-7d28-b41d-cadbc9b26756.jsonl"
)
CODEX_RECORDS = (
    SAMPLE_LOGS / "codex/sessions/2026/03/07"
    "/rollout-2026-03-07T09-41-37-019cc7ac-8135-72fd-962e-8b04bf85bc66.jsonl"
)
TRUNCATED = "truncated last line (file still being written?)"


# --- helpers -----------------------------------------------------------------------------------


def at(seconds: float) -> str:
    """A Claude Code timestamp `seconds` after T0."""
    moment = T0 + timedelta(seconds=seconds)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def totals(
    paths: list[Path],
    use_index: bool,
    *,
    window: tuple[float | None, float | None] = (None, None),
    with_prompts: Prompts = Prompts.NONE,
) -> dict[str, Any]:
    """Everything a run yields, in the order it yields it, as plain data (readable diffs)."""
    dataset = load(paths, use_index=use_index, window=window, with_prompts=with_prompts)
    return {
        "requests": [msgspec.to_builtins(request) for request in dataset.requests],
        "issues": [(i.file, i.line, i.reason, i.kept) for i in dataset.issues],
        "files": list(dataset.files),
        "formats": dict(dataset.formats),
        "unknown": list(dataset.unknown_files),
        "synthetic": dataset.synthetic,
    }


def same_as_without_index(paths: list[Path], **options: Any) -> dict[str, Any]:
    """An indexed run, checked against a run with the index off; the indexed run's data."""
    with_index = totals(paths, True, **options)
    assert with_index == totals(paths, False, **options)
    return with_index


def requests_of(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The requests of a `totals` result by key."""
    return {request["key"]: request for request in data["requests"]}


def append(path: Path, lines: Iterable[dict[str, Any] | bytes]) -> None:
    """Append lines as a writer does: dicts as whole JSON lines, bytes verbatim."""
    with open(path, "ab") as handle:
        for line in lines:
            handle.write(json.dumps(line).encode() + b"\n" if isinstance(line, dict) else line)


def turn(
    prefix: str,
    start: float,
    parent: str | None,
    *,
    output: int = 120,
    session: str = Lines.SESSION,
) -> list[dict[str, Any]]:
    """A prompt and a response streamed as two lines (text then tool use, usage repeated)."""
    user, first, second = f"{prefix}-u", f"{prefix}-a1", f"{prefix}-a2"
    usage = Lines.usage(4, read=2_000, write=300, output=output)
    tool = {"type": "tool_use", "id": f"toolu_{prefix}", "name": "Bash", "input": {"cmd": "ls"}}
    return [
        Lines.user(user, parent, at(start), f"Step {prefix}.", session=session),
        Lines.assistant(f"msg_{prefix}", first, user, at(start + 2), usage, session=session),
        Lines.assistant(
            f"msg_{prefix}", second, first, at(start + 3), usage, block=tool, session=session
        ),
    ]


def transcript(
    root: Path,
    name: str,
    turns: int,
    start: float = 0.0,
    *,
    fresh: bool = False,
    session: str = Lines.SESSION,
) -> Path:
    """A transcript of `turns` chained turns under `root/projects/<HINT>/`, dated an hour
    back (`fresh`: just written)."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    for number in range(turns):
        lines += turn(
            f"{name}{number}", start + 60 * number, parent, output=100 + number, session=session
        )
        parent = lines[-1]["uuid"]
    path = Lines.write(root / "projects" / HINT / f"{name}.jsonl", lines)
    if not fresh:
        settle(path)
    return path


def corpus(root: Path) -> dict[str, Path]:
    """A few files of every kind: transcripts, a bad line, rollouts, a request log, no format."""
    files = {
        "a": transcript(root, "a", 3),
        "b": transcript(root, "b", 2, start=3_600),
        "c": transcript(root, "c", 1, start=7_200),
        "codex": root / "codex" / CODEX_ROLLOUT.name,
        "records": root / "codex" / CODEX_RECORDS.name,
        "requests": root / "request-logs" / "anthropic-messages.jsonl",
        "odd": Lines.write(root / "odd" / "notes.jsonl", [{"hello": 1}, {"hello": 2}]),
    }
    append(files["c"], [b"this is not JSON\n"])
    for name, source in (
        ("codex", CODEX_ROLLOUT),
        ("records", CODEX_RECORDS),
        ("requests", SAMPLE_LOGS / "request-logs" / "anthropic-messages.jsonl"),
    ):
        files[name].parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, files[name])
    settle(root)
    return files


@dataclass
class Spy:
    """What the index parsed: (file, whether it had an index row) per task; files resumed."""

    tasks: list[tuple[str, bool]] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)

    def clear(self) -> None:
        self.tasks.clear()
        self.resumed.clear()

    @property
    def parsed(self) -> list[str]:
        return [path for path, _ in self.tasks]


@pytest.fixture(autouse=True)
def small_files_keep_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests' logs are a few KiB: let them keep a reader's state as a large log does
    (`test_a_small_file_keeps_no_state_and_is_read_whole_when_grown` checks the real limit)."""
    monkeypatch.setattr(index_rows, "STATE_MIN_BYTES", 0)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    """Watch `parse_task` and `_resume` (inputs this small are parsed in this process)."""
    seen = Spy()
    real_task, real_resume = index_rows.parse_task, index_rows._resume

    def parse_task(task: index_rows.Task, log_format: str | None, with_prompts: Prompts) -> Any:
        seen.tasks.append((task.file.path, task.entry is not None))
        return real_task(task, log_format, with_prompts)

    def resume(file: SourceFile, entry: Entry) -> index_rows.Parsed | None:
        answer = real_resume(file, entry)
        if answer is not None:
            seen.resumed.append(file.path)
        return answer

    monkeypatch.setattr(index_rows, "parse_task", parse_task)
    monkeypatch.setattr(index_rows, "_resume", resume)
    return seen


def index_entry(path: Path, with_prompts: Prompts = Prompts.NONE) -> Entry | None:
    """The index row of `path` (read by `logs.load` with default options)."""
    store = indexed.open_index()
    assert store is not None
    try:
        return store.entry(str(path), indexed.mode_of(None, with_prompts), with_state=True)
    finally:
        store.close()


def index_path() -> Path:
    return Path(os.environ["SNIFF_CACHE_DIR"]) / INDEX_FILE


_AGES = count()
_PAST_NS = time.time_ns() - 3_600 * 1_000_000_000


def settle(*paths: Path) -> None:
    """Date files (or the logs under folders) an hour back, each call a second later.

    Logs are seldom written in the second before a run; files modified that recently are
    stored as unconfirmed (`discover.RACY_NS`) and checked again by the next run.
    """
    moment = _PAST_NS + next(_AGES) * 1_000_000_000
    for path in paths:
        for file in sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]:
            os.utime(file, ns=(moment, moment))


# --- cold, warm, grown -------------------------------------------------------------------------


def test_a_warm_run_equals_the_cold_one_and_parses_nothing(tmp_path: Path, spy: Spy) -> None:
    files = corpus(tmp_path)
    cold = same_as_without_index([tmp_path])
    assert sorted(spy.parsed) == sorted(str(path) for path in files.values())
    assert all(not had_entry for _, had_entry in spy.tasks)
    assert cold["formats"] == {"claude-code": 3, "codex": 2, "request-log": 1}
    assert cold["unknown"] == [str(files["odd"])]
    assert [(file, line, kept) for file, line, _, kept in cold["issues"]] == [
        (str(files["c"]), 4, False)
    ]
    spy.clear()

    warm = same_as_without_index([tmp_path])

    assert warm == cold
    assert spy.tasks == []
    assert index_path().is_file()


def test_an_appended_transcript_is_read_on_from_its_old_end(tmp_path: Path, spy: Spy) -> None:
    other = transcript(tmp_path, "other", 2, start=9_000)
    usage = Lines.usage(4, read=2_000, write=300, output=1)
    path = Lines.write(
        tmp_path / "projects" / HINT / "grown.jsonl",
        [
            Lines.user("u1", None, at(0), "Fix the build."),
            Lines.assistant("msg_A", "a1", "u1", at(2), usage),
            Lines.assistant(
                "msg_A", "a2", "a1", at(3), usage, block={"type": "tool_use", "id": "toolu_1"}
            ),
            Lines.tool_result("u2", "a2", at(5), "toolu_1"),
        ],
    )
    first = same_as_without_index([tmp_path])
    assert requests_of(first)["msg_A"]["usage"]["output_tokens"] == 1
    spy.clear()

    # Claude Code writes a response's final usage late, after the tool result it started;
    # the new lines name no cwd, and point at records before the old end.
    final = Lines.usage(4, read=2_000, write=300, output=250)
    later = Lines.usage(6, read=2_300, write=0, output=40)
    append(
        path,
        [
            Lines.assistant("msg_A", "a3", "a2", at(4), final, cwd=None),
            Lines.assistant("msg_B", "b1", "u2", at(8), later, cwd=None),
            Lines.user("u3", "b1", at(20), "Now the docs.", cwd=None),
            Lines.assistant("msg_C", "c1", "u3", at(25), later, cwd=None),
        ],
    )
    grown = same_as_without_index([tmp_path])

    assert spy.tasks == [(str(path), True)]  # the other file is not parsed
    assert spy.resumed == [str(path)]
    found = requests_of(grown)
    assert found["msg_A"]["usage"]["output_tokens"] == 250
    assert found["msg_A"]["line"] == 5
    assert found["msg_A"]["started_at"] == "2026-03-04T10:00:00Z"  # u1: the old part
    assert found["msg_B"]["started_at"] == "2026-03-04T10:00:05Z"  # u2: the old part
    assert found["msg_B"]["previous"] == "msg_A"  # through a2, owned in the old part
    assert found["msg_C"]["previous"] == "msg_B"
    assert {found[key]["project"] for key in ("msg_A", "msg_B", "msg_C")} == {Lines.CWD}
    assert str(other) in grown["files"]

    # and once more: a run resumed from a resumed run's state
    spy.clear()
    append(path, turn("more", 60, "c1", output=77))
    again = same_as_without_index([tmp_path])
    assert spy.resumed == [str(path)]
    assert requests_of(again)["msg_more"]["previous"] == "msg_C"
    assert requests_of(again)["msg_more"]["line"] == 10


def test_an_old_file_keeps_no_state_until_it_grows(tmp_path: Path, spy: Spy) -> None:
    path = transcript(tmp_path, "old", 2)
    two_days_ago = time.time_ns() - 2 * 86_400 * 1_000_000_000
    os.utime(path, ns=(two_days_ago, two_days_ago))
    same_as_without_index([tmp_path])
    entry = index_entry(path)
    assert entry is not None and entry.state is None  # a first run writes no state for it
    spy.clear()

    append(path, turn("late", 600, "old1-a2"))
    settle(path)
    os.utime(path, ns=(two_days_ago + 10**9, two_days_ago + 10**9))  # still old, but grown
    grown = same_as_without_index([tmp_path])
    assert spy.tasks == [(str(path), False)] and spy.resumed == []  # read whole, once
    assert requests_of(grown)["msg_late"]["previous"] == "msg_old1"
    entry = index_entry(path)
    assert entry is not None and entry.state is not None  # seen to grow: now it is kept
    spy.clear()

    append(path, turn("later", 900, "late-a2"))
    again = same_as_without_index([tmp_path])
    assert spy.resumed == [str(path)]
    assert requests_of(again)["msg_later"]["previous"] == "msg_late"


def test_a_small_file_keeps_no_state_and_is_read_whole_when_grown(
    tmp_path: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_rows, "STATE_MIN_BYTES", 1 << 20)
    path = transcript(tmp_path, "small", 2)
    same_as_without_index([tmp_path])
    entry = index_entry(path)
    assert entry is not None and entry.state is None and entry.size < index_rows.STATE_MIN_BYTES
    spy.clear()

    append(path, turn("late", 600, "small1-a2"))
    settle(path)
    grown = same_as_without_index([tmp_path])
    assert spy.tasks == [(str(path), False)] and spy.resumed == []  # read whole
    assert requests_of(grown)["msg_late"]["previous"] == "msg_small1"
    entry = index_entry(path)
    assert entry is not None and entry.state is None  # grown, but still small


def test_a_cut_last_line_is_reported_then_counted_once_finished(tmp_path: Path, spy: Spy) -> None:
    path = transcript(tmp_path, "live", 2)
    whole = json.dumps(
        Lines.assistant("msg_late", "late-a", "live1-a2", at(200), Lines.usage(9, 3_000, 0, 55))
    ).encode()
    append(path, [whole[:70]])
    first = same_as_without_index([tmp_path])
    assert first["issues"] == [(str(path), 7, TRUNCATED, False)]
    assert "msg_late" not in requests_of(first)

    append(path, [whole[70:140]])  # still being written
    spy.clear()
    middle = same_as_without_index([tmp_path])
    assert middle["issues"] == [(str(path), 7, TRUNCATED, False)]
    assert spy.resumed == [str(path)]

    append(path, [whole[140:] + b"\n"])
    spy.clear()
    done = same_as_without_index([tmp_path])
    assert done["issues"] == []
    assert requests_of(done)["msg_late"]["usage"]["output_tokens"] == 55
    assert requests_of(done)["msg_late"]["line"] == 7
    assert spy.resumed == [str(path)]


def test_a_whole_last_line_without_newline_counts_then_stays_counted(tmp_path: Path) -> None:
    path = transcript(tmp_path, "nl", 1)
    line = Lines.assistant("msg_tail", "t-a", "nl0-a2", at(100), Lines.usage(5, 0, 0, 12))
    append(path, [json.dumps(line).encode()])  # no newline yet
    assert "msg_tail" in requests_of(same_as_without_index([tmp_path]))
    append(path, [b"\n", *turn("next", 200, "t-a")])
    found = requests_of(same_as_without_index([tmp_path]))
    assert {"msg_tail", "msg_next"} <= set(found)


# --- cut, rewritten, replaced, deleted, touched ------------------------------------------------


def truncate(path: Path) -> None:
    data = path.read_bytes()
    cut = data.rfind(b"\n", 0, len(data) // 2) + 1
    with open(path, "r+b") as handle:
        handle.truncate(cut)


def truncate_then_grow(path: Path) -> None:
    """Cut, then written past the old end: longer than before, same inode."""
    truncate(path)
    append(path, turn("regrown", 500, None, output=999) + turn("regrown2", 600, None))


def rewrite_same_length(path: Path) -> None:
    """The last response's output count changed in place: same bytes count, same inode."""
    data = path.read_bytes()
    at_ = data.rindex(b'"output_tokens": 1')  # 100 + its turn's number: three digits
    with open(path, "r+b") as handle:
        handle.seek(at_)
        handle.write(b'"output_tokens": 987')


def rewrite_larger(path: Path) -> None:
    """Other content written over the file in place ("wb" keeps the inode), and longer."""
    data, parent = b"", None
    while len(data) <= path.stat().st_size:
        number = data.count(b"\n") // 3
        lines = turn(f"x{number}", 1_000 + 60 * number, parent, output=5 + number)
        data += b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        parent = lines[-1]["uuid"]
    with open(path, "wb") as handle:
        handle.write(data)


def replace(path: Path) -> None:
    """A new file moved over the old one (a new inode): the first response changed, more
    lines after the old end, and the last 4 KiB before it as they were."""
    data = path.read_bytes().replace(b'"output_tokens": 100', b'"output_tokens": 321')
    data += b"".join(json.dumps(line).encode() + b"\n" for line in turn("new", 900, None))
    fresh = path.with_suffix(".tmp")
    fresh.write_bytes(data)
    os.replace(fresh, path)


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "truncated": truncate,
    "truncated-then-grown": truncate_then_grow,
    "rewritten-same-length": rewrite_same_length,
    "rewritten-larger": rewrite_larger,
    "replaced": replace,
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_a_changed_file_is_read_again_whole(tmp_path: Path, spy: Spy, mutation: str) -> None:
    path = transcript(tmp_path, "changed", 8)  # larger than CHECK_BYTES
    assert path.stat().st_size > 2 * index_rows.CHECK_BYTES
    kept = transcript(tmp_path, "kept", 2, start=5_000)
    before = same_as_without_index([tmp_path])
    inode = path.stat().st_ino
    spy.clear()

    MUTATIONS[mutation](path)
    settle(path)
    after = same_as_without_index([tmp_path])

    assert after != before
    assert spy.parsed == [str(path)]  # `kept` is not parsed
    assert spy.resumed == []  # read whole, not on from a stale offset
    assert (path.stat().st_ino == inode) == (mutation != "replaced")
    assert str(kept) in after["files"]
    spy.clear()
    assert same_as_without_index([tmp_path]) == after
    assert spy.tasks == []


def test_a_file_rewritten_within_its_timestamps_resolution_is_seen(
    tmp_path: Path, spy: Spy
) -> None:
    path = transcript(tmp_path, "racy", 3, fresh=True)  # a run right after a write
    stamp = path.stat().st_mtime_ns
    first = same_as_without_index([tmp_path])
    spy.clear()

    rewrite_same_length(path)
    os.utime(path, ns=(stamp, stamp))  # the clock did not tick: size, mtime, inode as before
    after = same_as_without_index([tmp_path])

    assert after != first
    assert spy.parsed == [str(path)]


def test_a_file_unchanged_since_a_run_right_after_its_write_is_read_on_not_whole(
    tmp_path: Path, spy: Spy
) -> None:
    """A watch steps again before anything more is written: the row it stored too soon to be
    trusted is checked from where it ended (its last bytes as before), not read whole."""
    path = transcript(tmp_path, "racy", 3, fresh=True)  # a run right after a write
    first = same_as_without_index([tmp_path])
    spy.clear()
    again = same_as_without_index([tmp_path])
    assert again == first
    assert spy.resumed == [str(path)]  # read on from its offset: nothing new after it


def test_a_deleted_file_drops_out_of_results_and_index(tmp_path: Path, spy: Spy) -> None:
    gone = transcript(tmp_path, "gone", 2)
    transcript(tmp_path, "stays", 2, start=5_000)
    before = same_as_without_index([tmp_path])
    assert index_entry(gone) is not None
    spy.clear()

    gone.unlink()
    after = same_as_without_index([tmp_path])

    assert spy.tasks == []
    assert str(gone) not in after["files"]
    assert len(after["requests"]) == len(before["requests"]) - 2
    assert index_entry(gone) is None


def test_a_touched_file_is_checked_again_and_stays_the_same(tmp_path: Path, spy: Spy) -> None:
    path = transcript(tmp_path, "touched", 2)
    transcript(tmp_path, "untouched", 1, start=5_000)
    before = same_as_without_index([tmp_path])
    old = index_entry(path)
    assert old is not None and old.mtime_ns == path.stat().st_mtime_ns
    spy.clear()

    later = path.stat().st_mtime_ns + 7_000_000_000
    os.utime(path, ns=(later, later))
    after = same_as_without_index([tmp_path])

    assert after == before
    assert spy.tasks == [(str(path), False)]  # it did not grow: read whole, as if rewritten
    assert spy.resumed == []
    new = index_entry(path)
    assert new is not None and (new.mtime_ns, new.offset) == (later, old.offset)
    spy.clear()
    assert same_as_without_index([tmp_path]) == before
    assert spy.tasks == []


# --- codex -------------------------------------------------------------------------------------


def codex_output(timestamp: str) -> dict[str, Any]:
    item = {"type": "message", "role": "assistant", "content": [{"type": "output_text"}]}
    return {"timestamp": timestamp, "type": "response_item", "payload": item}


def codex_input(timestamp: str) -> dict[str, Any]:
    payload = {"type": "user_message", "message": "And the README."}
    return {"timestamp": timestamp, "type": "event_msg", "payload": payload}


def test_an_appended_codex_rollout_is_read_on(tmp_path: Path, spy: Spy) -> None:
    rollout = tmp_path / "sessions" / CODEX_ROLLOUT.name
    records = tmp_path / "sessions" / CODEX_RECORDS.name
    rollout.parent.mkdir()
    shutil.copyfile(CODEX_ROLLOUT, rollout)
    shutil.copyfile(CODEX_RECORDS, records)
    settle(tmp_path)
    before = same_as_without_index([tmp_path])
    spy.clear()

    total = (144_985, 110_720, 3_563, 1_500)
    append(
        rollout,
        [
            codex_input("2026-03-06T14:08:00.000Z"),
            codex_output("2026-03-06T14:08:03.000Z"),
            token_count("2026-03-06T14:08:04.000Z", total, (20_000, 18_560, 200, 28)),
            token_count("2026-03-06T14:08:04.100Z", total, (20_000, 18_560, 200, 28)),  # repeat
        ],
    )
    after = same_as_without_index([tmp_path])

    assert spy.tasks == [(str(rollout), True)] and spy.resumed == [str(rollout)]
    new = [r for r in after["requests"] if r not in before["requests"]]
    assert len(new) == 1
    assert new[0]["usage"]["cache_read_tokens"] == 18_560
    assert new[0]["started_at"] == "2026-03-06T14:08:00Z"
    assert new[0]["first_token_at"] == "2026-03-06T14:08:03Z"
    assert new[0]["previous"] is not None and new[0]["line"] == 77
    assert len(after["requests"]) == len(before["requests"]) + 1


# --- window ------------------------------------------------------------------------------------


def test_a_window_skips_unchanged_files_far_outside_it(tmp_path: Path) -> None:
    # three sessions: a file is skipped only with every file it shares a session or call with
    old = transcript(tmp_path, "old", 2, session="old-session")  # 2026-03-04
    near = transcript(tmp_path, "near", 1, start=8.5 * 86_400)  # half a day before `since`
    new = transcript(tmp_path, "new", 2, start=10 * 86_400)  # 2026-03-14
    warm = same_as_without_index([tmp_path])
    since = (T0 + timedelta(days=9)).timestamp()

    windowed = totals([tmp_path], True, window=(since, None))
    plain = totals([tmp_path], False)

    # `old` is not decoded; `near`, within the margin, is (context for the requests inside)
    assert {r["file"] for r in windowed["requests"]} == {str(near), str(new)}
    assert {r["file"] for r in warm["requests"]} == {str(old), str(near), str(new)}

    def inside(data: dict[str, Any]) -> list[dict[str, Any]]:
        def when(request: dict[str, Any]) -> float:
            stamp = request["started_at"] or request["ended_at"]
            return datetime.fromisoformat(stamp).timestamp()

        return [request for request in data["requests"] if when(request) >= since]

    assert inside(windowed) == inside(plain) and len(inside(plain)) == 2
    assert windowed["files"] == plain["files"] and windowed["formats"] == plain["formats"]

    # until: the new file is wholly after it
    until = (T0 + timedelta(days=2)).timestamp()
    before_until = totals([tmp_path], True, window=(None, until))
    assert {r["file"] for r in before_until["requests"]} == {str(old)}
    assert [r for r in before_until["requests"] if r["file"] == str(old)] == [
        r for r in plain["requests"] if r["file"] == str(old)
    ]
    # a window that holds both decodes both; no window after that decodes everything again
    assert totals([tmp_path], True, window=(T0.timestamp(), None)) == warm
    assert same_as_without_index([tmp_path]) == warm


def test_a_window_reads_a_changed_file_even_when_it_was_outside(tmp_path: Path) -> None:
    path = transcript(tmp_path, "revived", 1)
    same_as_without_index([tmp_path])
    since = (T0 + timedelta(days=30)).timestamp()
    append(path, turn("revived-later", 31 * 86_400, "revived0-a2"))

    windowed = totals([tmp_path], True, window=(since, None))

    assert "msg_revived-later" in requests_of(windowed)
    assert same_as_without_index([tmp_path]) == totals([tmp_path], False)


# --- two runs at once, a broken index, another version, no place for it ----------------------


def scan_json(folder: Path, *options: str) -> subprocess.Popen[str]:
    """`sniff scan --json` in a process of its own (`--verbose`: read, never a kept answer)."""
    return subprocess.Popen(
        [sys.executable, "-m", "sniff", "scan", "--json", str(folder), *options],
        cwd=REPO,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def output_of(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    parsed: dict[str, Any] = json.loads(out)
    return parsed


def test_two_runs_at_once_give_the_same_numbers(tmp_path: Path) -> None:
    for number in range(240):
        transcript(tmp_path / "logs", f"s{number:03d}", 1 + number % 3, start=number * 900)
    folder = tmp_path / "logs"
    expected = output_of(scan_json(folder, "--no-index"))
    assert expected["totals"]["requests"] == 480
    assert not index_path().exists()

    first, second = scan_json(folder, "--verbose"), scan_json(folder, "--verbose")
    assert output_of(first) == expected
    assert output_of(second) == expected
    assert output_of(scan_json(folder, "--verbose")) == expected  # from the index they left
    store = indexed.open_index()
    assert store is not None
    try:
        assert store.stats().files == 240
    finally:
        store.close()


def test_a_garbage_index_is_rebuilt(tmp_path: Path, spy: Spy) -> None:
    corpus(tmp_path)
    expected = same_as_without_index([tmp_path])
    index_path().write_bytes(os.urandom(20_000))
    spy.clear()

    assert same_as_without_index([tmp_path]) == expected
    assert len(spy.tasks) == 7
    spy.clear()
    assert same_as_without_index([tmp_path]) == expected
    assert spy.tasks == []


def test_a_cut_short_index_still_gives_the_right_numbers(tmp_path: Path, spy: Spy) -> None:
    corpus(tmp_path)
    expected = same_as_without_index([tmp_path])
    data = index_path().read_bytes()
    for size in (len(data) // 2, 4_096, 100):
        index_path().write_bytes(data[:size])
        assert same_as_without_index([tmp_path]) == expected
        spy.clear()
        assert same_as_without_index([tmp_path]) == expected
        assert spy.tasks == []  # rebuilt by the run before


def test_the_command_line_with_the_index_prints_what_it_prints_without(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    files = corpus(folder)

    def both() -> dict[str, Any]:
        with_index = output_of(scan_json(folder, "--verbose", "--tz", "UTC"))
        assert with_index == output_of(scan_json(folder, "--no-index", "--tz", "UTC"))
        return with_index

    cold = both()
    assert both() == cold
    append(files["a"], turn("cli", 400, "a2-a2", output=4_321))
    grown = both()
    assert grown["totals"]["output_tokens"] == cold["totals"]["output_tokens"] + 4_321
    files["b"].unlink()
    assert both()["totals"]["requests"] == grown["totals"]["requests"] - 2


def test_another_fingerprint_reparses_everything(
    tmp_path: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = corpus(tmp_path)
    expected = same_as_without_index([tmp_path])
    spy.clear()

    monkeypatch.setattr(indexed, "fingerprint", lambda: "another-version")
    assert same_as_without_index([tmp_path]) == expected
    assert sorted(spy.parsed) == sorted(str(path) for path in files.values())
    assert all(not had_entry for _, had_entry in spy.tasks)
    spy.clear()
    assert same_as_without_index([tmp_path]) == expected
    assert spy.tasks == []


def test_no_place_for_an_index_still_gives_the_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus(tmp_path / "logs")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("SNIFF_CACHE_DIR", str(blocker))
    assert indexed.open_index() is None
    expected = same_as_without_index([tmp_path / "logs"])
    assert same_as_without_index([tmp_path / "logs"]) == expected
    assert blocker.read_text() == "a file where the cache folder should be"

    monkeypatch.setenv("SNIFF_CACHE_DIR", "")  # empty: no cache, no index
    assert indexed.open_index() is None
    assert totals([tmp_path / "logs"], True) == expected


def test_prompt_reading_modes_are_kept_apart(tmp_path: Path, spy: Spy) -> None:
    corpus(tmp_path)
    plain = same_as_without_index([tmp_path])
    sized = same_as_without_index([tmp_path], with_prompts=Prompts.SIZED)
    assert sized != plain  # the request log's prompts are read into blocks
    spy.clear()
    text = same_as_without_index([tmp_path], with_prompts=Prompts.TEXT)
    assert text != sized  # the blocks keep their text, the requests what their bodies said
    spy.clear()
    assert same_as_without_index([tmp_path], with_prompts=Prompts.SIZED) == sized
    assert same_as_without_index([tmp_path], with_prompts=Prompts.TEXT) == text
    assert same_as_without_index([tmp_path]) == plain
    assert spy.tasks == []


def test_sniff_index_counts_each_file_once_however_often_it_was_read(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sniff.cli import app

    files = corpus(tmp_path)
    same_as_without_index([tmp_path])
    same_as_without_index([tmp_path], with_prompts=Prompts.SIZED)  # a second row for every file
    store = indexed.open_index()
    assert store is not None
    try:
        held = store.stats()
    finally:
        store.close()
    assert held.files == len(files)
    assert held.size == sum(path.stat().st_size for path in files.values())
    assert held.readings == 2 * len(files)

    result = CliRunner().invoke(app, ["index"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert f": {len(files)} files, " in text
    assert f"({2 * len(files)} readings: a file is kept once for each way" in text


# --- found wanting -----------------------------------------------------------------------------


def test_a_corrupt_page_in_the_index_gets_it_rebuilt(tmp_path: Path, spy: Spy) -> None:
    corpus(tmp_path)
    expected = same_as_without_index([tmp_path])
    with contextlib.closing(sqlite3.connect(index_path())) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        [(root_page,)] = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'files'")
        [(page_size,)] = db.execute("PRAGMA page_size")
    with open(index_path(), "r+b") as handle:  # a disk error, half a page write
        handle.seek((root_page - 1) * page_size)
        handle.write(b"\xa5" * page_size)

    assert same_as_without_index([tmp_path]) == expected  # right numbers regardless
    spy.clear()
    assert same_as_without_index([tmp_path]) == expected
    assert spy.tasks == []  # the run before left a working index


def test_an_in_place_edit_early_in_a_large_file_is_seen(tmp_path: Path) -> None:
    path = transcript(tmp_path, "big", 8)
    assert path.stat().st_size > 2 * index_rows.CHECK_BYTES
    same_as_without_index([tmp_path])

    data = path.read_bytes()
    at_ = data.index(b'"output_tokens": 100')  # the first response, far before the end
    assert at_ < path.stat().st_size - index_rows.CHECK_BYTES
    with open(path, "r+b") as handle:
        handle.seek(at_)
        handle.write(b'"output_tokens": 987')
    settle(path)

    same_as_without_index([tmp_path])


def test_a_file_that_could_not_be_read_is_read_once_it_can(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = transcript(tmp_path, "locked", 2)
    locked = True
    real_open = os.open

    def guarded_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if locked and str(file) == str(path):  # as a chmod 000 file does for a non-root user
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_open)  # where logs are opened
    first = totals([tmp_path], True)
    assert first["issues"] == [(str(path), 0, "cannot read file: Permission denied", False)]
    assert first["requests"] == []

    locked = False  # as `chmod 644` does, but with its identity unchanged: the row never matches
    same_as_without_index([tmp_path])


def codex_fork(root: Path) -> tuple[Path, Path]:
    """A parent rollout of 2026-03-01, and a fork of it on 2026-03-10 that replays its history."""

    def meta(session: str, timestamp: str) -> dict[str, Any]:
        payload = {"id": session, "cwd": "/home/dana/src/tilesrv", "cli_version": "0.104.0"}
        return {"timestamp": timestamp, "type": "session_meta", "payload": payload}

    def model(timestamp: str) -> dict[str, Any]:
        return {"timestamp": timestamp, "type": "turn_context", "payload": {"model": "gpt-5"}}

    first, second, third = (10_000, 2_048, 300, 100), (22_000, 11_776, 700, 250), (35_000,) * 4
    parent = Lines.write(
        root / "2026/03/01/rollout-parent.jsonl",
        [
            meta("019c-parent", "2026-03-01T09:00:00.000Z"),
            model("2026-03-01T09:00:01.000Z"),
            token_count("2026-03-01T09:00:20.000Z", first, first),
            token_count("2026-03-01T09:01:10.000Z", second, (12_000, 9_728, 400, 150)),
        ],
    )
    child = Lines.write(
        root / "2026/03/10/rollout-child.jsonl",
        [
            meta("019c-child", "2026-03-10T15:00:00.000Z"),
            meta("019c-parent", "2026-03-10T15:00:00.000Z"),
            model("2026-03-10T15:00:00.100Z"),
            token_count("2026-03-10T15:00:00.200Z", first, first),
            token_count("2026-03-10T15:00:00.300Z", second, (12_000, 9_728, 400, 150)),
            token_count("2026-03-10T15:01:30.000Z", (35_000, 21_504, 900, 300), third),
        ],
    )
    settle(parent, child)
    return parent, child


def test_a_window_does_not_count_a_forks_replay_of_a_skipped_parent(tmp_path: Path) -> None:
    codex_fork(tmp_path)
    same_as_without_index([tmp_path])  # warm
    since = datetime(2026, 3, 9, tzinfo=UTC).timestamp()

    def inside(data: dict[str, Any]) -> list[str]:
        return [
            request["key"]
            for request in data["requests"]
            if datetime.fromisoformat(request["started_at"] or request["ended_at"]).timestamp()
            >= since
        ]

    plain = inside(totals([tmp_path], False))
    assert len(plain) == 1  # only the fork's own request
    assert inside(totals([tmp_path], True, window=(since, None))) == plain


def test_a_row_rewritten_by_another_run_mid_read_is_not_mixed_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = transcript(tmp_path, "shared", 2)
    same_as_without_index([tmp_path])
    append(path, [b"{not json\n", *turn("shared-more", 300, "shared1-a2")])
    real_entry = IndexStore.entry
    interleaved = False

    def entry(self: IndexStore, file: str, mode: str, **how: bool) -> Entry | None:
        nonlocal interleaved
        if how.get("with_state") and not interleaved:
            # another run reads the same grown file and writes its row between this run's
            # first look at the row and its reading of the kept state
            interleaved = True
            load([tmp_path])
        return real_entry(self, file, mode, **how)

    monkeypatch.setattr(IndexStore, "entry", entry)
    racing = totals([tmp_path], True)
    assert interleaved
    monkeypatch.setattr(IndexStore, "entry", real_entry)
    plain = totals([tmp_path], False)

    assert racing == plain
    assert totals([tmp_path], True) == plain


def test_a_window_does_not_hide_the_lines_a_run_could_not_read(tmp_path: Path) -> None:
    old = transcript(tmp_path, "old-bad", 1)
    append(old, [b"this is not JSON\n"])
    settle(old)
    transcript(tmp_path, "recent", 1, start=30 * 86_400)
    since = (T0 + timedelta(days=20)).timestamp()

    cold = totals([tmp_path], True, window=(since, None))  # nothing indexed: all decoded
    assert [issue[1] for issue in cold["issues"]] == [4]
    assert cold["issues"] == totals([tmp_path], False, window=(since, None))["issues"]
    warm = totals([tmp_path], True, window=(since, None))
    assert warm["issues"] == cold["issues"]


# --- kept scan parts ---------------------------------------------------------------------------


def scan_in_process(folder: Path, *options: str) -> dict[str, Any]:
    from typer.testing import CliRunner

    from sniff.cli import app

    result = CliRunner().invoke(app, ["scan", "--json", "--verbose", str(folder), *options])
    assert result.exit_code == 0, result.output
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many units each scan analysed (rather than took from the index)."""
    from sniff.workspace import scan as scan_run

    counts: list[int] = []
    real = scan_run.scan_part

    def counting(*args: Any, **kwargs: Any) -> Any:
        counts[-1] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(scan_run, "scan_part", counting)
    return counts


def test_a_scan_of_other_folders_keeps_this_ones_parts(tmp_path: Path, analysed: list[int]) -> None:
    for name in ("one", "two"):
        for number in range(3):
            session = f"{name}-session-{number}"  # one unit each
            transcript(tmp_path / name, f"{name}{number}", 2, start=3_600 * number, session=session)
    runs = []
    for name in ("one", "two", "one"):
        analysed.append(0)
        runs.append(scan_in_process(tmp_path / name, "--tz", "UTC"))
    assert analysed == [3, 3, 0]  # the second scan of `one` analyses nothing again
    assert runs[2] == runs[0] == scan_in_process(tmp_path / "one", "--tz", "UTC", "--no-index")


def test_parts_of_long_unused_scopes_are_forgotten(
    tmp_path: Path, analysed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sniff.ingest.index.store.KEPT_SCOPES", 2)
    transcript(tmp_path, "only", 2)
    for zone in ("UTC", "Europe/Paris", "Asia/Tokyo"):  # three scopes, two kept
        analysed.append(0)
        scan_in_process(tmp_path, "--tz", zone)
    with contextlib.closing(sqlite3.connect(index_path())) as db:
        scopes = db.execute("SELECT COUNT(DISTINCT scope) FROM parts").fetchone()[0]
    assert scopes == 2
    for zone in ("Asia/Tokyo", "Europe/Paris", "UTC"):
        analysed.append(0)
        scan_in_process(tmp_path, "--tz", zone)
    assert analysed == [1, 1, 1, 0, 0, 1]  # UTC's parts were the least recently used


@pytest.mark.parametrize("state", [b"kept state " * 40, None])
def test_a_big_row_is_stored_a_block_at_a_time_and_read_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, state: bytes | None
) -> None:
    from sniff.ingest.index import store as index_store

    monkeypatch.setattr(index_store, "BLOB_ROW_BYTES", 64)
    store = IndexStore.open(tmp_path, "test")
    assert store is not None
    rows = [
        Entry(f"/logs/{name}.jsonl", 10, 1, 2, 3, 9, 1, 7, None, None, result, state)
        for name, result in (("big", bytes(range(256)) * 3), ("small", b"r"))
    ]
    store.write("m", [*rows, rows[0]])  # the same big row twice: the second replaces it
    for row in rows:
        found = store.entry(row.path, "m", with_state=True)
        assert found is not None and found.state == row.state
        assert store.result(row.path, "m") == [(row.lines, row.result)]
    assert len(store.entries([row.path for row in rows], "m")) == 2


def test_a_reading_on_is_stored_after_the_records_it_follows_and_once(tmp_path: Path) -> None:
    store = IndexStore.open(tmp_path, "test")
    assert store is not None
    first = Entry("/logs/a.jsonl", 10, 1, 2, 3, 10, 2, 7, None, None, b"first", b"state")
    on = Entry("/logs/a.jsonl", 20, 1, 2, 3, 20, 4, 8, None, None, b"more", b"state", after=2)
    store.write("m", [first])
    store.write("m", [on])
    store.write("m", [on])  # two runs read the same lines on: the second finds them stored
    assert store.result(first.path, "m") == [(2, b"first"), (4, b"more")]
    store.join_records(first.path, "m", 2, b"joined")
    assert store.result(first.path, "m") == [(2, b"joined"), (4, b"more")]
    store.write("m", [first])  # read whole again: its records replace every part
    assert store.result(first.path, "m") == [(2, b"first")]


def test_a_transcript_read_on_many_times_is_stored_in_one_part_again(
    tmp_path: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(indexed, "JOINED_PARTS", 1)
    path = transcript(tmp_path, "long", 1)
    same_as_without_index([tmp_path])
    for number in (1, 2):
        append(
            path, turn(f"more{number}", 60.0 * number, "long0-a2" if number == 1 else "more1-a2")
        )
        settle(path)
        same_as_without_index([tmp_path])
    assert spy.resumed == [str(path), str(path)]
    with sqlite3.connect(index_path()) as db:
        assert db.execute("SELECT COUNT(*) FROM records").fetchone() == (1,)
    assert requests_of(same_as_without_index([tmp_path])).keys() == {
        "msg_long0",
        "msg_more1",
        "msg_more2",
    }
