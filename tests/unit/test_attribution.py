"""Cost by subagent type, subagent run, skill and MCP server (`sniff agents`) on a planted
session: each figure exact, from sniff's own per-request costs."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.analyses.agents.attribution import NOT_LINKED
from sniff.cli import app
from sniff.model import Request
from sniff.workspace import Workspace
from tests.planted_session import START, Step, write_session


def launch(kind: str, run: str | None = None) -> Step:
    return Step(
        tool="Task",
        tool_input={"subagent_type": kind, "prompt": "look"},
        output="done",
        tool_use_result={"agentId": run} if run else {"status": "ok"},
    )


def planted(folder: Path) -> Path:
    write_session(
        folder,
        [
            launch("Explore", "e1"),
            launch("Plan"),
            Step(tool="mcp__github__create_issue", tool_input={"title": "t"}, output="#4"),
            Step(cache_read=1000 + 100 + 500),
            Step(tool="Skill", tool_input={"skill": "pdf"}, output="Launching skill: pdf"),
            Step(output_tokens=300),
            Step(output_tokens=400),
        ],
    )
    write_session(
        folder,
        [Step(), Step(output_tokens=900)],
        agent="e1",
        start=START + timedelta(minutes=1, seconds=2),
        gap=timedelta(seconds=5),
    )
    write_session(
        folder,
        [Step(input_tokens=70), Step()],
        sidechain="inline-plan",
        start=START + timedelta(minutes=2, seconds=2),
        gap=timedelta(seconds=5),
    )
    return folder


def cost_of(requests: list[Request], keys: set[str]) -> float:
    total = 0.0
    for request in requests:
        if request.key in keys:
            assert request.cost is not None
            total += request.cost.total_usd
    return total


def test_subagent_types_and_runs_with_their_parent_requests(tmp_path: Path) -> None:
    workspace = Workspace(planted(tmp_path), use_index=False)
    requests = list(workspace.dataset().requests)
    found = workspace.agents_report().attribution
    explore = {"msg_e1_1", "msg_e1_2"}
    plan = {"msg_inline-plan_1", "msg_inline-plan_2"}
    types = {row.name: row for row in found.subagent_types}
    assert set(types) == {"Explore", "Plan"}  # every subagent request tied to a launch
    assert (types["Explore"].runs, types["Explore"].spent.requests) == (1, 2)
    assert types["Explore"].spent.cost_usd == pytest.approx(cost_of(requests, explore))
    assert types["Plan"].spent.cost_usd == pytest.approx(cost_of(requests, plan))
    runs = {row.subagent_type: row for row in found.runs}
    assert (runs["Explore"].agent_id, runs["Explore"].parent_key) == ("e1", "msg_main_1")
    assert runs["Plan"].parent_key == "msg_main_2"  # the inline sidechain, by its time
    assert runs["Plan"].spent.tokens == 70 + 100 + 1000 + 10 + 100 + 1000


def test_skills_and_mcp_servers(tmp_path: Path) -> None:
    workspace = Workspace(planted(tmp_path), use_index=False)
    requests = list(workspace.dataset().requests)
    found = workspace.agents_report().attribution
    (skill,) = found.skills
    assert (skill.name, skill.runs, skill.spent.requests) == ("pdf", 1, 2)
    assert skill.spent.cost_usd == pytest.approx(cost_of(requests, {"msg_main_6", "msg_main_7"}))
    (server,) = found.servers
    assert (server.server, server.tools, server.calls, server.errors) == ("github", 1, 1, 0)
    assert server.result_tokens == 500
    assert server.cost_usd == pytest.approx(cost_of(requests, {"msg_main_3"}))


def test_each_tool_costs_the_requests_that_asked_for_it(tmp_path: Path) -> None:
    """Each planted request asks for one tool, so a tool's cost is its asking requests'."""
    workspace = Workspace(planted(tmp_path), use_index=False)
    requests = list(workspace.dataset().requests)
    tools = {row.tool: row for row in workspace.agents_report().tools}
    assert tools["Task"].cost_usd == pytest.approx(cost_of(requests, {"msg_main_1", "msg_main_2"}))
    assert tools["Skill"].cost_usd == pytest.approx(cost_of(requests, {"msg_main_5"}))
    github = tools["mcp__github__create_issue"]
    assert github.cost_usd == pytest.approx(cost_of(requests, {"msg_main_3"}))


def test_a_chain_no_launch_names_is_in_its_own_row(tmp_path: Path) -> None:
    write_session(tmp_path, [launch("Explore"), launch("Plan"), Step()])
    # after both launches' results: neither started it
    write_session(
        tmp_path,
        [Step()],
        sidechain="orphan",
        start=START + timedelta(minutes=3),
        gap=timedelta(seconds=5),
    )
    found = Workspace(tmp_path, use_index=False).agents_report().attribution
    types = {row.name: (row.runs, row.spent.requests) for row in found.subagent_types}
    assert types == {"Explore": (1, 0), "Plan": (1, 0), NOT_LINKED: (0, 1)}
    assert found.runs == []


def test_agents_shows_and_prints_the_tables(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        app, ["agents", str(planted(tmp_path)), "--no-index"], env={"COLUMNS": "160"}
    )
    assert result.exit_code == 0, result.output
    for title in ("Subagent types", "Most expensive subagent runs", "Skills", "MCP servers"):
        assert title in result.stdout
    result = runner.invoke(app, ["agents", str(tmp_path), "--json", "--no-index", "-n", "1"])
    import json

    data = json.loads(result.stdout)
    assert len(data["subagent_runs"]) == 1
    assert data["skills"][0] == {"skill": "pdf", "invocations": 1, "requests": 2,
                                 "tokens": data["skills"][0]["tokens"],
                                 "cost_usd": data["skills"][0]["cost_usd"],
                                 "unpriced_requests": 0}  # fmt: skip
    assert data["mcp_servers"][0]["server"] == "github"
    assert data["mcp_servers"][0]["result_tokens"] == 500


@pytest.mark.parametrize(
    ("kinds", "keys", "linked"),
    [
        (("Explore", "Explore"), ("msg_1", "msg_1"), True),  # parallel launches of one response
        (("Explore", "Plan"), ("msg_1", "msg_1"), False),  # which type started it is not known
        (("Explore", "Explore"), ("msg_1", "msg_2"), False),  # nor which request
    ],
)
def test_a_run_tied_by_time_only_when_its_launches_agree(
    tmp_path: Path, kinds: tuple[str, str], keys: tuple[str, str], linked: bool
) -> None:
    from sniff.analyses.agents.attribution import attribute
    from sniff.model import Activity, ToolCall, ToolResult

    write_session(tmp_path, [Step(), Step()], sidechain="both", gap=timedelta(seconds=5))
    requests = list(Workspace(tmp_path, use_index=False).dataset().requests)
    at = START.timestamp()
    calls = tuple(
        ToolCall(f"t{i}", "Task", key, requests[0].session_id, "p", at - 0.5, kind)
        for i, (kind, key) in enumerate(zip(kinds, keys, strict=True))
    )
    results = tuple(ToolResult(call.id, call.session_id, at + 60) for call in calls)
    found = attribute(requests, Activity(calls, results), [])
    assert bool(found.runs) is linked
    assert (NOT_LINKED in {row.name for row in found.subagent_types}) is not linked


def test_the_report_has_the_subagent_skill_and_mcp_tables(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    result = CliRunner().invoke(
        app, ["report", str(planted(tmp_path / "logs")), "-f", "md", "-o", str(out), "--no-index"]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text()
    for title, row in (
        ("Subagent types", "| Explore | 1 | 2 |"),  # one launch, its run's two requests
        ("Skills", "| pdf | 1 | 2 |"),
        ("MCP servers", "| github | 1 | 1 | 0 | 500 |"),
    ):
        assert f"## {title}" in text and row in text[text.index(f"## {title}") :]
