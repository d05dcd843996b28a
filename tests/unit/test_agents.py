"""`analyze_agents`: what each user request led to."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from sniff.analyses.agents.activity import analyze_agents, command_requests
from sniff.ingest.activity import INJECTED
from sniff.ingest.formats.claude_code import reader as claude_code
from sniff.model import Activity, Agent, AgentEvent, Request, ToolCall, ToolResult, Usage

PROJECT = "/home/dana/src/webshop"


def at(clock: str) -> float:
    """That time on 2 March 2026 (UTC), as records hold times: epoch seconds."""
    return datetime.fromisoformat(f"2026-03-02T{clock}Z").timestamp()


def request(key: str, later: float = 0.0) -> Request:
    """A request that started 1 s past 09:00 (and `later` seconds more), lasting 4 s."""
    shift = timedelta(seconds=later)
    return Request(
        source="claude-code",
        key=key,
        project=PROJECT,
        session_id="s1",
        agent=Agent.MAIN,
        agent_id="main",
        model="claude-sonnet-4-5",
        provider="anthropic",
        ended_at=datetime(2026, 3, 2, 9, 0, 5, tzinfo=UTC) + shift,
        started_at=datetime(2026, 3, 2, 9, 0, 1, tzinfo=UTC) + shift,
        usage=Usage(input_tokens=10),
        file="s.jsonl",
        line=1,
    )


@pytest.mark.parametrize(
    ("error", "interrupted"),
    [
        ("[Request interrupted by user for tool use]", True),
        # a killed command's exit code comes first, then Claude Code's marker
        ("Exit code 137\n[Request interrupted by user for tool use]", True),
        ("Exit code 1\nnpm ERR! missing script: test", False),
    ],
)
def test_an_interrupted_tool_result_marks_its_user_request(error: str, interrupted: bool) -> None:
    activity = Activity(
        calls=(ToolCall("t1", "Bash", "r1", "s1", PROJECT, at("09:00:05")),),
        results=(ToolResult("t1", "s1", at("09:00:09"), error=error),),
        events=(AgentEvent("instruction", "s1", PROJECT, at("09:00:00"), "run tests"),),
    )
    report = analyze_agents([request("r1")], activity, UTC)
    assert [row.interrupted for row in report.commands] == [interrupted]
    assert report.interruptions == int(interrupted)


def instruction(clock: str, text: str) -> AgentEvent:
    return AgentEvent("instruction", "s1", PROJECT, at(clock), text)


def test_the_model_calls_a_user_request_led_to_are_the_ones_it_counts() -> None:
    requests = [request("r1"), request("r2", 10), request("r3", 20)]
    activity = Activity(
        events=(
            instruction("09:00:00", "fix the build"),
            # typed twice at once: the first leads to nothing, the second to what follows
            instruction("09:00:10", "now the tests"),
            instruction("09:00:10", "now the tests, please"),
        ),
    )
    report = analyze_agents(requests, activity, UTC)
    led_to = {row.text: [r.key for r in command_requests(requests, row)] for row in report.commands}
    assert led_to == {
        "fix the build": ["r1"],
        "now the tests": [],
        "now the tests, please": ["r2", "r3"],
    }
    assert {row.text: row.model_calls for row in report.commands} == {
        text: len(keys) for text, keys in led_to.items()
    }


def test_the_terminal_and_the_report_show_the_same_failures_and_user_requests() -> None:
    from rich.console import Console

    from sniff.present.report.agents import sections
    from sniff.present.terminal.agents import print_agents

    activity = Activity(
        calls=(
            ToolCall("t1", "Bash", "r1", "s1", PROJECT, at("09:00:05")),
            ToolCall("t2", "Read", "r1", "s1", PROJECT, at("09:00:05")),
        ),
        results=(
            ToolResult("t1", "s1", at("09:00:09"), error="Exit code 1\nnpm ERR!"),
            ToolResult("t2", "s1", at("09:00:09")),
        ),
        events=(
            instruction("09:00:00", "run the tests"),
            AgentEvent("api_error", "s1", PROJECT, at("09:00:30"), "API Error: 529"),
        ),
    )
    report = analyze_agents([request("r1")], activity, UTC)
    assert (report.failures, report.api_errors, report.tool_failures) == (2, 1, 1)
    assert report.tool_failure_rate == 0.5
    console = Console(record=True, width=200)
    print_agents(console, report)
    shown = console.export_text()
    assert "1 of 2 tool results (50.0%), 1 API error" in shown
    titles = [title for title, _, _, _ in sections(report)]
    assert titles[1] == "Failures: 1 of 2 tool results (50.0%)"
    lines = shown.splitlines()
    for _, _, rows, _ in (sections(report)[0], sections(report)[2]):  # tools, user requests
        for row in rows:
            [line] = [line for line in lines if line.startswith(f" {row[0][0]} ")]
            assert line.split() == " ".join(text for text, _ in row).split()


def test_a_call_cancelled_for_a_failed_sibling_is_no_failure_of_its_own() -> None:
    activity = Activity(
        calls=(
            ToolCall("t1", "Bash", "r1", "s1", PROJECT, at("09:00:05")),
            ToolCall("t2", "Bash", "r1", "s1", PROJECT, at("09:00:05")),
            ToolCall("t3", "Read", "r1", "s1", PROJECT, at("09:00:05")),
        ),
        results=(
            ToolResult("t1", "s1", at("09:00:09"), error="Exit code 1\nnpm ERR!"),
            ToolResult(
                "t2",
                "s1",
                at("09:00:09"),
                error="<tool_use_error>Sibling tool call errored</tool_use_error>",
            ),  # fmt: skip
        ),
    )
    report = analyze_agents([request("r1")], activity, UTC)
    assert {row.error_class: row.count for row in report.errors} == {
        "command_failed": 1,
        "cancelled_sibling": 1,
    }
    assert (report.failures, report.tool_failures, report.cancelled) == (1, 1, 1)
    assert {row.tool: row.errors for row in report.tools} == {"Bash": 1, "Read": 0}
    assert report.errors_by_day == [("2026-03-02", 2, 1)]
    assert report.unknown_outcomes == 1  # the Read has no result


def test_formats_without_activity_are_named() -> None:
    trace = msgspec.structs.replace(request("r2", 30), source="claude-trace")
    report = analyze_agents([request("r1"), trace], Activity(), UTC)
    assert report.without_activity == ("claude-trace",)
    assert not report.has_activity


@pytest.mark.parametrize("start", [start for start, _ in INJECTED])
def test_no_text_the_harness_injects_is_a_user_request(start: str) -> None:
    def said(uuid: str, content: object) -> str:
        message = {"role": "user", "content": content}
        return json.dumps({
            "type": "user", "sessionId": "s1", "uuid": uuid, "isSidechain": False,
            "timestamp": f"2026-03-02T09:00:0{uuid}Z", "message": message,
        })  # fmt: skip

    lines = [
        said("1", f"{start} ...harness text..."),
        said("2", [{"type": "text", "text": f"{start} ..."}]),
        said("3", [{"type": "text", "text": "fix the build"}, {"type": "text", "text": start}]),
    ]
    reader = claude_code.Reader("s1.jsonl", "")
    reader.feed("\n".join(lines).encode() + b"\n")
    result = reader.result()
    assert result.activity is not None
    assert [event.text for event in result.activity.events] == ["fix the build"]
