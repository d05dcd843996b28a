"""Codex rollouts' activity: each tool call once, its stated outcome, the user's requests.

The rollouts are written line by line in the shapes of Codex 0.104 (`sample_logs/codex/`) and of
the real rollouts of `../shared/samples/` (agtrace's 0.66 session, localpush's redacted ones).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sniff.analyses.agents.tool_errors import classify
from sniff.ingest.formats.codex.reader import Reader
from sniff.ingest.record import FileResult
from sniff.model import Activity


def parse_data(path: str, data: bytes, project_hint: str) -> FileResult:
    """A rollout's bytes read at once, as its reader is fed a block at a time."""
    reader = Reader(path, project_hint)
    reader.feed(data)
    return reader.result()


SESSION = "019cc374-b49a-7d28-b41d-cadbc9b26756"


class Rollout:
    """A rollout being written: one line per call, a second apart."""

    def __init__(self, source: Any = "cli", session: str = SESSION) -> None:
        self.lines: list[dict[str, Any]] = []
        self.second = 0
        self.total = 0
        meta = {"id": session, "cwd": "/home/dana/src/tilesrv", "cli_version": "0.104.0"}
        self.add("session_meta", {**meta, "source": source})
        self.add("turn_context", {"model": "gpt-5.3-codex"})

    def add(self, kind: str, payload: dict[str, Any], at: str | None = None) -> None:
        self.second += 1
        stamp = at or f"2026-03-06T14:{self.second // 60:02d}:{self.second % 60:02d}.000Z"
        self.lines.append({"timestamp": stamp, "type": kind, "payload": payload})

    def item(self, kind: str, **fields: Any) -> None:
        self.add("response_item", {"type": kind, **fields})

    def event(self, kind: str, **fields: Any) -> None:
        self.add("event_msg", {"type": kind, **fields})

    def user(self, text: str) -> None:
        content = [{"type": "input_text", "text": text}]
        self.item("message", role="user", content=content)  # the same message, twice
        self.event("user_message", message=text, images=[])

    def response(self) -> None:
        """The usage event that counts the response whose items came before it."""
        self.total += 1000
        usage = {"input_tokens": self.total, "cached_input_tokens": 0, "output_tokens": 10}
        self.event("token_count", info={"total_token_usage": usage, "last_token_usage": usage})
        self.event("token_count", info={"total_token_usage": usage})  # a re-emit: nothing new

    def call(self, call_id: str, name: str = "exec_command", output: str | None = None) -> None:
        kind = "custom_tool_call" if name == "apply_patch" else "function_call"
        self.item(kind, name=name, call_id=call_id, arguments="{}")
        self.response()
        if output is not None:
            self.item(f"{kind}_output", call_id=call_id, output=output)

    def read(self, path: Path | None = None) -> Activity:
        data = "".join(json.dumps(line) + "\n" for line in self.lines).encode()
        if path is not None:
            path.write_bytes(data)
        result = parse_data(str(path or "rollout.jsonl"), data, "")
        assert result.activity is not None and not result.issues
        return result.activity


def header(code: int, output: str) -> str:
    """A unified exec command's output (Codex 0.104)."""
    return f"Chunk ID: 3f0a1c\nWall time: 0.2 seconds\nProcess exited with code {code}\n" + (
        f"Original token count: 96\nOutput:\n{output}"
    )


def structured(code: int, output: str) -> str:
    """A structured output (apply_patch, the 0.5x shell tool)."""
    return json.dumps({"output": output, "metadata": {"exit_code": code, "duration_seconds": 0.1}})


def test_each_call_once_with_the_outcome_its_output_states() -> None:
    rollout = Rollout()
    rollout.user("Add cache hit counters")
    rollout.call("c1", output=header(0, "crates/tilesrv-cache/src/lib.rs:88: pub async fn"))
    rollout.call("c2", output=header(101, "error[E0425]: cannot find value `hits`"))
    rollout.call("c3", "apply_patch", structured(0, "Success. Updated the following files:"))
    patch = "apply_patch verification failed: Failed to find expected lines in src/lib.rs"
    rollout.call("c4", "apply_patch", structured(1, patch + ' {"exit_code":0}'))
    rollout.call("c5", "shell_command", "Exit code: 1\nWall time: 0.1 seconds\nOutput:\nno shim\n")
    rollout.call("c6", output="exec command rejected by user")
    rollout.call("c7", output="aborted")
    rollout.call("c8", output="[REDACTED_OUTPUT len=175 sha=40d4d2ac]")
    rollout.call(
        "c9", output="Chunk ID: 9a\nWall time: 10.0 seconds\nProcess running with session ID 7"
    )
    rollout.call("c10", "update_plan", "Plan updated")
    rollout.call("c11")  # no output at all: the rollout ends
    activity = rollout.read()
    assert [call.id for call in activity.calls] == [f"c{n}" for n in range(1, 12)]
    names = {call.id: call.name for call in activity.calls}
    outcomes = {
        result.tool_use_id: None
        if result.error is None
        else classify(result.error, names[result.tool_use_id])
        for result in activity.results
    }
    assert outcomes == {
        "c1": None,
        "c2": "command_failed",
        "c3": None,
        "c4": "edit_target_not_found",  # the last exit code is the metadata's, not a quoted one
        "c5": "command_failed",
        "c6": "user_rejected",
        "c7": "user_interrupted",
    }  # c8 to c11 state no outcome: none is counted a success
    failed = {result.tool_use_id: result.error for result in activity.results}
    assert failed["c2"] == "Exit code 101\nerror[E0425]: cannot find value `hits`"
    assert failed["c4"].startswith("Exit code 1\napply_patch verification failed")


