"""The Claude Code transcript parser and the cross-file merge: one request per API response.

Each test writes a small transcript shaped like real Claude Code lines and checks the exact
tokens, labels and times a user would see for it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from sniff.ingest.files.discover import expand
from sniff.ingest.files.log_formats import parse_any
from sniff.ingest.merge import merge
from sniff.ingest.reading import read
from sniff.ingest.record import FileResult
from sniff.model import Agent, Dataset, Request, Usage


def parse_file(path: str, project_hint: str) -> FileResult:
    """One file read as a Claude Code transcript."""
    return parse_any(path, project_hint, "claude-code")


T0 = "2025-09-03T14:05:11.902Z"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def scan(*roots: Path) -> Dataset:
    """Read every transcript under `roots` the way `sniff scan` does, without prices."""
    return read(expand(list(roots)), lambda _model, _when, _usage, _provider: None)


def only(dataset: Dataset) -> Request:
    assert len(dataset.requests) == 1, dataset.requests
    return dataset.requests[0]


# --- split lines -------------------------------------------------------------------------------


def test_split_lines_count_once_keeping_the_line_with_the_final_output(tmp_path, cc):
    usage = dict(input=4, read=10215, write=3968)
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, "2025-06-08T11:00:10.000Z"),
            cc.assistant(
                "msg_A", "a1", "u1", "2025-06-08T11:00:13.842Z", cc.usage(**usage, output=5)
            ),
            cc.assistant(
                "msg_A",
                "a2",
                "a1",
                "2025-06-08T11:00:14.100Z",
                cc.usage(**usage, output=5),
                block={"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}},
            ),
            cc.assistant(
                "msg_A", "a3", "a2", "2025-06-08T11:00:15.500Z", cc.usage(**usage, output=281)
            ),
        ],
    )
    result = parse_file(str(path), "hint")
    assert len(result.responses) == 1
    request = only(scan(path))
    assert request.key == "msg_A"
    assert request.usage == Usage(4, 10215, 3968, 0, 281)
    assert (request.file, request.line) == (str(path), 4)


def test_summing_split_lines_is_not_what_is_reported(tmp_path, cc):
    """Two responses of three and two lines: the totals are those of two responses, not five."""
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, T0),
            cc.assistant("msg_A", "a1", "u1", "2025-09-03T14:05:13Z", cc.usage(3, 14000, 500, 2)),
            cc.assistant("msg_A", "a2", "a1", "2025-09-03T14:05:14Z", cc.usage(3, 14000, 500, 2)),
            cc.assistant("msg_A", "a3", "a2", "2025-09-03T14:05:15Z", cc.usage(3, 14000, 500, 90)),
            cc.tool_result("u2", "a3", "2025-09-03T14:05:16Z", "toolu_1"),
            cc.assistant("msg_B", "b1", "u2", "2025-09-03T14:05:18Z", cc.usage(5, 14500, 80, 7)),
            cc.assistant("msg_B", "b2", "b1", "2025-09-03T14:05:19Z", cc.usage(5, 14500, 80, 7)),
        ],
    )
    requests = scan(path).requests
    assert [r.key for r in requests] == ["msg_A", "msg_B"]
    assert sum(r.usage.cache_read_tokens for r in requests) == 28500
    assert sum(r.usage.output_tokens for r in requests) == 97


def test_response_with_only_placeholder_lines_keeps_its_largest_placeholder(tmp_path, cc):
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, T0),
            cc.assistant("msg_A", "a1", "u1", "2025-09-03T14:05:13Z", cc.usage(4, 900, 10, 2)),
            cc.assistant("msg_A", "a2", "a1", "2025-09-03T14:05:14Z", cc.usage(4, 900, 10, 8)),
            cc.assistant("msg_A", "a3", "a2", "2025-09-03T14:05:15Z", cc.usage(4, 900, 10, 8)),
        ],
    )
    request = only(scan(path))
    assert request.usage.output_tokens == 8
    assert request.line == 3


def test_non_contiguous_split_lines_are_one_response(tmp_path, cc):
    """Parallel tool calls: a tool_result user line is written between two lines of a response."""
    usage = dict(input=6, read=27180, write=1200)
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, "2026-02-10T13:10:00.000Z"),
            cc.assistant(
                "msg_R", "r1", "u1", "2026-02-10T13:10:03.000Z", cc.usage(**usage, output=4)
            ),
            cc.tool_result("t1", "r1", "2026-02-10T13:10:03.500Z", "toolu_1"),
            cc.assistant(
                "msg_R", "r2", "r1", "2026-02-10T13:10:04.000Z", cc.usage(**usage, output=4)
            ),
            cc.tool_result("t2", "r2", "2026-02-10T13:10:04.500Z", "toolu_2"),
            cc.assistant(
                "msg_R", "r3", "r2", "2026-02-10T13:10:06.250Z", cc.usage(**usage, output=342)
            ),
            cc.assistant(
                "msg_S", "s1", "t2", "2026-02-10T13:10:09.000Z", cc.usage(3, 28380, 400, 50)
            ),
        ],
    )
    requests = scan(path).requests
    assert len(requests) == 2
    first = requests[0]
    assert first.key == "msg_R"
    assert first.usage == Usage(6, 27180, 1200, 0, 342)
    assert first.first_token_at == at("2026-02-10T13:10:03.000Z")
    assert first.ended_at == at("2026-02-10T13:10:06.250Z")


def test_request_id_is_the_key_when_message_id_is_missing(tmp_path, cc):
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, T0),
            cc.assistant(
                None,
                "a1",
                "u1",
                "2025-09-03T14:05:13Z",
                cc.usage(4, 500, 20, 3),
                request_id="req_1",
            ),
            cc.assistant(
                None,
                "a2",
                "a1",
                "2025-09-03T14:05:14Z",
                cc.usage(4, 500, 20, 77),
                request_id="req_1",
            ),
            cc.tool_result("u2", "a2", "2025-09-03T14:05:15Z", "toolu_1"),
            cc.assistant(
                None,
                "b1",
                "u2",
                "2025-09-03T14:05:17Z",
                cc.usage(2, 520, 30, 11),
                request_id="req_2",
            ),
        ],
    )
    requests = scan(path).requests
    assert [(r.key, r.usage.output_tokens) for r in requests] == [("req_1", 77), ("req_2", 11)]


# --- cache write lifetimes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("usage", "write_5m", "write_1h", "ttl_assumed"),
    [
        pytest.param({"write": 4371, "split": (300, 4071)}, 300, 4071, False, id="5m-and-1h"),
        pytest.param({"write": 4071, "split": (0, 4071)}, 0, 4071, False, id="all-1h"),
        pytest.param({"write": 3968}, 3968, 0, True, id="no-split-assumed-5m"),
        pytest.param({"write": 0}, 0, 0, False, id="no-writes-nothing-assumed"),
    ],
)
def test_cache_writes_split_by_lifetime(tmp_path, cc, usage, write_5m, write_1h, ttl_assumed):
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, T0),
            cc.assistant(
                "msg_A",
                "a1",
                "u1",
                "2025-09-03T14:05:13Z",
                cc.usage(10, 14221, output=268, **usage),
            ),
        ],
    )
    request = only(scan(path))
    assert request.usage.cache_write_5m_tokens == write_5m
    assert request.usage.cache_write_1h_tokens == write_1h
    assert request.ttl_assumed is ttl_assumed


def test_split_without_a_total_still_counts_both_lifetimes(tmp_path, cc):
    usage = cc.usage(10, 14221, output=268, split=(120, 4071))
    del usage["cache_creation_input_tokens"]
    path = cc.write(
        tmp_path / "s.jsonl",
        [cc.user("u1", None, T0), cc.assistant("msg_A", "a1", "u1", "2025-09-03T14:05:13Z", usage)],
    )
    assert only(scan(path)).usage == Usage(10, 14221, 120, 4071, 268)


# --- what is not a request ---------------------------------------------------------------------


def test_synthetic_and_api_error_lines_are_events_not_requests(tmp_path, cc):
    error_usage = cc.usage(0, 0, 0, 0)
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, T0),
            cc.assistant(
                "msg_err1",
                "e1",
                "u1",
                "2025-10-30T15:50:00Z",
                error_usage,
                model="<synthetic>",
                isApiErrorMessage=True,
                request_id=None,
                block={"type": "text", "text": "API Error: 529 Overloaded"},
            ),
            cc.assistant(
                "msg_err2", "e2", "e1", "2025-10-30T15:50:01Z", error_usage, model="<synthetic>"
            ),
            cc.assistant(
                "msg_err3",
                "e3",
                "e2",
                "2025-10-30T15:50:02Z",
                cc.usage(3, 9000, 0, 0),
                isApiErrorMessage=True,
                error="rate_limit",
                apiErrorStatus=429,
            ),
            cc.user("u2", "e3", "2025-10-30T15:51:00Z", "try again"),
            cc.assistant("msg_ok", "a1", "u2", "2025-10-30T15:51:03Z", cc.usage(4, 9000, 120, 55)),
        ],
    )
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_ok"]
    assert dataset.synthetic == 3
    assert "<synthetic>" not in {r.model for r in dataset.requests}


def test_other_entry_types_are_ignored_even_when_they_carry_usage(tmp_path, cc):
    task_result = cc.user(
        "u2",
        "a1",
        "2025-09-03T14:06:00Z",
        "done",
        toolUseResult={"usage": cc.usage(9, 9999, 999, 99), "totalTokens": 11106, "agentId": "x"},
    )
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            {"type": "summary", "summary": "Fix the cart", "leafUuid": "a1"},
            {"type": "queue-operation", "operation": "enqueue", "timestamp": T0, "sessionId": "s"},
            {
                "type": "file-history-snapshot",
                "messageId": "m1",
                "snapshot": {"messageId": "m1", "trackedFileBackups": {}, "timestamp": T0},
                "isSnapshotUpdate": False,
            },
            cc.user("u1", None, T0),
            cc.assistant("msg_A", "a1", "u1", "2025-09-03T14:05:13Z", cc.usage(4, 500, 20, 30)),
            task_result,
            {
                "type": "workspace-note",
                "uuid": "w1",
                "timestamp": "2025-09-03T14:06:01Z",
                "message": {"id": "msg_X", "model": cc.SONNET_4, "usage": cc.usage(1, 2, 3, 4)},
            },
            {
                "type": "system",
                "subtype": "compact_boundary",
                "parentUuid": None,
                "uuid": "c1",
                "timestamp": "2025-09-03T14:06:02Z",
                "compactMetadata": {"trigger": "auto", "preTokens": 170251},
            },
            {
                "type": "progress",
                "uuid": "p1",
                "timestamp": "2025-09-03T14:06:03Z",
                "data": {"type": "hook_progress", "hookEvent": "PostToolUse"},
            },
        ],
    )
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_A"]
    assert dataset.issues == ()
    assert dataset.synthetic == 0


# --- subagents embedded in progress lines ------------------------------------------------------


def _task_session(cc, project: Path, *, with_subagent_file: bool) -> None:
    """A 2.1.x main session whose Task subagent's two responses are embedded in progress lines."""
    session = "348de662-5735-484d-85aa-270437afec5e"
    in_sub = dict(session=session, sidechain=True, agentId="a4c19e2")
    haiku = dict(model="claude-haiku-4-5-20251001", **in_sub)
    opus = dict(model="claude-opus-4-6", session=session)
    sub = [
        cc.user("s0", None, "2026-02-10T13:02:51.840Z", "Find every cache.", **in_sub),
        cc.assistant(
            "msg_sub1", "s1", "s0", "2026-02-10T13:02:53.192Z",
            cc.usage(12, 0, 11253, 160, split=(11253, 0)), **haiku,
        ),
        cc.tool_result("s2", "s1", "2026-02-10T13:02:54.000Z", "toolu_g", **in_sub),
        cc.assistant(
            "msg_sub2", "s3", "s2", "2026-02-10T13:02:57.428Z",
            cc.usage(8, 11253, 680, 1, split=(680, 0)), **haiku,
        ),
        cc.assistant(
            "msg_sub2", "s4", "s3", "2026-02-10T13:02:58.100Z",
            cc.usage(8, 11253, 680, 1, split=(680, 0)), **haiku,
        ),
    ]  # fmt: skip
    task = {"type": "tool_use", "id": "toolu_task", "name": "Task", "input": {}}

    def embed(uuid: str, parent: str, timestamp: str, inner: dict) -> dict:
        return cc.agent_progress(uuid, parent, timestamp, inner, "a4c19e2", session=session)

    main = [
        cc.user("m0", None, "2026-02-10T13:02:44.672Z", "Why the leak?", session=session),
        cc.assistant(
            "msg_main1", "m1", "m0", "2026-02-10T13:02:49.000Z",
            cc.usage(3, 27180, 900, 120, split=(0, 900)), block=task, **opus,
        ),
        embed("p1", "m1", "2026-02-10T13:02:53.194Z", sub[1]),
        embed("p2", "p1", "2026-02-10T13:02:57.436Z", sub[3]),
        embed("p3", "p2", "2026-02-10T13:02:58.110Z", sub[4]),
        cc.tool_result("m2", "m1", "2026-02-10T13:03:05.000Z", "toolu_task", session=session),
        cc.assistant(
            "msg_main2", "m3", "m2", "2026-02-10T13:03:09.000Z",
            cc.usage(4, 28080, 700, 310, split=(0, 700)), **opus,
        ),
    ]  # fmt: skip
    cc.write(project / f"{session}.jsonl", main)
    if with_subagent_file:
        cc.write(project / session / "subagents" / "agent-a4c19e2.jsonl", sub)


