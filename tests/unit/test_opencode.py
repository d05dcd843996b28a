"""OpenCode's and Kilo CLI's logs: detection, what counts as a request, and bad input."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.files.log_formats import detect, detect_database, detect_document
from sniff.ingest.files.sqlite_read import BUSY_MS
from sniff.ingest.formats.opencode.reader import parse
from sniff.ingest.record import FileResult, Prompts
from sniff.logs import load
from sniff.model import Harness
from tests.golden.opencode_sample import SCHEMA
from tests.golden.opencode_sample import tokens as usage

T0 = 1_772_704_800_000  # 2026-03-05, in OpenCode's milliseconds
SONNET = {"modelID": "claude-sonnet-4-5", "providerID": "anthropic"}


def assistant(tokens: dict[str, Any], cost: float, **extra: Any) -> dict[str, Any]:
    times = {"created": T0, "completed": T0 + 9000}
    return {"role": "assistant", "time": times, "parentID": "msg_u", "mode": "build",
            "agent": "build", "path": {"cwd": "/p", "root": "/p"}, "cost": cost,
            "tokens": tokens, **SONNET, **extra}  # fmt: skip


def step(tokens: dict[str, Any], cost: float) -> dict[str, Any]:
    return {"type": "step-finish", "reason": "tool-calls", "cost": cost, "tokens": tokens}


TWO_STEPS = [
    ("prt_1", {"type": "step-start"}),
    ("prt_2", step(usage(10, 0, 500, 40), 0.25)),
    ("prt_3", {"type": "step-start"}),
    ("prt_4", step(usage(3, 500, 60, 20), 0.125)),
]
# the message's tokens are its last step's, its cost the sum
TWO_STEP_MESSAGE = ("msg_a", "ses_1", assistant(usage(3, 500, 60, 20), 0.375))


def database(
    path: Path,
    messages: list[tuple[str, str, Any]],
    parts: list[tuple[str, str, Any]] = (),  # type: ignore[assignment]
    journal: str = "delete",
) -> Path:
    """An OpenCode database of (id, session, data) messages and (id, message, data) parts; a
    `data` that is bytes is stored as it is (a row that does not parse)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(f"pragma journal_mode = {journal}")
        db.executescript(SCHEMA)
        for message, session, data in messages:
            db.execute(
                "insert into message values (?, ?, ?, ?, ?)",
                (message, session, T0, T0, _text(data)),
            )
        for part, message, data in parts:
            db.execute(
                "insert into part values (?, ?, 'ses_1', ?, ?, ?)",
                (part, message, T0, T0, _text(data)),
            )
    return path


def _text(data: Any) -> str | bytes:
    return data if isinstance(data, bytes) else json.dumps(data)


def read(path: Path) -> FileResult:
    return parse(str(path), b"", "hint", Prompts.NONE)


def totals(result: FileResult) -> tuple[int, ...]:
    return tuple(map(sum, zip(*(r.usage for r in result.responses), strict=True)))


@pytest.fixture
def two_steps(tmp_path: Path) -> Path:
    return database(
        tmp_path / "opencode.db", [TWO_STEP_MESSAGE], [(p, "msg_a", d) for p, d in TWO_STEPS]
    )


# --- detection ----------------------------------------------------------------------------


def test_databases_and_legacy_messages_are_claimed_and_nothing_else(two_steps: Path) -> None:
    assert detect_database(str(two_steps)) == "opencode"
    legacy = {"id": "msg_a", "sessionID": "ses_1", **TWO_STEP_MESSAGE[2]}
    assert detect_document(json.dumps(legacy, indent=2).encode()) == "opencode"
    claude = {"type": "assistant", "sessionId": "s", "uuid": "u", "message": {"id": "msg_1"}}
    part = {"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_a", "type": "step-start"}
    session = {"id": "ses_1", "projectID": "p", "directory": "/p", "time": {"created": T0}}
    for other in (claude, part, session, [legacy], {"messages": [legacy]}):
        assert detect_document(json.dumps(other).encode()) is None
    # a legacy message is one document, never lines of a log another parser reads
    assert detect(json.dumps(legacy).encode()) is None


