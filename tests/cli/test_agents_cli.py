"""`sniff agents` and the report's agent sections; `sniff report --redact` leaks no text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.analyses.agents.tool_errors import ERROR_CLASSES
from sniff.cli import app
from tests.conftest import SHARED_SAMPLES as SHARED
from tests.conftest import needs_shared

REPO = Path(__file__).resolve().parents[2]
SNIFFLY = SHARED / "sniffly"


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


def private_strings(folder: Path) -> set[str]:
    """What the logs' users typed and their tools printed, and where they worked."""
    found: set[str] = set()
    for path in folder.rglob("*.jsonl"):
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            if line.get("cwd"):
                found.add(line["cwd"])
            if line.get("type") != "user":
                continue
            content = (line.get("message") or {}).get("content")
            texts: list[Any] = [content] if isinstance(content, str) else []
            for block in content if isinstance(content, list) else []:
                inner = block.get("content") if block.get("type") == "tool_result" else None
                texts.append(block.get("text") or inner)
            for text in texts:
                if isinstance(text, list):
                    text = " ".join(str(part.get("text", "")) for part in text)
                for piece in str(text or "").splitlines():
                    if len(piece.strip()) >= 16 and not piece.strip().startswith("<"):
                        found.add(piece.strip()[:60])
    return found


@needs_shared
@pytest.mark.parametrize("output_format", ["json", "md", "html"])
def test_a_redacted_report_says_no_private_text(tmp_path: Path, output_format: str) -> None:
    # Claude Code's own fixed messages that sniff's taxonomy quotes are not the user's text
    taxonomy = " ".join(ERROR_CLASSES.values())
    secrets = {text for text in private_strings(SNIFFLY) if text not in taxonomy}
    assert len(secrets) > 20  # the search has something to find
    plain = tmp_path / f"plain.{output_format}"
    redacted = tmp_path / f"redacted.{output_format}"
    run("report", "-f", output_format, str(SNIFFLY), "-o", str(plain), "--by", "project")
    run("report", "-f", output_format, str(SNIFFLY), "-o", str(redacted), "--by", "project",
        "--redact")  # fmt: skip
    shown = plain.read_text()
    assert any(secret in shown for secret in secrets)  # unredacted, some do show
    text = redacted.read_text()
    leaked = sorted(secret for secret in secrets if secret in text)
    assert leaked == []
    assert "ai-music" not in text


@needs_shared
def test_a_redacted_report_keeps_every_number() -> None:
    plain = json.loads(run("report", "-f", "json", str(SNIFFLY), "--by", "project"))
    redacted = json.loads(run("report", "-f", "json", str(SNIFFLY), "--by", "project", "--redact"))
    assert redacted["totals"] == plain["totals"]
    assert [g["cost_usd"] for g in redacted["groups"]] == [g["cost_usd"] for g in plain["groups"]]
    assert redacted["groups"][0]["project"].startswith("project-")
    assert redacted["agents"]["tools"] == {
        **plain["agents"]["tools"],
        "by_project": {
            name: calls
            for name, calls in zip(
                redacted["agents"]["tools"]["by_project"],
                plain["agents"]["tools"]["by_project"].values(),
                strict=True,
            )
        },
    }
    for key in ("tool_results", "failures", "interruptions"):
        assert redacted["agents"]["errors"][key] == plain["agents"]["errors"][key]
    plain_rows, redacted_rows = plain["agents"]["commands"], redacted["agents"]["commands"]
    assert redacted_rows["count"] == plain_rows["count"]
    assert redacted_rows["cost_usd"] == plain_rows["cost_usd"]
    assert {row["text"] for row in redacted_rows["rows"]} == {"[redacted]"}


@needs_shared
def test_agents_json_has_tools_errors_and_commands() -> None:
    report = json.loads(run("agents", "--json", str(SNIFFLY)))
    assert set(report) == {
        "has_activity", "without_activity", "tools", "errors", "commands",
        "subagent_types", "subagent_runs", "skills", "mcp_servers",
    }  # fmt: skip
    commands = report["commands"]
    assert commands["count"] == len(commands["rows"]) == 13
    assert sum(row["model_calls"] for row in commands["rows"]) <= 90
    assert any(row["command"] == "/init" for row in commands["rows"])
    assert report["errors"]["interruptions"] == sum(r["interrupted"] for r in commands["rows"])