@pytest.mark.parametrize("with_subagent_file", [True, False], ids=["with-file", "embedded-only"])
def test_agent_progress_embeds_count_once(tmp_path, cc, with_subagent_file):
    project = tmp_path / "projects" / "-home-dana-src-tilesrv"
    _task_session(cc, project, with_subagent_file=with_subagent_file)
    dataset = scan(tmp_path)
    by_key = {r.key: r for r in dataset.requests}
    assert sorted(by_key) == ["msg_main1", "msg_main2", "msg_sub1", "msg_sub2"]
    for key in ("msg_sub1", "msg_sub2"):
        sub = by_key[key]
        assert (sub.agent, sub.agent_id) == (Agent.SUBAGENT, "a4c19e2")
        assert sub.session_id == "348de662-5735-484d-85aa-270437afec5e"
        assert sub.model == "claude-haiku-4-5-20251001"
    assert by_key["msg_sub1"].usage == Usage(12, 0, 11253, 0, 160)
    assert by_key["msg_sub2"].usage == Usage(8, 11253, 680, 0, 1)
    assert sum(r.usage.cache_write_5m_tokens for r in dataset.requests) == 11933
    assert (by_key["msg_main1"].agent, by_key["msg_main1"].agent_id) == (Agent.MAIN, "main")


