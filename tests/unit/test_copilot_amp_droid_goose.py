"""Detection, forcing and bad input for the Copilot CLI, Amp, Droid and Goose parsers."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sniff.ingest.files.log_formats import detect, parse_any
from sniff.logs import load
from sniff.model import NO_USAGE, LineIssue

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
COPILOT = SAMPLES / "copilot" / "session-state" / "5f0c7d9e-3b1a-4c2e-9d8f-6a7b8c9d0e1f"
AMP = SAMPLES / "amp" / "threads" / "T-7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f.json"
DROID = SAMPLES / "droid" / "sessions"
DROID_SESSION = "3e1f0a2b-7c4d-4e5f-a6b7-c8d9e0f1a2b3"
CLAUDE_CODE = next((SAMPLES / "claude-code").rglob("*.jsonl"))
CODEX = next((SAMPLES / "codex").rglob("*.jsonl"))


def lines(records: list[Any]) -> bytes:
    return "\n".join(json.dumps(record) for record in records).encode() + b"\n"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (COPILOT / "events.jsonl", "copilot"),
        (AMP, "amp"),
        (DROID / f"{DROID_SESSION}.settings.json", "droid"),
        (DROID / f"{DROID_SESSION}.jsonl", "droid"),
        (CLAUDE_CODE, "claude-code"),
        (CODEX, "codex"),
    ],
    ids=["copilot", "amp", "droid-settings", "droid-session", "claude-code", "codex"],
)
def test_each_file_is_read_as_its_own_format(path, expected):
    assert parse_any(str(path), "p").log_format == expected


def test_droid_stream_json_is_droids_and_claude_codes_is_not():
    droid = {"type": "system", "session_id": "s", "cwd": "/p", "model": "m", "id": "i"}
    claude = {"type": "system", "subtype": "init", "session_id": "s", "model": "m", "cwd": "/p"}
    assert detect(lines([droid])) == "droid"
    assert detect(lines([claude])) is None


def test_vs_code_copilot_chat_sessions_are_not_claimed(tmp_path):
    """Copilot Chat's `chatSessions/*.json` hold no token counts: no format, nothing counted."""
    chat = {
        "version": 3,
        "requesterUsername": "dana",
        "responderUsername": "GitHub Copilot",
        "sessionId": "c",
        "requests": [{"requestId": "r", "modelId": "m", "response": []}],
    }
    path = tmp_path / "chatSessions" / "c.json"
    path.parent.mkdir()
    path.write_text(json.dumps(chat, indent=2))  # as VS Code writes it
    assert parse_any(str(path), "p").log_format is None
    assert load([tmp_path]).requests == ()


def test_goose_claims_only_its_tables(tmp_path):
    other = tmp_path / "app.db"
    with sqlite3.connect(other) as connection:
        connection.execute("create table sessions (id text, input_tokens integer)")
    assert parse_any(str(other), "p").log_format is None
    forced = parse_any(str(other), "p", "goose")  # read as Goose's, it holds nothing: said so
    assert forced.log_format == "goose"
    assert forced.issues == [LineIssue(str(other), 0, NO_USAGE, kept=True)]


@pytest.mark.parametrize("name", ["copilot", "amp", "droid"])
def test_log_format_forces_a_parser(tmp_path, name):
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps({"hello": 1}) + "\n")
    assert load([path], log_format=name).formats == {name: 1}


def test_copilot_bad_line_is_listed_and_the_rest_counts(tmp_path):
    text = (COPILOT / "events.jsonl").read_text().splitlines()
    text.insert(3, "{not json")
    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(text) + "\n")
    dataset = load([path])
    assert [(issue.line, issue.reason[:12]) for issue in dataset.issues] == [(4, "invalid JSON")]
    assert sum(request.calls for request in dataset.requests) == 6


def test_copilot_implausible_count_skips_only_its_event(tmp_path):
    records = [json.loads(line) for line in (COPILOT / "events.jsonl").read_text().splitlines()]
    late = [r for r in records if r["type"] == "assistant.message"][-1]
    late["data"]["outputTokens"] = -90
    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    path.write_bytes(lines(records))
    dataset = load([path])
    assert [issue.reason for issue in dataset.issues] == ["implausible usage"]
    assert (
        sum(request.calls for request in dataset.requests) == 5
    )  # the resumed segment's other message still counts


