"""`analyze_agents`: what each user request led to."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sniff.analyses.agents import analyze_agents
from sniff.model import Activity, Agent, AgentEvent, Request, ToolCall, ToolResult, Usage

PROJECT = "/home/dana/src/webshop"


def request(key: str) -> Request:
    return Request(
        source="claude-code",
        key=key,
        project=PROJECT,
        session_id="s1",
        agent=Agent.MAIN,
        agent_id="main",
        model="claude-sonnet-4-5",
        provider="anthropic",
        ended_at=datetime(2026, 3, 2, 9, 0, 5, tzinfo=UTC),
        started_at=datetime(2026, 3, 2, 9, 0, 1, tzinfo=UTC),
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
        calls=(ToolCall("t1", "Bash", "r1", "s1", PROJECT, "2026-03-02T09:00:05Z"),),
        results=(ToolResult("t1", "s1", "2026-03-02T09:00:09Z", error=error),),
        events=(AgentEvent("instruction", "s1", PROJECT, "2026-03-02T09:00:00Z", "run tests"),),
    )
    report = analyze_agents([request("r1")], activity, UTC)
    assert [row.interrupted for row in report.commands] == [interrupted]
    assert report.interruptions == int(interrupted)
