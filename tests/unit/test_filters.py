"""`keep_activity`: the activity a filtered report or `sniff agents` looks at."""

from __future__ import annotations

from datetime import UTC, datetime

from sniff.analyses.filters import Filters, keep_activity
from sniff.model import Activity, Agent, AgentEvent, Request, ToolCall, ToolResult, Usage

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC).timestamp()


def request(key: str, session: str, model: str, agent: Agent = Agent.MAIN) -> Request:
    return Request(
        source="claude-code",
        key=key,
        project="/home/dana/src/webshop",
        session_id=session,
        agent=agent,
        agent_id="main" if agent is Agent.MAIN else "sub1",
        model=model,
        provider="anthropic",
        ended_at=datetime(2026, 3, 2, 9, 0, 5, tzinfo=UTC),
        started_at=datetime(2026, 3, 2, 9, tzinfo=UTC),
        usage=Usage(input_tokens=10),
        file="s.jsonl",
        line=1,
    )


REQUESTS = (
    request("r-opus", "s1", "claude-opus-4-6"),
    request("r-sub", "s1", "claude-haiku-4-5", Agent.SUBAGENT),
    request("r-sonnet", "s2", "claude-sonnet-4-5"),
)
ACTIVITY = Activity(
    calls=tuple(
        ToolCall(f"call-{key}", "Bash", key, session, "/home/dana/src/webshop", AT)
        for key, session in (("r-opus", "s1"), ("r-sub", "s1"), ("r-sonnet", "s2"))
    ),
    results=(
        ToolResult("call-r-opus", "s1", AT),
        ToolResult("call-r-sub", "s1", AT, error="Exit code 1"),
        ToolResult("call-r-sonnet", "s2", AT, error="Exit code 2"),
    ),
    events=(
        AgentEvent("instruction", "s1", "/home/dana/src/webshop", AT, "fix it"),
        AgentEvent("instruction", "s2", "/home/dana/src/webshop", AT, "test it"),
    ),
)


def test_a_model_filter_keeps_only_the_activity_of_that_models_requests() -> None:
    kept = keep_activity(ACTIVITY, Filters(model="sonnet"), REQUESTS)
    assert [call.key for call in kept.calls] == ["r-sonnet"]
    assert [result.tool_use_id for result in kept.results] == ["call-r-sonnet"]
    assert [event.session_id for event in kept.events] == ["s2"]


def test_an_agent_filter_keeps_only_the_activity_of_that_agents_requests() -> None:
    kept = keep_activity(ACTIVITY, Filters(agent="subagent"), REQUESTS)
    assert [call.key for call in kept.calls] == ["r-sub"]
    assert [result.tool_use_id for result in kept.results] == ["call-r-sub"]
    assert [event.session_id for event in kept.events] == ["s1"]  # the subagent's session


def test_a_model_no_request_has_keeps_no_activity() -> None:
    assert keep_activity(ACTIVITY, Filters(model="nonexistent-xyz"), REQUESTS) == Activity()


def test_without_model_or_agent_filters_the_activity_stays_whole() -> None:
    assert keep_activity(ACTIVITY, Filters(), REQUESTS) is ACTIVITY
    assert keep_activity(ACTIVITY, Filters(project="webshop"), REQUESTS) == ACTIVITY