def test_agents_on_logs_without_activity_says_so_plainly(tmp_path: Path, cc) -> None:
    # a transcript holding only its title: a log, with no activity (an empty file is no log)
    cc.write(tmp_path / "quiet.jsonl", [{"type": "summary", "summary": "x", "leafUuid": "u0"}])
    report = json.loads(run("agents", "--json", str(tmp_path)))
    assert report["tools"]["calls"] == 0 and report["commands"]["count"] == 0
    assert (report["has_activity"], report["without_activity"]) == (False, [])


def test_a_format_that_records_no_activity_gets_one_line_not_empty_tables() -> None:
    trace = str(REPO / "sample_logs" / "claude-trace")
    shown = run("agents", "--no-index", trace)
    assert shown.splitlines() == [
        "No agent activity: the claude-trace files record API requests, not what agents did."
    ]
    report = json.loads(run("agents", "--json", "--no-index", trace))
    assert (report["has_activity"], report["without_activity"]) == (False, ["claude-trace"])
    assert report["tools"]["calls"] == report["commands"]["count"] == 0
    # beside logs that have some, the tables stay and the line says what they leave out
    shown = run("agents", "--no-index", str(REPO / "sample_logs"))
    assert "Tool use ·" in shown
    assert shown.splitlines()[-1] == (
        "Not counted: the claude-trace and cline-tasks and otel-bodies and request-log files record"
        " API requests only, no agent activity."
    )


SESSION = "5e7c1a90-3b2d-4f6e-9a81-0c4d2b7e6f13"
AGENT = "a3f9c2e"


def _line(uuid: str, parent: str | None, at: str, kind: str, **fields: Any) -> dict[str, Any]:
    """A Claude Code 2.1 transcript line's envelope."""
    return {
        "parentUuid": parent, "isSidechain": False, "userType": "external",
        "cwd": "/home/dana/src/tilesrv", "sessionId": SESSION, "version": "2.1.39",
        "gitBranch": "main", "slug": "quiet-amber-heron", "type": kind, "uuid": uuid,
        "timestamp": f"2026-02-16T{at}Z", **fields,
    }  # fmt: skip


def _said(uuid: str, parent: str | None, at: str, content: Any, **fields: Any) -> dict[str, Any]:
    return _line(uuid, parent, at, "user", message={"role": "user", "content": content}, **fields)


def _answer(
    uuid: str, parent: str, at: str, message_id: str, block: dict[str, Any], written: int
) -> dict[str, Any]:
    """One line of a claude-opus-4-6 response: one content block, its usage."""
    usage = {
        "input_tokens": 6, "cache_creation_input_tokens": written,
        "cache_read_input_tokens": 24_000, "output_tokens": 420,
        "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
    }  # fmt: skip
    message = {
        "model": "claude-opus-4-6", "id": message_id, "type": "message", "role": "assistant",
        "content": [block], "stop_reason": "end_turn", "usage": usage,
    }  # fmt: skip
    return _line(uuid, parent, at, "assistant", message=message, requestId=f"req_{message_id}")