def test_subagent_file_copy_is_kept_over_the_embedded_copy(tmp_path, cc):
    project = tmp_path / "projects" / "-home-dana-src-tilesrv"
    _task_session(cc, project, with_subagent_file=True)
    by_key = {r.key: r for r in scan(tmp_path).requests}
    assert Path(by_key["msg_sub1"].file).parts[-2:] == ("subagents", "agent-a4c19e2.jsonl")
    # The subagent file holds the record the request answers, so its start is known.
    assert by_key["msg_sub1"].started_at == at("2026-02-10T13:02:51.840Z")


# --- resumed sessions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("original_name", "resumed_name"),
    [("d4d4615c", "49147c13"), ("d4d4615c", "0a1b2c3d")],
    ids=["original-read-first", "resumed-read-first"],
)
def test_resumed_session_replay_counts_once_for_the_original_session(
    tmp_path, cc, original_name, resumed_name
):
    original = [
        cc.user("o0", None, "2025-11-26T10:14:02.731Z", session=original_name),
        cc.assistant(
            "msg_1",
            "o1",
            "o0",
            "2025-11-26T10:14:06.000Z",
            cc.usage(4, 0, 17529, 220),
            session=original_name,
        ),
        cc.tool_result("o2", "o1", "2025-11-26T10:14:07.000Z", "toolu_1", session=original_name),
        cc.assistant(
            "msg_2",
            "o3",
            "o2",
            "2025-11-26T10:14:12.000Z",
            cc.usage(5, 17529, 900, 180),
            session=original_name,
        ),
    ]
    replay = [{**line, "sessionId": resumed_name} for line in original]
    resumed = [
        {"type": "summary", "summary": "Ledger rounding", "leafUuid": "o3"},
        *replay,
        cc.user("n0", "o3", "2025-11-27T08:31:55.018Z", "Continue.", session=resumed_name),
        cc.assistant(
            "msg_3",
            "n1",
            "n0",
            "2025-11-27T08:31:59.000Z",
            cc.usage(4, 0, 18600, 95),
            session=resumed_name,
        ),
    ]
    project = tmp_path / "projects" / "-home-dana-src-ledger-api"
    original_file = cc.write(project / f"{original_name}.jsonl", original)
    cc.write(project / f"{resumed_name}.jsonl", resumed)
    requests = scan(tmp_path).requests
    assert [(r.key, r.session_id) for r in requests] == [
        ("msg_1", original_name),
        ("msg_2", original_name),
        ("msg_3", resumed_name),
    ]
    assert requests[0].file == str(original_file)
    assert sum(r.usage.cache_write_5m_tokens for r in requests) == 17529 + 900 + 18600