def test_copilot_shutdown_with_a_bad_metric_is_listed(tmp_path):
    records = [json.loads(line) for line in (COPILOT / "events.jsonl").read_text().splitlines()]
    shutdown = next(r for r in records if r["type"] == "session.shutdown")
    shutdown["data"]["modelMetrics"]["gpt-5-mini"]["usage"]["inputTokens"] = "lots"
    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    path.write_bytes(lines(records))
    dataset = load([path])
    number = records.index(shutdown) + 1
    assert [(issue.line, issue.reason) for issue in dataset.issues] == [
        (number, "implausible usage")
    ]
    # the segment falls back to its messages' output, as one that lost its shutdown
    assert sum(request.calls for request in dataset.requests) == 6
    assert sum(request.usage.input_tokens for request in dataset.requests) == 0


def test_copilot_truncated_last_line(tmp_path):
    data = (COPILOT / "events.jsonl").read_bytes()
    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    path.write_bytes(data.rstrip(b"\n")[:-25])
    dataset = load([path])
    assert [issue.reason for issue in dataset.issues] == [
        "truncated last line (file still being written?)"
    ]
    assert sum(request.calls for request in dataset.requests) == 6


def test_amp_bad_message_is_listed_and_the_rest_counts(tmp_path):
    thread = json.loads(AMP.read_text())
    thread["messages"][3]["usage"]["outputTokens"] = 10**12
    path = tmp_path / "T-x.json"
    path.write_text(json.dumps(thread))
    dataset = load([path])
    assert [(issue.line, issue.reason[:17]) for issue in dataset.issues] == [
        (4, "implausible usage")
    ]
    assert sum(request.calls for request in dataset.requests) == 2


def test_amp_truncated_thread_is_one_issue(tmp_path):
    path = tmp_path / "T-x.json"
    path.write_bytes(AMP.read_bytes()[:-40])
    result = parse_any(str(path), "p", "amp")
    assert result.responses == [] and len(result.issues) == 1
    assert result.issues[0].reason.startswith("not an Amp thread")


def test_droid_bad_settings_is_one_issue(tmp_path):
    path = tmp_path / "s.settings.json"
    path.write_text(json.dumps({"model": "m", "tokenUsage": {"inputTokens": -4}}))
    result = parse_any(str(path), "p")
    assert result.log_format == "droid" and result.responses == []
    assert len(result.issues) == 1 and result.issues[0].line == 0


def test_droid_session_lines_have_no_usage_but_activity():
    result = parse_any(str(DROID / f"{DROID_SESSION}.jsonl"), "p")
    assert result.responses == [] and result.issues == []
    assert result.activity is not None and [c.name for c in result.activity.calls] == ["Execute"]


def _goose(path: Path, rows: str) -> Path:
    sql = (ROOT / "tests" / "golden" / "goose" / "sessions.sql").read_text()
    schema = sql.split("INSERT INTO schema_version")[0]
    with sqlite3.connect(path) as connection:
        connection.executescript(schema + rows)
    return path


def test_goose_bad_row_is_listed_and_the_rest_counts(tmp_path):
    path = _goose(
        tmp_path / "sessions.db",
        "INSERT INTO sessions (id, working_dir, created_at, accumulated_input_tokens,"
        " accumulated_output_tokens, model_config_json) VALUES"
        " ('a', '/p', '2026-03-03 10:00:00', 100, 10, '{\"model_name\":\"gpt-5\"}'),"
        " ('b', '/p', '2026-03-03 11:00:00', -100, 10, '{\"model_name\":\"gpt-5\"}'),"
        " ('c', '/p', '9999-12-31 23:00:00', 100, 10, 'not json');",
    )
    result = parse_any(str(path), "p")
    assert result.log_format == "goose"
    assert [(issue.line, issue.reason) for issue in result.issues] == [
        (2, "implausible usage"),
        (3, "date out of range"),
    ]
    assert [response.session_id for response in result.responses] == ["a"]


def test_goose_unreadable_database_is_one_issue(tmp_path):
    path = tmp_path / "sessions.db"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    result = parse_any(str(path), "p", "goose")
    assert result.responses == [] and len(result.issues) == 1
    assert result.issues[0].line == 0