def _tool(tool_id: str, name: str, **given: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": given}


def _result(tool_id: str, text: str, error: bool = False) -> list[dict[str, Any]]:
    return [{"tool_use_id": tool_id, "type": "tool_result", "content": text, "is_error": error}]


NOTIFICATION = (
    f"<task-notification>\n<task-id>{AGENT}</task-id>\n<tool-use-id>toolu_task</tool-use-id>\n"
    '<status>completed</status>\n<summary>Agent "Run the test suite" completed</summary>\n'
    "</task-notification>"
)


def background_task_archive(root: Path) -> Path:
    """A Claude Code 2.1 project: a user request that starts a background subagent, works on,
    and is woken by the subagent's `<task-notification>`; then a second request."""
    project = root / "projects" / "-home-dana-src-tilesrv"
    main = [
        _said("u1", None, "10:00:00.000", "Run the test suite in the background and meanwhile"
              " review src/cache.py"),
        _answer("a1", "u1", "10:00:03.000", "msg_1", _tool(
            "toolu_task", "Task", description="Run the test suite", prompt="Run pytest -q",
            subagent_type="general-purpose", run_in_background=True), 9_000),
        _said("u2", "a1", "10:00:03.500", _result(
            "toolu_task", f"Async agent launched successfully.\nagentId: {AGENT}"),
            toolUseResult={"isAsync": True, "status": "async_launched", "agentId": AGENT}),
        _answer("a2", "u2", "10:00:06.000", "msg_2", _tool(
            "toolu_read", "Read", file_path="/home/dana/src/tilesrv/src/cache.py"), 1_200),
        _said("u3", "a2", "10:00:06.300", _result("toolu_read", "class TileCache: ...")),
        _answer("a3", "u3", "10:00:10.000", "msg_3",
                {"type": "text", "text": "cache.py looks fine."}, 800),
        {"type": "queue-operation", "operation": "enqueue", "timestamp": "2026-02-16T10:02:00Z",
         "sessionId": SESSION, "content": NOTIFICATION},
        _said("u4", "a3", "10:02:00.100", NOTIFICATION),
        _answer("a4", "u4", "10:02:04.000", "msg_4", _tool(
            "toolu_bash", "Bash", command="pytest -q tests/test_cache.py"), 30_000),
        _said("u5", "a4", "10:02:06.000", _result(
            "toolu_bash", "Exit code 1\nFAILED tests/test_cache.py::test_evict", True)),
        _answer("a5", "u5", "10:02:09.000", "msg_5",
                {"type": "text", "text": "Two tests fail in test_cache.py."}, 2_000),
        _said("u6", "a5", "10:05:00.000", [
            {"type": "text", "text": "Fix the two failures"},
            {"type": "text", "text": "<system-reminder>The TodoWrite list is empty."
             "</system-reminder>"}]),
        _answer("a6", "u6", "10:05:04.000", "msg_6",
                {"type": "text", "text": "Fixed the eviction order."}, 1_500),
    ]  # fmt: skip
    sub = [
        {**_said("s1", None, "10:00:04.000", "Run pytest -q"), "isSidechain": True,
         "agentId": AGENT},
        {**_answer("s2", "s1", "10:00:08.000", "msg_s1", _tool(
            "toolu_sub", "Bash", command="pytest -q"), 5_000), "isSidechain": True,
         "agentId": AGENT},
        {**_said("s3", "s2", "10:01:50.000", _result("toolu_sub", "2 failed, 61 passed")),
         "isSidechain": True, "agentId": AGENT},
        {**_answer("s4", "s3", "10:01:55.000", "msg_s2",
                   {"type": "text", "text": "2 tests failed."}, 600), "isSidechain": True,
         "agentId": AGENT},
    ]  # fmt: skip
    for path, lines in (
        (project / f"{SESSION}.jsonl", main),
        (project / SESSION / "subagents" / f"agent-{AGENT}.jsonl", sub),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return root


def test_a_task_notification_is_no_user_request_and_its_calls_are_the_request_s(
    tmp_path: Path,
) -> None:
    archive = str(background_task_archive(tmp_path))
    commands = json.loads(run("agents", "--json", "--no-index", archive))["commands"]
    rows = [(row["text"], row["model_calls"], row["tool_calls"]) for row in commands["rows"]]
    assert rows == [
        # its own 3 calls, the subagent's 2, and the 2 the notification woke it for
        ("Run the test suite in the background and meanwhile review src/cache.py", 7, 4),
        ("Fix the two failures", 1, 0),  # the reminder is not what the user typed
    ]
    scan = json.loads(run("scan", "--json", "--no-index", archive))
    assert sum(row["cost_usd"] for row in commands["rows"]) == pytest.approx(
        scan["totals"]["cost_usd"], abs=1e-5
    )