# --- agents ------------------------------------------------------------------------------------


def test_main_session_requests_are_main(tmp_path, cc):
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, T0),
            cc.assistant("msg_A", "a1", "u1", "2025-09-03T14:05:13Z", cc.usage()),
        ],
    )
    request = only(scan(path))
    assert (request.agent, request.agent_id) == (Agent.MAIN, "main")
    assert request.session_id == cc.SESSION


def test_inline_sidechains_are_subagents_named_by_their_root(tmp_path, cc):
    """1.0.x: two parallel Task agents written inline with isSidechain, no agentId."""

    def side(uuid, parent, timestamp, key=None, output=1):
        if key is None:
            return cc.user(uuid, parent, timestamp, "Examine package.json.", sidechain=True)
        usage = cc.usage(4, 0, 12802, output, split=(12802, 0))
        return cc.assistant(key, uuid, parent, timestamp, usage, sidechain=True)

    path = cc.write(
        tmp_path / "c93574ae.jsonl",
        [
            cc.user("u1", None, T0),
            cc.assistant(
                "msg_task", "a1", "u1", "2025-09-03T14:05:15Z", cc.usage(4, 14000, 300, 200)
            ),
            side("6340ddef-f656-4b72-a065-82390f637678", None, "2025-09-03T14:05:16Z"),
            side(
                "x1", "6340ddef-f656-4b72-a065-82390f637678", "2025-09-03T14:05:19Z", "msg_s1", 107
            ),
            side("x2", "x1", "2025-09-03T14:05:20Z"),
            side("x3", "x2", "2025-09-03T14:05:23Z", "msg_s2", 64),
            side("9f00aa11-0000-4000-8000-000000000000", None, "2025-09-03T14:05:16Z"),
            side(
                "y1", "9f00aa11-0000-4000-8000-000000000000", "2025-09-03T14:05:18Z", "msg_s3", 12
            ),
        ],
    )
    agents = {r.key: (r.agent, r.agent_id, r.session_id) for r in scan(path).requests}
    assert agents == {
        "msg_task": (Agent.MAIN, "main", cc.SESSION),
        "msg_s1": (Agent.SUBAGENT, "sidechain-6340ddef", cc.SESSION),
        "msg_s2": (Agent.SUBAGENT, "sidechain-6340ddef", cc.SESSION),
        "msg_s3": (Agent.SUBAGENT, "sidechain-9f00aa11", cc.SESSION),
    }


