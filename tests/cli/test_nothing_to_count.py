"""A folder of logs with nothing to count says so, names each file and why, instead of printing
empty tables: here an OpenClaw-style session (pi's format) whose model calls record no usage."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sniff.cli import app

LINES = [
    {"type": "session", "id": "s1", "version": 3, "timestamp": "2026-02-24T09:00:00Z",
     "cwd": "/tmp/repo"},
    {"type": "message", "id": "m1", "parentId": "s1", "timestamp": "2026-02-24T09:00:02Z",
     "message": {"role": "user", "content": [{"type": "text", "text": "List files"}]}},
    {"type": "message", "id": "m2", "parentId": "m1", "timestamp": "2026-02-24T09:00:03Z",
     "message": {"role": "assistant", "provider": "anthropic", "api": "anthropic-messages",
                 "content": [{"type": "toolCall", "id": "t1", "name": "bash",
                              "arguments": {"command": "ls"}}]}},
    {"type": "message", "id": "m3", "parentId": "m2", "timestamp": "2026-02-24T09:00:04Z",
     "message": {"role": "toolResult", "toolCallId": "t1", "content": [{"type": "text",
                 "text": "a.txt"}]}},
]  # fmt: skip


def planted(folder: Path) -> Path:
    path = folder / "agents" / "main" / "sessions" / "s1.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    return path


def test_a_session_without_usage_is_named_with_why_and_no_empty_table(tmp_path: Path) -> None:
    path = planted(tmp_path)
    shown = CliRunner().invoke(app, ["scan", str(tmp_path), "--no-index", "--log-format", "pi"])
    assert shown.exit_code == 0, shown.output
    assert "Nothing to count: no request in 1 file read, 1 as pi" in shown.stdout
    assert "record no token usage" in shown.stdout and "By project" not in shown.stdout
    found = CliRunner().invoke(
        app, ["scan", str(tmp_path), "--no-index", "--log-format", "pi", "--json"]
    )
    assert json.loads(found.stdout)["warnings"]["files_without_usage"] == [str(path)]


def test_a_row_of_sessions_totals_says_so_instead_of_zero_requests() -> None:
    from tests.conftest import SAMPLE_LOGS

    shown = CliRunner().invoke(app, ["scan", str(SAMPLE_LOGS / "droid"), "--no-index"])
    assert shown.exit_code == 0, shown.output
    rows = [line.split() for line in shown.stdout.splitlines()]
    assert any(row[1:2] == ["totals"] for row in rows if row)  # not a row of 0 requests
    assert "totals: counted from sessions' totals the agent logged" in shown.stdout
