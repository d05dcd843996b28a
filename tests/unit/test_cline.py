"""Cline's two stores: detection, the reading of tokens, and bad input.

The SDK messages documents follow Cline's own fixture (cline/cline
`sdk/packages/core/fixtures/session/`); the classic `ui_messages.json` rows are built from
documentation (the agent-format guide and the agents' sources): no real one could be used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.files.log_formats import detect_document, parse_any
from sniff.ingest.formats.cline import tasks as cline_tasks
from sniff.ingest.record import Tokens
from sniff.model import Harness

T0 = 1_783_900_000_000  # 2026-07-12, epoch ms
OPUS = {"id": "anthropic/claude-opus-4.8-fast", "provider": "cline"}


def message(mid: str, inp: int, read: int, write: int, out: int, **extra: Any) -> dict[str, Any]:
    metrics = {"inputTokens": inp, "outputTokens": out, "cacheReadTokens": read,
               "cacheWriteTokens": write, **extra}  # fmt: skip
    return {"id": mid, "role": "assistant", "ts": T0, "modelInfo": OPUS, "metrics": metrics,
            "content": [{"type": "text", "text": "done"}]}  # fmt: skip


def messages_file(*messages: dict[str, Any], session: str = "s1") -> dict[str, Any]:
    return {"version": 1, "updated_at": "2026-07-12T00:00:00Z", "agent": "lead",
            "sessionId": session, "messages": list(messages)}  # fmt: skip


def write(path: Path, value: Any, text: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value) if text is None else text)
    return path


def api_row(ts: int, **usage: Any) -> dict[str, Any]:
    return {"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps(usage)}


# --- detection ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (messages_file(message("m", 10, 0, 0, 1)), "cline"),
        ([{"ts": T0, "type": "say", "say": "task", "text": "hi"}, api_row(T0 + 1)], "cline-tasks"),
        # the compaction sidecar: copies of history, no sessionId
        ({"version": 1, "updated_at": "t", "source_message_count": 3, "messages": []}, None),
        # the manifest, the conversation history, task metadata, captured provider usage
        ({"version": 1, "session_id": "s1", "provider": "cline", "model": "m", "cwd": "/p"}, None),
        ([{"role": "user", "content": [{"type": "text", "text": "hi"}]}], None),
        ({"files_in_context": [], "model_usage": []}, None),
        ({"openrouter_finish": {"type": "finish", "totalUsage": {"inputTokens": 9}}}, None),
        # Gemini CLI's session document: sessionId and messages, but no updated_at
        ({"sessionId": "s", "projectHash": "h", "lastUpdated": "t", "messages": []}, "gemini-cli"),
        ([], None),
    ],
)
def test_documents_claimed(value: Any, expected: str | None) -> None:
    assert detect_document(json.dumps(value).encode()) == expected


def test_claude_code_and_codex_logs_are_still_theirs(tmp_path: Path) -> None:
    claude = {
        "parentUuid": None,
        "sessionId": "s",
        "type": "user",
        "uuid": "u",
        "timestamp": "2026-03-04T00:00:00Z",
        "message": {"role": "user", "content": "hi"},
    }
    codex = {"timestamp": "2026-03-06T14:02:11.000Z", "type": "session_meta", "payload": {}}
    for name, line, expected in (("c.jsonl", claude, "claude-code"), ("x.jsonl", codex, "codex")):
        path = write(tmp_path / name, None, json.dumps(line) + "\n")
        assert parse_any(str(path), "p").log_format == expected


def test_log_format_forces_a_document_the_detection_would_not_claim(tmp_path: Path) -> None:
    document = messages_file(message("m1", 1000, 900, 0, 10))
    del document["updated_at"]  # an older writer, say: no longer claimed by content
    path = write(tmp_path / "s1.messages.json", document)
    assert detect_document(path.read_bytes()) is None
    arguments = ["scan", "--json", "--tz", "UTC", "--no-index", "--log-format", "cline", str(path)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    totals = json.loads(result.stdout)["totals"]
    assert (totals["requests"], totals["input_tokens"], totals["cache_read_tokens"]) == (
        1,
        100,
        900,
    )


@pytest.mark.parametrize(
    ("path", "harness"),
    [
        ("/c/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1/x.json", Harness.CLINE),
        (
            "/c/Cursor/User/globalStorage/RooVeterinaryInc.roo-cline/tasks/1/x.json",
            Harness.ROO_CODE,
        ),
        ("/c/Code/User/globalStorage/kilocode.kilo-code/tasks/1/x.json", Harness.KILO_CODE),
        ("/h/.cline/data/tasks/1/ui_messages.json", Harness.CLINE),
    ],
)
def test_the_extension_folder_names_the_agent(path: str, harness: Harness) -> None:
    assert cline_tasks.harness_of(path) is harness


# --- tokens ---------------------------------------------------------------------------------


def test_sdk_cache_inside_input_is_subtracted_once(tmp_path: Path) -> None:
    sent = message("m1", 6538, 0, 6535, 176, reasoningTokenCount=40, cost=0.03)
    path = write(tmp_path / "s1.messages.json", messages_file(sent))
    [response] = parse_any(str(path), "hint").responses
    assert response.usage == Tokens(3, 0, 6535, 0, 176, 40)
    assert (response.model, response.provider, response.harness) == (
        OPUS["id"],
        "cline",
        Harness.CLINE,
    )
    assert response.ttl_assumed and response.reported_cost_usd == 0.03
    assert response.project == "hint"  # no manifest beside it


@pytest.mark.parametrize(
    ("harness_folder", "ts", "usage", "expected"),
    [
        # Cline: disjoint
        ("saoudrizwan.claude-dev", T0, {"tokensIn": 50, "cacheReads": 900, "cacheWrites": 10},
         (50, 900, 10)),
        # Roo before 2025-10-31, Anthropic protocol: disjoint
        ("rooveterinaryinc.roo-cline", 1_760_000_000_000,
         {"apiProtocol": "anthropic", "tokensIn": 50, "cacheReads": 900, "cacheWrites": 10},
         (50, 900, 10)),
        # Roo after: the total
        ("rooveterinaryinc.roo-cline", T0,
         {"apiProtocol": "anthropic", "tokensIn": 960, "cacheReads": 900, "cacheWrites": 10},
         (50, 900, 10)),
        # ... unless it counts less input than cache, which a total cannot
        ("rooveterinaryinc.roo-cline", T0,
         {"apiProtocol": "anthropic", "tokensIn": 50, "cacheReads": 900, "cacheWrites": 10},
         (50, 900, 10)),
        # the OpenAI protocol includes cached tokens in any version, in any agent
        ("kilocode.kilo-code", 1_756_684_800_000,
         {"apiProtocol": "openai", "tokensIn": 950, "cacheReads": 900}, (50, 900, 0)),
    ],
)  # fmt: skip
def test_task_input_is_read_per_agent_protocol_and_date(
    tmp_path: Path, harness_folder: str, ts: int, usage: dict[str, Any], expected: tuple[int, ...]
) -> None:
    path = write(tmp_path / harness_folder / "tasks" / "t1" / "ui_messages.json",
                 [api_row(ts, tokensOut=5, **usage)])  # fmt: skip
    [response] = parse_any(str(path), "hint").responses
    assert response.usage[:3] == expected and response.usage.output == 5
    assert response.session_id == "t1"


def test_unfinished_and_zero_requests_are_no_calls(tmp_path: Path) -> None:
    rows = [
        api_row(T0, request="x", cancelReason="user_cancelled"),
        api_row(T0 + 1, apiProtocol="anthropic", streamingFailedMessage="reset"),
        api_row(T0 + 2, tokensIn=0, tokensOut=0, cacheReads=0, cacheWrites=0),
        api_row(T0 + 3, tokensIn=7, tokensOut=1),
    ]
    path = write(tmp_path / "t" / "ui_messages.json", rows)
    result = parse_any(str(path), "hint")
    assert [r.line for r in result.responses] == [4] and result.issues == []
    sdk = write(tmp_path / "s1.messages.json",
                messages_file(message("m0", 0, 0, 0, 0), message("m1", 5, 0, 0, 1)))  # fmt: skip
    assert [r.key for r in parse_any(str(sdk), "hint").responses] == ["cline:m1"]


# --- bad input ------------------------------------------------------------------------------


def test_a_bad_message_is_listed_and_the_others_count(tmp_path: Path) -> None:
    document = messages_file(
        message("m1", 100, 0, 0, 1),
        message("m2", -5, 0, 0, 1),  # a negative count
        message("m3", 10, 900, 0, 1),  # more cached than input
        "not a message",
        message("m5", 200, 0, 0, 2),
    )
    path = write(tmp_path / "s1.messages.json", document)
    result = parse_any(str(path), "hint")
    assert [r.key for r in result.responses] == ["cline:m1", "cline:m5"]
    assert [(issue.file, issue.line) for issue in result.issues] == [
        (str(path), 2), (str(path), 3), (str(path), 4)
    ]  # fmt: skip
    assert all(issue.reason for issue in result.issues)


def test_a_half_written_document_is_one_issue_not_a_traceback(tmp_path: Path) -> None:
    text = json.dumps(messages_file(message("m1", 100, 0, 0, 1)))
    path = write(tmp_path / "s1.messages.json", None, text[: len(text) // 2])
    result = parse_any(str(path), "hint", forced="cline")
    assert result.responses == [] and [(i.file, i.line) for i in result.issues] == [(str(path), 0)]
    tasks = write(tmp_path / "t" / "ui_messages.json", None, "[" + json.dumps(api_row(T0)))
    result = parse_any(str(tasks), "hint", forced="cline-tasks")
    assert result.responses == [] and [i.line for i in result.issues] == [0]


def test_a_bad_task_row_is_listed_and_the_others_count(tmp_path: Path) -> None:
    rows: list[Any] = [
        api_row(T0, tokensIn=10, tokensOut=1),
        {"ts": T0 + 1, "type": "say", "say": "api_req_started", "text": "{not json"},
        api_row(T0 + 2, tokensIn=-3, tokensOut=1),
        {"ts": "yesterday", "type": "say"},
        api_row(T0 + 4, tokensIn=20, tokensOut=2),
    ]
    path = write(tmp_path / "t" / "ui_messages.json", rows)
    result = parse_any(str(path), "hint")
    assert [r.line for r in result.responses] == [1, 5]
    assert [(issue.file, issue.line) for issue in result.issues] == [
        (str(path), 2), (str(path), 3), (str(path), 4)
    ]  # fmt: skip


def test_bad_input_through_the_cli_is_counted_as_skipped(tmp_path: Path) -> None:
    document = messages_file(message("m1", 100, 0, 0, 1), message("m2", -5, 0, 0, 1))
    write(tmp_path / "s1" / "s1.messages.json", document)
    result = CliRunner().invoke(app, ["scan", "--json", "--no-index", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["totals"]["requests"] == 1 and report["warnings"]["skipped_lines"] == 1