@pytest.mark.parametrize(
    ("relative", "agent_field", "agent", "agent_id"),
    [
        pytest.param("agent-3b9e07a1.jsonl", "3b9e07a1", Agent.SUBAGENT, "3b9e07a1", id="2.0-root"),
        pytest.param("agent-3b9e07a1.jsonl", None, Agent.SUBAGENT, "3b9e07a1", id="2.0-name-only"),
        pytest.param(
            "348de662/subagents/agent-a4c19e2.jsonl",
            "a4c19e2",
            Agent.SUBAGENT,
            "a4c19e2",
            id="2.1-subagents",
        ),
        pytest.param(
            "348de662/subagents/agent-acompact-7f3e1b.jsonl",
            "acompact-7f3e1b",
            Agent.COMPACTION,
            "acompact-7f3e1b",
            id="2.1-compaction",
        ),
    ],
)
def test_agent_files_are_labelled_by_layout(tmp_path, cc, relative, agent_field, agent, agent_id):
    extra = {"agentId": agent_field} if agent_field else {}
    path = cc.write(
        tmp_path / "projects" / "-home-dana-src-tilesrv" / relative,
        [
            cc.user("s0", None, "2026-02-10T13:20:00Z", "Warmup", sidechain=True, **extra),
            cc.assistant(
                "msg_x",
                "s1",
                "s0",
                "2026-02-10T13:20:04Z",
                cc.usage(4, 147816, 8350, 3180),
                sidechain=True,
                **extra,
            ),
        ],
    )
    request = only(scan(path))
    assert (request.agent, request.agent_id) == (agent, agent_id)
    assert request.session_id == cc.SESSION  # subagent lines carry the parent's session id