def test_an_exec_end_event_states_the_exit_code_a_redacted_output_does_not() -> None:
    rollout = Rollout()
    rollout.call("c1", output="[REDACTED_OUTPUT len=175 sha=40d4d2ac]")
    rollout.event("exec_command_end", call_id="c1", exit_code=2, aggregated_output="")
    rollout.item("function_call", name="exec_command", call_id="c2", arguments="{}")
    rollout.event("exec_command_end", call_id="c2", exit_code=0)
    rollout.response()
    rollout.item("function_call_output", call_id="c2", output=header(0, "ok"))
    activity = rollout.read()
    assert {result.tool_use_id: result.error for result in activity.results} == {
        "c1": "Exit code 2",
        "c2": None,
    }


def test_a_call_is_asked_for_by_the_response_counted_next() -> None:
    rollout = Rollout()
    rollout.user("Run the tests")
    rollout.item("function_call", name="exec_command", call_id="c1", arguments="{}")
    rollout.item("function_call", name="exec_command", call_id="c2", arguments="{}")  # parallel
    rollout.response()
    rollout.call("c3")
    result = parse_data(
        "r.jsonl", "".join(json.dumps(line) + "\n" for line in rollout.lines).encode(), ""
    )
    keys = [response.key for response in result.responses]
    assert result.activity is not None
    assert [(call.id, keys.index(call.key)) for call in result.activity.calls] == [
        ("c1", 0),
        ("c2", 0),
        ("c3", 1),
    ]


def test_user_requests_are_the_user_message_events_of_a_main_rollout() -> None:
    rollout = Rollout()
    rollout.item(
        "message", role="user", content=[{"type": "input_text", "text": "<environment_context>"}]
    )
    rollout.user("Add cache hit counters")
    rollout.call("c1", output=header(0, ""))
    rollout.event("turn_aborted", reason="interrupted")
    rollout.user("Also a histogram")
    rollout.event("turn_aborted", reason="replaced")
    activity = rollout.read()
    assert [(event.kind, event.text) for event in activity.events] == [
        ("instruction", "Add cache hit counters"),
        ("interrupt", ""),
        ("instruction", "Also a histogram"),
    ]
    spawned = Rollout(source={"subagent": {"thread_spawn": {"parent_thread_id": SESSION}}})
    spawned.user("Review the diff")  # the parent agent's words to it, not the user's
    spawned.call("c9", output=header(0, ""))
    assert spawned.read().events == ()


def test_a_copied_rollout_repeats_nothing(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from sniff.cli import app

    rollout = Rollout()
    rollout.user("Add cache hit counters")
    rollout.call("c1", output=header(1, "FAILED"))
    rollout.read(tmp_path / "rollout-a.jsonl")
    # a branched conversation: the same lines, times kept, in a rollout of its own
    copy = Rollout(session="019cc3aa-0000-7000-8000-000000000001")
    copy.lines[2:] = rollout.lines[2:]
    copy.user("Now a histogram")
    copy.read(tmp_path / "rollout-b.jsonl")
    result = CliRunner().invoke(app, ["agents", "--json", "--no-index", str(tmp_path)])
    report = json.loads(result.stdout)
    assert report["tools"]["calls"] == 1
    assert report["errors"]["failures"] == 1
    assert [row["text"] for row in report["commands"]["rows"]] == [
        "Add cache hit counters",
        "Now a histogram",
    ]


def test_activity_is_dated_once_in_epoch_seconds() -> None:
    """Times are read once, as the parser reads the line: analyses never parse a time again."""
    rollout = Rollout()
    rollout.user("Add cache hit counters")  # lines 3 and 4: 14:00:03, 14:00:04
    rollout.call("c1", output=header(0, "ok"))  # the call at 14:00:05, its output at 14:00:08
    rollout.add("event_msg", {"type": "user_message", "message": "Now the docs"}, at="junk")
    activity = rollout.read()
    start = 1_772_805_600.0  # 2026-03-06T14:00:00Z
    assert [(call.id, call.at) for call in activity.calls] == [("c1", start + 5)]
    assert [(result.tool_use_id, result.at) for result in activity.results] == [("c1", start + 8)]
    assert [(event.text, event.at) for event in activity.events] == [
        ("Add cache hit counters", start + 4),
        ("Now the docs", None),
    ]
