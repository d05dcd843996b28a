"""`sniff agents` on the sample project written to show agent behaviour: every count, exactly;
and on the real Codex rollouts of the shared samples.

`sample_logs/README.md` describes the session; the expected numbers below were counted from
its lines by hand (each `tool_use` id once, each `tool_result` with `is_error` once). The Codex
numbers were counted over the rollouts with jq: each `function_call` and `custom_tool_call`
item, each `user_message` event, each growth of the cumulative usage between two of those.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SHARED_SAMPLES

PROJECT = Path(__file__).resolve().parents[2] / (
    "sample_logs/claude-code/projects/-home-dana-src-agent-habits"
)


LOCALPUSH = SHARED_SAMPLES / "localpush"


def agents(folder: Path = PROJECT, *options: str) -> dict[str, object]:
    result = CliRunner().invoke(app, ["agents", "--json", *options, str(folder)])
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads(result.stdout)
    return report


def test_every_tool_call_counts_once() -> None:
    tools = agents(PROJECT, "--no-index")["tools"]
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
    errors = agents(PROJECT, "--no-index")["errors"]
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
    commands = agents(PROJECT, "--no-index")["commands"]
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


@pytest.mark.skipif(not LOCALPUSH.is_dir(), reason=f"no shared samples at {LOCALPUSH}")
def test_codex_rollouts_tools_outcomes_and_user_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SNIFF_CACHE_DIR", str(tmp_path))
    report: dict[str, Any] = agents(LOCALPUSH, "--no-index")
    tools = report["tools"]
    assert tools["calls"] == 737  # 656 function calls and 81 custom tool calls
    calls = {row["tool"]: row["calls"] for row in tools["by_tool"]}
    assert calls["apply_patch"] == 81 and sum(calls.values()) - calls["apply_patch"] == 656
    assert (calls["exec_command"], calls["write_stdin"], calls["update_plan"]) == (518, 95, 6)
    assert {row["server"]: row["calls"] for row in tools["by_server"]}[
        "supabase_right_aim_ops"
    ] == 23
    # the fixture's outputs are redacted: no exit code, so no outcome, and none counted a success
    errors = report["errors"]
    assert (errors["tool_results"], errors["failures"], errors["outcome_unknown"]) == (0, 0, 737)
    commands = report["commands"]
    assert commands["count"] == len(commands["rows"]) == 53
    assert sum(row["model_calls"] for row in commands["rows"]) == 485
    assert sum(row["tool_calls"] for row in commands["rows"]) == 737
    first = commands["rows"][0]
    assert (first["at"], first["model_calls"], first["tool_calls"]) == (
        "2026-02-23T11:40:29.279Z", 21, 27,
    )  # fmt: skip
    # the records the index keeps give the same answer, read cold and then warm
    assert agents(LOCALPUSH) == report
    assert agents(LOCALPUSH) == report