# --- project and times -------------------------------------------------------------------------


def test_project_is_the_working_directory(tmp_path, cc):
    path = cc.write(
        tmp_path / "projects" / "-home-dana-src-webshop" / "s.jsonl",
        [
            {"type": "summary", "summary": "x", "leafUuid": "a1"},
            cc.user("u1", None, T0, cwd="/home/dana/src/web-shop"),
            cc.assistant("msg_A", "a1", "u1", "2025-09-03T14:05:13Z", cc.usage(), cwd=None),
        ],
    )
    assert only(scan(path)).project == "/home/dana/src/web-shop"


def test_project_falls_back_to_the_projects_folder_name(tmp_path, cc):
    project = tmp_path / "claude" / "projects" / "-home-dana-src-notes-cli"
    cc.write(
        project / "103c3028.jsonl",
        [
            cc.user("u1", None, T0, cwd=None),
            cc.assistant("msg_A", "a1", "u1", T0, cc.usage(), cwd=None),
        ],
    )
    cc.write(
        project / "103c3028" / "subagents" / "agent-a1b2c3d.jsonl",
        [cc.assistant("msg_B", "b1", None, T0, cc.usage(), cwd=None, agentId="a1b2c3d")],
    )
    requests = scan(tmp_path / "claude").requests
    assert {r.key: r.project for r in requests} == {
        "msg_A": "-home-dana-src-notes-cli",
        "msg_B": "-home-dana-src-notes-cli",
    }


def test_request_times_come_from_its_parent_and_its_lines(tmp_path, cc):
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            cc.user("u1", None, "2025-09-09T23:38:40.127Z"),
            cc.assistant("msg_A", "a1", "u1", "2025-09-09T23:38:42.665Z", cc.usage(4, 0, 17814, 3)),
            cc.assistant(
                "msg_A", "a2", "a1", "2025-09-09T23:38:44.010Z", cc.usage(4, 0, 17814, 296)
            ),
        ],
    )
    request = only(scan(path))
    assert request.started_at == at("2025-09-09T23:38:40.127Z")
    assert request.first_token_at == at("2025-09-09T23:38:42.665Z")
    assert request.ended_at == at("2025-09-09T23:38:44.010Z")
    assert request.when == request.started_at
    assert request.ended_at.tzinfo is not None


