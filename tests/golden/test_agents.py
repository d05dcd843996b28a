"""`sniff agents` on the sample project written to show agent behaviour: every count, exactly.

`sample_logs/README.md` describes the session; the expected numbers below were counted from
its lines by hand (each `tool_use` id once, each `tool_result` with `is_error` once).
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sniff.cli import app

PROJECT = Path(__file__).resolve().parents[2] / (
    "sample_logs/claude-code/projects/-home-dana-src-agent-habits"
)


def agents() -> dict[str, object]:
    result = CliRunner().invoke(app, ["agents", "--json", "--no-index", str(PROJECT)])
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads(result.stdout)
    return report


def test_every_tool_call_counts_once() -> None:
    tools = agents()["tools"]
    assert isinstance(tools, dict)
    assert {row["tool"]: row["calls"] for row in tools["by_tool"]} == {
        "Bash": 8,
        "Edit": 6,
        "Read": 4,
        "Grep": 2,  # one of them the subagent's, seen only in the parent's progress lines
        "mcp__github__create_issue": 2,
        "mcp__playwright__browser_click": 2,
        "Task": 1,
        "Write": 1,
        "mcp__github__list_prs": 1,
    }
    assert {row["server"]: row["calls"] for row in tools["by_server"]} == {
        "built-in": 21,
        "github": 3,
        "playwright": 2,
        "subagents": 1,
    }


def test_every_failure_is_in_its_class() -> None:
    errors = agents()["errors"]
    assert isinstance(errors, dict)
    assert {row["class"]: row["count"] for row in errors["by_class"]} == {
        "user_rejected": 1,
        "user_interrupted": 1,
        "command_failed": 1,
        "timeout": 2,
        "file_not_found": 1,
        "file_not_read": 1,
        "edit_target_not_found": 2,
        "permission_denied": 1,
        "api_error": 1,
        "other": 1,
    }
    assert errors["tool_results"] == 27
    assert errors["failures"] == 12
    assert errors["interruptions"] == 2


def test_each_user_request_with_what_it_led_to() -> None:
    commands = agents()["commands"]
    assert isinstance(commands, dict)
    rows = [
        (
            row["at"][11:16],
            row["command"],
            row["model_calls"],
            row["tool_calls"],
            row["interrupted"],
        )
        for row in commands["rows"]
    ]
    assert rows == [
        ("09:02", None, 12, 12, False),
        ("09:14", None, 5, 5, True),
        ("09:21", None, 0, 0, False),  # answered only by an API error
        ("09:22", None, 4, 3, False),
        ("09:33", "/review", 5, 3, False),  # 3 calls of its own and the Task's 2
        ("09:47", "/cost", 0, 0, False),  # a local command: no model call
        ("09:52", None, 4, 3, True),
        ("09:55", None, 2, 1, False),
    ]
    assert commands["rows"][4]["text"] == "/review src/cart.py"
    assert commands["steps"] == {"median": 4.5, "p90": 5.0, "max": 12.0}
