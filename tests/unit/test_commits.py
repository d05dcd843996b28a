"""Cost by commit and by pull request on a planted session: each commit's requests and cost
exact (from sniff's own per-request costs), failed commits, amends, the PR roll-up, redaction."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from sniff.analyses.cost.commits import CommitReport, analyze_commits
from sniff.ingest.tool_detail import codex_detail, command_text, detail, output_text
from sniff.model import Activity, Request
from sniff.workspace import Workspace
from tests.planted_session import SESSION, START, Step, bash, write_session

SECRET = "sk-ant-api03-" + "Q" * 90 + "AA"


def three_commits() -> list[Step]:
    """Requests 1-2 → commit 1 (asked by request 2), 3-5 → commit 2, 6 → commit 3, 7-8 after."""
    return [
        Step(output_tokens=50),
        bash('git add -A && git commit -m "Add the parser"',
             "[main abc1234] Add the parser\n 2 files changed, 40 insertions(+)", cache_read=2000),
        Step(cache_write=3000),
        bash("git status", "On branch main\nnothing to commit"),
        bash("git commit -m 'Test the parser'", "[main 1b2c3d4] Test the parser\n 1 file changed"),
        bash("git -C . commit -am 'Fix the reader'", "[main (root-commit) 9f8e7d6] Fix the reader"),
        Step(output_tokens=700),
        Step(input_tokens=500),
    ]  # fmt: skip


def read(folder: Path) -> tuple[list[Request], Activity, CommitReport]:
    workspace = Workspace(folder, use_index=False)
    requests = workspace.dataset().requests
    return list(requests), workspace.activity(), workspace.commits_report()


def cost_of(requests: list[Request], keys: list[str]) -> float:
    by_key = {request.key: request for request in requests}
    total = 0.0
    for key in keys:
        cost = by_key[key].cost
        assert cost is not None
        total += cost.total_usd
    return total


def test_three_commits_each_with_its_requests_and_exact_cost(tmp_path: Path) -> None:
    write_session(tmp_path, three_commits())
    requests, _, report = read(tmp_path)
    assert [row.hash for row in report.commits] == ["abc1234", "1b2c3d4", "9f8e7d6"]
    assert [row.branch for row in report.commits] == ["main", "main", "main"]
    keys = [list(row.request_keys) for row in report.commits]
    assert keys == [
        ["msg_main_1", "msg_main_2"],
        ["msg_main_3", "msg_main_4", "msg_main_5"],
        ["msg_main_6"],
    ]
    for row, its in zip(report.commits, keys, strict=True):
        assert row.spent.requests == len(its)
        assert row.spent.cost_usd == pytest.approx(cost_of(requests, its), rel=1e-12)
        assert row.spent.unpriced == 0
    # tokens, by hand: request 1 is 10 + 50 + 1000, request 2 is 10 + 100 + 2000
    assert report.commits[0].spent.tokens == 1060 + 2110
    assert report.commits[1].message == "Test the parser"
    assert report.sessions == 1
    assert report.after_last.requests == 2
    assert report.after_last.cost_usd == pytest.approx(
        cost_of(requests, ["msg_main_7", "msg_main_8"]), rel=1e-12
    )
    everything = sum(r.cost.total_usd for r in requests if r.cost is not None)
    attributed = sum(row.spent.cost_usd or 0.0 for row in report.commits)
    assert attributed + (report.after_last.cost_usd or 0.0) == pytest.approx(everything)


def test_a_failed_commit_is_none_and_its_requests_go_to_the_next(tmp_path: Path) -> None:
    write_session(tmp_path, [
        bash("git commit -m 'One'", "Exit code 1\n[main 7777777] One", is_error=True),
        bash("git commit -m 'Two'", "On branch main\nnothing to commit, working tree clean"),
        bash("git commit -m 'Three'", "[main 3333333] Three"),
        bash("echo '[main 4444444] not a commit'", "[main 4444444] not a commit"),
    ])  # fmt: skip
    _, _, report = read(tmp_path)
    assert [row.hash for row in report.commits] == ["3333333"]
    assert report.commits[0].request_keys == ("msg_main_1", "msg_main_2", "msg_main_3")
    assert report.after_last.requests == 1


def test_an_amend_is_a_commit_of_the_requests_since_the_one_it_replaces(tmp_path: Path) -> None:
    write_session(tmp_path, [
        bash("git commit -m 'Draft'", "[main aaaaaaa] Draft"),
        Step(),
        bash("git commit --amend --no-edit", "[main bbbbbbb] Draft\n Date: Mon Mar 2 09:02"),
    ])  # fmt: skip
    _, _, report = read(tmp_path)
    assert [(row.hash, row.amend) for row in report.commits] == [
        ("aaaaaaa", False), ("bbbbbbb", True)
    ]  # fmt: skip
    assert report.commits[1].request_keys == ("msg_main_2", "msg_main_3")


def test_subagent_requests_count_in_the_commit_they_precede(tmp_path: Path) -> None:
    write_session(tmp_path, [Step(), Step(), bash("git commit -m 'After'", "[main ccccccc] After")])
    write_session(tmp_path, [Step(), Step()], agent="a1b2c3d4", start=START + timedelta(seconds=10))
    requests, _, report = read(tmp_path)
    (row,) = report.commits
    assert set(row.request_keys) == {"msg_main_1", "msg_main_2", "msg_main_3",
                                     "msg_a1b2c3d4_1", "msg_a1b2c3d4_2"}  # fmt: skip
    assert row.spent.cost_usd == pytest.approx(cost_of(requests, list(row.request_keys)))


def test_a_secret_in_a_commit_message_is_redacted(tmp_path: Path) -> None:
    write_session(tmp_path, [bash(f"git commit -m 'key {SECRET}'", f"[main ddddddd] key {SECRET}")])
    _, activity, report = read(tmp_path)
    assert SECRET in (activity.results[0].head or "")  # kept as logged, shown redacted
    assert report.commits[0].message == "key sk-ant-…[redacted]"


def pr_steps() -> list[Step]:
    return [
        bash("git checkout -b feat && git commit -m 'One'", "[feat 1111111] One"),
        bash("git commit -m 'Two'", "[feat 2222222] Two"),
        bash("git push -u origin feat", "branch 'feat' set up to track 'origin/feat'."),
        bash("gh pr create --fill", "Creating pull request\nhttps://github.com/o/r/pull/7\n"),
        bash("git commit -m 'Review fix'", "[feat 3333333] Review fix"),
        bash("git push", "To github.com:o/r.git\n   2222222..3333333  feat -> feat"),
        bash("git checkout main && git commit -m 'Elsewhere'", "[main 4444444] Elsewhere"),
        bash("git commit -m 'Unpushed'", "[main 5555555] Unpushed"),
        bash("gh pr create --head other", "https://github.com/o/r/pull/8"),
    ]


def test_commits_roll_up_to_the_pull_request_of_their_branch(tmp_path: Path) -> None:
    write_session(tmp_path, pr_steps())
    requests, _, report = read(tmp_path)
    seven, eight = report.pulls
    assert (seven.url, seven.branch) == ("https://github.com/o/r/pull/7", "feat")
    assert seven.commits == ("1111111", "2222222", "3333333")
    mine = [key for row in report.commits[:3] for key in row.request_keys]
    assert seven.spent.requests == 5  # request 6 (the push) is after commit 3333333
    assert seven.spent.cost_usd == pytest.approx(cost_of(requests, mine))
    assert (eight.branch, eight.commits, eight.spent.requests) == ("other", (), 0)


def test_a_later_commit_never_pushed_stays_out_of_the_pull_request(tmp_path: Path) -> None:
    steps = pr_steps()[:5]  # the review fix, without its push
    write_session(tmp_path, steps)
    _, _, report = read(tmp_path)
    assert report.pulls[0].commits == ("1111111", "2222222")


@pytest.mark.parametrize(
    ("name", "raw", "expected"),
    [
        ("Bash", b'{"command": "git commit -m x", "description": "c"}', "git commit -m x"),
        ("Task", b'{"subagent_type": "Explore", "prompt": "p"}', "Explore"),
        ("Skill", b'{"skill": "pdf"}', "pdf"),
        ("Skill", b'{"command": "/review"}', "review"),
        ("Read", b'{"file_path": "/x"}', None),
        ("Bash", b'{"command": 3}', None),
        ("Bash", b"", None),
    ],
)
def test_what_a_call_was_for(name: str, raw: bytes, expected: str | None) -> None:
    assert detail(name, raw) == expected


def test_codex_commands_and_outputs() -> None:
    exec_args = b'"{\\"cmd\\":\\"git commit -m x\\",\\"workdir\\":\\"/w\\"}"'
    assert codex_detail("exec_command", exec_args, b"") == "git commit -m x"
    shell_args = b'"{\\"command\\":[\\"bash\\",\\"-lc\\",\\"git push\\"]}"'
    assert codex_detail("shell", shell_args, b"") == "git push"
    action = b'{"type": "exec", "command": ["git", "status"]}'
    assert codex_detail("local_shell", b"", action) == "git status"
    assert codex_detail("apply_patch", b'"*** Begin Patch"', b"") is None
    assert command_text("x" * 900) == "x" * 500
    header = (
        "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n[m 1a2b3c4] y"
    )
    assert output_text(header) == "[m 1a2b3c4] y"
    assert output_text('{"output":"[m 1a2b3c4] y","metadata":{"exit_code":0}}') == "[m 1a2b3c4] y"


def test_a_codex_rollout_commit(tmp_path: Path) -> None:
    import json

    rollout = tmp_path / "sessions" / "2026" / "03" / "02"
    rollout.mkdir(parents=True)
    arguments = json.dumps({"cmd": "git commit -m 'Codex did it'"})
    output = "Chunk ID: 1\nProcess exited with code 0\nOutput:\n[main e1e2e3e] Codex did it\n"
    usage = {"input_tokens": 1200, "cached_input_tokens": 1000, "output_tokens": 30,
             "reasoning_output_tokens": 0, "total_tokens": 1230}  # fmt: skip
    lines = [
        {"type": "session_meta", "payload": {"id": "c0dex", "cwd": "/w", "cli_version": "0.50.0"}},
        {"type": "turn_context", "payload": {"model": "gpt-5-codex", "cwd": "/w"}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command",
                                              "arguments": arguments, "call_id": "call_1"}},
        {"type": "event_msg", "payload": {"type": "token_count", "info": {
            "last_token_usage": usage, "total_token_usage": usage}}},
        {"type": "response_item", "payload": {"type": "function_call_output",
                                              "call_id": "call_1", "output": output}},
    ]  # fmt: skip
    text = "".join(
        json.dumps({"timestamp": f"2026-03-02T09:00:0{i}.000Z", **line}) + "\n"
        for i, line in enumerate(lines)
    )
    (rollout / "rollout-2026-03-02T09-00-00-c0dex.jsonl").write_text(text)
    _, activity, report = read(tmp_path)
    assert [call.detail for call in activity.calls] == ["git commit -m 'Codex did it'"]
    assert [(row.hash, row.message, row.spent.requests) for row in report.commits] == [
        ("e1e2e3e", "Codex did it", 1)
    ]


def test_no_session_no_commit(tmp_path: Path) -> None:
    assert analyze_commits([], Activity()).commits == []
    write_session(tmp_path, [Step(), Step()])
    _, _, report = read(tmp_path)
    assert (report.commits, report.pulls, report.sessions) == ([], [], 0)
    assert SESSION  # the planted session is the one read


def test_the_index_keeps_what_the_calls_were_for(tmp_path: Path) -> None:
    write_session(tmp_path, three_commits())
    fresh = Workspace(tmp_path).commits_report()  # parsed, and written to the index
    again = Workspace(tmp_path)
    assert (
        again.activity().results[0].head
        == "[main abc1234] Add the parser\n 2 files changed, 40 insertions(+)"
    )
    assert again.commits_report() == fresh


def test_the_report_lists_the_dearest_commits_and_redacts_their_messages(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from sniff.cli import app

    write_session(tmp_path / "logs", three_commits())
    requests, _, report = read(tmp_path / "logs")
    out = tmp_path / "report.md"
    arguments = ["report", str(tmp_path / "logs"), "--no-index", "-f", "md", "-o", str(out)]
    assert CliRunner().invoke(app, arguments).exit_code == 0
    text = out.read_text()
    assert "## Most expensive commits (3 made in 1 sessions)" in text
    second = report.commits[1]
    assert "| 1b2c3d4 | main | Test the parser | 3 |" in text
    assert second.spent.cost_usd == pytest.approx(cost_of(requests, list(second.request_keys)))
    shown = json.loads(
        CliRunner()
        .invoke(app, ["report", str(tmp_path / "logs"), "--no-index", "--json", "--redact"])
        .stdout  # fmt: skip
    )["commits"]
    dearest = sorted(report.commits, key=lambda row: -(row.spent.cost_usd or 0.0))
    assert [row["hash"] for row in shown["commits"]] == [row.hash for row in dearest]
    assert {row["message"] for row in shown["commits"]} == {"[redacted]"}
    assert all(row["branch"].startswith("branch-") for row in shown["commits"])