def test_other_databases_are_not_claimed(tmp_path: Path) -> None:
    with closing(sqlite3.connect(tmp_path / "sessions.db")) as db:
        db.execute("create table sessions (id text)")
        db.execute("create table messages (id text)")
    assert detect_database(str(tmp_path / "sessions.db")) != "opencode"  # Goose's shape


def test_log_format_forces_the_parser_on_a_document_it_does_not_claim(tmp_path: Path) -> None:
    untimed = {k: v for k, v in TWO_STEP_MESSAGE[2].items() if k != "time"}
    path = tmp_path / "msg_a.json"
    path.write_text(json.dumps({"id": "msg_a", "sessionID": "ses_1", **untimed}))
    assert load([path], use_index=False).requests == ()
    forced = load([path], log_format="opencode", use_index=False)
    assert forced.formats == {"opencode": 1}
    assert [r.usage.input_tokens for r in forced.requests] == [3]


# --- what counts ----------------------------------------------------------------------------


def test_each_step_is_a_request_and_the_message_row_is_not_added(two_steps: Path) -> None:
    result = read(two_steps)
    assert [r.key for r in result.responses] == ["opencode:msg_a:prt_2", "opencode:msg_a"]
    assert totals(result) == (13, 500, 560, 0, 60, 0)
    assert [r.reported_cost_usd for r in result.responses] == [0.25, 0.125]
    assert result.responses[1].previous == "opencode:msg_a:prt_2"
    assert {r.harness for r in result.responses} == {Harness.OPENCODE}
    assert result.issues == []


def test_a_legacy_copy_of_a_message_counts_once_beside_the_database(
    tmp_path: Path, two_steps: Path
) -> None:
    """The legacy file of the same message, without its parts: its tokens are the last step's,
    the same call as the database's last step."""
    legacy = tmp_path / "storage" / "message" / "ses_1" / "msg_a.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text(
        json.dumps({"id": "msg_a", "sessionID": "ses_1", **TWO_STEP_MESSAGE[2]}, indent=2)
    )
    dataset = load([tmp_path], use_index=False)
    assert dataset.formats == {"opencode": 2}
    assert len(dataset.requests) == 2
    assert sum(r.usage.input_tokens for r in dataset.requests) == 13
    assert {Path(r.file).name for r in dataset.requests} == {"opencode.db"}
    assert sum(r.reported_cost_usd or 0 for r in dataset.requests) == 0.375


def test_aborted_messages_are_no_requests_but_an_interruption(tmp_path: Path) -> None:
    aborted = assistant(usage(0, 0, 0, 0), 0, error={"name": "MessageAbortedError", "data": {}})
    failed = assistant(
        usage(0, 0, 0, 0), 0, error={"name": "APIError", "data": {"message": "overloaded"}}
    )
    path = database(
        tmp_path / "opencode.db", [("msg_b", "ses_1", aborted), ("msg_c", "ses_1", failed)]
    )
    result = read(path)
    assert result.responses == []
    assert result.activity is not None
    assert [(e.kind, e.text) for e in result.activity.events] == [
        ("interrupt", ""),
        ("api_error", "overloaded"),
    ]


def test_kilo_is_told_by_its_database_name(tmp_path: Path) -> None:
    path = database(
        tmp_path / "kilo.db", [TWO_STEP_MESSAGE], [(p, "msg_a", d) for p, d in TWO_STEPS]
    )
    assert {r.harness for r in read(path).responses} == {Harness.KILO}


# --- bad input ------------------------------------------------------------------------------