def test_merge_keeps_the_fullest_copy_across_files(tmp_path, cc):
    """The same response in two files: the copy with the final output count wins."""
    lines = [
        cc.user("u1", None, T0),
        cc.assistant("msg_A", "a1", "u1", "2025-09-03T14:05:13Z", cc.usage(4, 500, 20, 2)),
    ]
    early = cc.write(tmp_path / "early.jsonl", lines)
    full = cc.write(
        tmp_path / "full.jsonl",
        [
            *lines,
            cc.assistant("msg_A", "a2", "a1", "2025-09-03T14:05:15Z", cc.usage(4, 500, 20, 640)),
        ],
    )
    responses = [
        *parse_file(str(early), "p").responses,
        *parse_file(str(full), "p").responses,
    ]
    requests = merge(responses)
    assert len(requests) == 1
    assert (requests[0].usage.output_tokens, requests[0].file) == (640, str(full))
    assert requests[0].cost is None  # merge without a pricer prices nothing


# --- the first visible token -------------------------------------------------------------------

THINK = {"type": "thinking", "thinking": "Which test fails?", "signature": "sig"}
TOOL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest"}}


def _visible(tmp_path: Path, cc, blocks: list[tuple[str, dict | None]]) -> Request:
    """The request of one response written as one line per (time, block), answering `u1`."""
    lines = [cc.user("u1", None, "2025-06-08T11:00:10.000Z")]
    parent = "u1"
    for number, (stamp, block) in enumerate(blocks):
        lines.append(cc.assistant("msg_V", f"a{number}", parent, stamp, cc.usage(), block=block))
        parent = f"a{number}"
    return only(scan(cc.write(tmp_path / "p" / "s.jsonl", lines)))


def test_the_first_visible_token_is_the_first_text_line_not_the_thinking(tmp_path, cc):
    request = _visible(
        tmp_path,
        cc,
        [
            ("2025-06-08T11:00:12.000Z", THINK),
            ("2025-06-08T11:00:13.250Z", TOOL),
            ("2025-06-08T11:00:14.500Z", None),  # text, after a tool call
        ],
    )
    assert request.started_at == at("2025-06-08T11:00:10.000Z")
    assert request.first_token_at == at("2025-06-08T11:00:12.000Z")
    assert request.visible_at == at("2025-06-08T11:00:14.500Z")


def test_without_text_the_first_tool_call_is_the_first_visible_token(tmp_path, cc):
    later_tool = {**TOOL, "id": "toolu_2"}
    request = _visible(
        tmp_path,
        cc,
        [
            ("2025-06-08T11:00:12.000Z", THINK),
            ("2025-06-08T11:00:13.900Z", later_tool),
            ("2025-06-08T11:00:13.250Z", TOOL),  # written out of order: the earliest counts
        ],
    )
    assert request.visible_at == at("2025-06-08T11:00:13.250Z")


def test_a_response_of_thinking_only_has_no_visible_token(tmp_path, cc):
    request = _visible(tmp_path, cc, [("2025-06-08T11:00:12.000Z", THINK)])
    assert request.first_token_at == at("2025-06-08T11:00:12.000Z")
    assert request.visible_at is None


def test_a_kept_reader_offered_the_text_line_later_gives_the_visible_token(tmp_path, cc):
    """The index keeps a reader between runs: the text line appended later still counts."""
    import pickle

    from sniff.ingest.formats.claude_code.reader import Reader

    first = [
        cc.user("u1", None, "2025-06-08T11:00:10.000Z"),
        cc.assistant("msg_V", "a0", "u1", "2025-06-08T11:00:12.000Z", cc.usage(), block=THINK),
    ]
    later = [cc.assistant("msg_V", "a1", "a0", "2025-06-08T11:00:13.500Z", cc.usage())]
    path = cc.write(tmp_path / "s.jsonl", first)
    reader = Reader(str(path), "p")
    reader.feed(path.read_bytes())
    [before] = reader.result().responses
    assert before.visible_at is None and before.first_at == at(first[1]["timestamp"]).timestamp()
    kept = pickle.loads(pickle.dumps(reader))
    kept.feed(cc.write(tmp_path / "more.jsonl", later).read_bytes(), first_line=3)
    [after] = kept.result().responses
    assert after.visible_at == at("2025-06-08T11:00:13.500Z").timestamp()
    assert after.first_at == before.first_at