def test_rows_that_do_not_parse_are_listed_and_the_rest_counts(tmp_path: Path) -> None:
    messages = [TWO_STEP_MESSAGE, ("msg_b", "ses_1", b'{"role": "assistant", "tokens": {'),
                ("msg_c", "ses_1", assistant(usage(-5, 0, 0, 1), 0.1)),
                ("msg_d", "ses_1", assistant(usage(1, 0, 0, 1), -2.0))]  # fmt: skip
    parts = [(p, "msg_a", d) for p, d in TWO_STEPS] + [("prt_9", "msg_a", b"not json")]
    result = read(database(tmp_path / "opencode.db", messages, parts))
    assert totals(result) == (13, 500, 560, 0, 60, 0)
    reasons = {(issue.line, issue.reason.split(":")[0]) for issue in result.issues}
    assert reasons == {
        (2, "invalid JSON"),
        (3, "implausible usage"),
        (4, "implausible usage"),
        (5, "invalid JSON"),
    }
    assert {issue.file for issue in result.issues} == {str(tmp_path / "opencode.db")}


def test_a_cut_database_is_named_unreadable_and_never_a_traceback(
    tmp_path: Path, two_steps: Path
) -> None:
    data = two_steps.read_bytes()
    cut = tmp_path / "cut" / "opencode.db"
    cut.parent.mkdir()
    cut.write_bytes(data[: len(data) // 2 // 512 * 512])
    result = read(cut)
    assert result.responses == []
    [issue] = result.issues
    assert (issue.line, issue.reason) == (
        0,
        "cannot read the database: database disk image is malformed",
    )
    # found in a folder by its name, though its tables cannot be read
    scan = CliRunner().invoke(app, ["scan", "--json", str(cut.parent)])
    assert scan.exit_code == 0, scan.output
    assert json.loads(scan.stdout)["warnings"]["unreadable_files"] == [str(cut)]


def test_a_database_locked_by_a_writer_is_read_in_bounded_time(two_steps: Path) -> None:
    with closing(sqlite3.connect(two_steps)) as writer:
        writer.execute("begin exclusive")
        writer.execute("insert into message values ('msg_x', 'ses_1', 1, 1, '{}')")
        began = time.monotonic()
        result = read(two_steps)
        assert time.monotonic() - began < BUSY_MS / 1000 + 3
        writer.rollback()
    assert totals(result) == (13, 500, 560, 0, 60, 0)  # as it stood on disk
    assert result.issues == []


def test_a_database_in_use_in_wal_mode_shows_its_committed_rows(tmp_path: Path) -> None:
    path = database(tmp_path / "opencode.db", [TWO_STEP_MESSAGE], [], journal="wal")
    with closing(sqlite3.connect(path)) as writer:
        later = ("msg_b", "ses_1", T0 + 1, T0 + 1, json.dumps(assistant(usage(7, 0, 0, 1), 0.1)))
        writer.execute("insert into message values (?, ?, ?, ?, ?)", later)
        writer.commit()  # in the write-ahead log only, until a checkpoint
        writer.execute("begin")
        pending = ("msg_c", "ses_1", T0 + 2, T0 + 2, json.dumps(assistant(usage(9, 0, 0, 1), 0.1)))
        writer.execute("insert into message values (?, ?, ?, ?, ?)", pending)
        assert Path(f"{path}-wal").stat().st_size > 0
        result = read(path)
        writer.rollback()
    assert [r.usage.input for r in result.responses] == [3, 7]
    assert result.issues == []


def test_a_bad_legacy_part_is_listed_with_its_file(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    message = storage / "message" / "ses_1" / "msg_a.json"
    message.parent.mkdir(parents=True)
    message.write_text(json.dumps({"id": "msg_a", "sessionID": "ses_1", **TWO_STEP_MESSAGE[2]}))
    folder = storage / "part" / "msg_a"
    folder.mkdir(parents=True)
    for part, data in _parts_with_a_bad_one():
        (folder / f"{part}.json").write_text(data if isinstance(data, str) else json.dumps(data))
    result = parse(str(message), message.read_bytes(), "hint", Prompts.NONE)
    assert [(Path(i.file).name, i.line) for i in result.issues] == [("prt_3.json", 1)]
    assert [r.key for r in result.responses] == ["opencode:msg_a:prt_2", "opencode:msg_a"]


def _parts_with_a_bad_one() -> Iterator[tuple[str, Any]]:
    yield from TWO_STEPS[:2]
    yield "prt_3", '{"type": "step-st'
    yield TWO_STEPS[3]
