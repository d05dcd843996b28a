"""Format detection, and the parsers of claude-trace logs, request logs and Codex rollouts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from sniff.ingest.files.log_formats import detect
from sniff.ingest.record import Prompts
from sniff.logs import load
from sniff.model import Request, Sent

T0 = 1_772_610_000.0  # 2026-03-04


def write(path: Path, records: list[Any], tail: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + tail)
    return path


def requests(*paths: Path, **options: Any) -> list[Request]:
    return list(load(list(paths), **options).requests)


# --- detection -------------------------------------------------------------------------------

CLAUDE_CODE_LINE = {"parentUuid": None, "sessionId": "s", "type": "user", "message": {}}
TRACE_LINE = {"request": {"timestamp": T0, "method": "POST", "url": "https://x/v1/messages"}}
CODEX_LINE = {"timestamp": "2026-03-06T14:02:11.000Z", "type": "session_meta", "payload": {}}
REQUEST_LOG_LINE = {"request": {"model": "gpt-5-mini", "messages": []}, "response": {}}


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([CLAUDE_CODE_LINE], "claude-code"),
        ([{"type": "summary", "summary": "x", "leafUuid": "u"}], "claude-code"),
        ([TRACE_LINE], "claude-trace"),
        ([CODEX_LINE], "codex"),
        ([REQUEST_LOG_LINE], "request-log"),
        ([{"hello": 1}, {"what": 2}], None),
        ([], None),
    ],
)
def test_detect_from_first_lines(records, expected):
    data = "\n".join(json.dumps(r) for r in records).encode()
    assert detect(data) == expected


# Other agents' first records, in the shapes of their own logs (see the agent-format guides):
# each shares a word with Claude Code's transcripts, and none of them is one.
QWEN_CODE = {
    "uuid": "u1",
    "parentUuid": None,
    "sessionId": "s",
    "type": "user",
    "cwd": "/p",
    "version": "0.18.1",
    "message": {"role": "user", "parts": [{"text": "hi"}]},
}
QWEN_TELEMETRY = {"uuid": "u2", "sessionId": "s", "type": "system", "systemPayload": {}}
GEMINI_JSONL = {"sessionId": "s", "projectHash": "h", "startTime": "t", "kind": "main"}
GEMINI_SET = {"$set": {"lastUpdated": "t"}}
PI_MESSAGE = {"type": "message", "timestamp": "t", "message": {"role": "assistant", "usage": {}}}
DROID_STREAM = {"type": "system", "session_id": "s", "cwd": "/p", "model": "m", "id": "i"}
DROID_STORE = {"type": "session_start", "id": "i", "title": "t", "cwd": "/p"}


@pytest.mark.parametrize(
    "records",
    [
        [QWEN_CODE, CLAUDE_CODE_LINE],
        [QWEN_TELEMETRY],
        [GEMINI_JSONL, CLAUDE_CODE_LINE],
        [GEMINI_SET],
        [PI_MESSAGE],
        [DROID_STREAM],
        [DROID_STORE],
    ],
    ids=[
        "qwen",
        "qwen-telemetry",
        "gemini",
        "gemini-set",
        "pi-message",
        "droid-stream",
        "droid-store",
    ],  # fmt: skip
)
def test_another_agents_log_is_not_read_as_a_claude_code_transcript(records):
    """Read as transcripts they gave a format and no request, with no warning; they are read
    as their own agent's (once its parser claims them), else named as of no format."""
    found = detect("\n".join(json.dumps(r) for r in records).encode())
    assert found not in {"claude-code", "claude-trace", "codex", "request-log"}


def test_detect_skips_a_bad_first_line():
    data = b"not json\n" + json.dumps(CODEX_LINE).encode() + b"\n"
    assert detect(data) == "codex"


def test_a_file_of_no_known_format_is_reported_once_by_name(tmp_path):
    odd = write(tmp_path / "notes.jsonl", [{"hello": i} for i in range(50)])
    dataset = load([tmp_path])
    assert dataset.unknown_files == (str(odd),)
    assert dataset.issues == ()
    assert dataset.requests == ()


def test_format_option_forces_a_parser(tmp_path):
    path = write(tmp_path / "calls.jsonl", [REQUEST_LOG_LINE])
    assert load([path], log_format="claude-code").formats == {"claude-code": 1}
    assert load([path]).formats == {"request-log": 1}


# --- claude-trace ----------------------------------------------------------------------------


def sse(model: str, usage: dict[str, int], output: int, message_id: str = "msg_01A") -> str:
    start = {
        "type": "message_start",
        "message": {"id": message_id, "model": model, "usage": {**usage, "output_tokens": 1}},
    }
    delta = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}
    return (
        f"event: message_start\ndata: {json.dumps(start)}\n\n"
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"text_delta","text":"Hi"}}\n\n'
        f"event: message_delta\ndata: {json.dumps({**delta, 'usage': {'output_tokens': 9}})}\n\n"
        f"event: message_delta\ndata: {json.dumps({**delta, 'usage': {'output_tokens': output}})}"
        "\n\nevent: message_stop\ndata: {}\n\n"
    )


def pair(body: dict[str, Any], response: dict[str, Any] | None, url: str = "/v1/messages") -> Any:
    record: dict[str, Any] = {
        "request": {
            "timestamp": T0,
            "method": "POST",
            "url": f"https://api.anthropic.com{url}?beta=true",
            "headers": {"User-Agent": "claude-cli/1.0.58 (external, cli)"},
            "body": body,
        },
        "response": response,
        "logged_at": "2026-03-04T07:40:05.000Z",
    }
    if response is None:
        record["note"] = "ORPHANED_REQUEST - No matching response received"
    return record


BODY = {
    "model": "claude-sonnet-4-5-20250929",
    "system": [
        {
            "type": "text",
            "text": "You are a coding agent.",
            "cache_control": {"type": "ephemeral", "ttl": "1h"},
        }
    ],
    "tools": [{"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}],
    "messages": [
        {"role": "user", "content": "Fix the bug."},
        {"role": "assistant", "content": [{"type": "text", "text": "Looking."}]},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Go on.", "cache_control": {"type": "ephemeral"}}],
        },
    ],
    "metadata": {"user_id": "user_ab_account_cd_session_7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9"},
}
USAGE = {"input_tokens": 4, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 15032}


def streamed_response(output: int, headers: dict[str, str] | None = None) -> dict[str, Any]:
    """A response as claude-trace logs a stream: no JSON body, the SSE text."""
    return {
        "timestamp": T0 + 1,
        "status_code": 200,
        "headers": headers or {},
        "body": None,
        "body_raw": sse("claude-sonnet-4-5-20250929", USAGE, output),
    }


def test_claude_trace_usage_from_sse_and_json(tmp_path):
    streamed = streamed_response(211, {"request-id": "req_1"})
    quota = {
        "model": "claude-haiku-4-5-20251001",
        "max_tokens": 1,
        "messages": [{"role": "user", "content": "quota"}],
    }
    answered = {
        "timestamp": T0 + 2,
        "status_code": 200,
        "headers": {},
        "body": {
            "id": "msg_01B",
            "model": "claude-haiku-4-5-20251001",
            "usage": {"input_tokens": 8, "output_tokens": 1},
        },
    }
    log = write(
        tmp_path / "app" / ".claude-trace" / "log-2026-03-04-07-40-00.jsonl",
        [pair(BODY, streamed), pair(quota, answered)],
    )
    first, second = sorted(requests(log), key=lambda r: r.key)
    assert first.key == "msg_01A"
    assert (first.usage.input_tokens, first.usage.cache_read_tokens) == (4, 15032)
    assert (first.usage.cache_write_5m_tokens, first.usage.output_tokens) == (300, 211)
    assert first.ttl_assumed  # usage without a cache_creation split
    assert first.session_id == "7f2abd2d-7cfc-4447-9ddd-3ca8d14e02e9"
    assert first.project == str((tmp_path / "app").resolve())
    assert first.version == "1.0.58"
    assert first.agent.value == "main" and second.agent.value == "other"
    assert first.started_at is not None and first.started_at.timestamp() == T0
    assert second.usage.output_tokens == 1 and second.model == "claude-haiku-4-5-20251001"


def test_claude_trace_failed_calls_are_kept_at_no_cost_and_other_paths_ignored(tmp_path):
    overloaded = {
        "timestamp": T0 + 1,
        "status_code": 529,
        "headers": {},
        "body": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    }
    log = write(
        tmp_path / "log.jsonl",
        [
            pair(BODY, None),
            pair(BODY, overloaded),
            pair(BODY, overloaded, "/v1/messages/count_tokens"),
        ],
    )
    found = requests(log)
    assert len(found) == 2
    errors = sorted(r.error or "" for r in found)
    assert errors[0].startswith("HTTP 529: overloaded_error")
    assert "ORPHANED_REQUEST" in errors[1]
    for request in found:
        assert request.usage.total_tokens == 0
        assert request.cost is not None and request.cost.total_usd == 0


def test_claude_trace_prompt_blocks_in_cache_order_with_marks(tmp_path):
    streamed = streamed_response(20)
    log = write(tmp_path / "log.jsonl", [pair(BODY, streamed)])
    [request] = requests(log, with_prompts=Prompts.COUNTED)
    layout = [(b.kind, b.role, b.cache_control) for b in request.blocks]
    assert layout == [
        ("tool", "tools", None),
        ("text", "system", "1h"),
        ("text", "user", None),
        ("text", "assistant", None),
        ("text", "user", "5m"),
    ]
    assert all(b.tokens > 0 for b in request.blocks)
    [without_prompt] = requests(log)
    assert without_prompt.blocks == ()


def test_prompts_read_as_text_keep_each_blocks_place_and_the_bodys_settings(tmp_path):
    """What lint reads of a logged request comes from the parser: text, place, settings."""
    streamed = streamed_response(20, {"request-id": "req_01X"})
    trace = write(tmp_path / "trace" / "log.jsonl", [pair({**BODY, "thinking": None}, streamed)])
    [request] = requests(trace, with_prompts=Prompts.TEXT)
    assert [(b.path, b.text) for b in request.blocks[:2]] == [
        ("tools[0]", json.dumps(BODY["tools"][0])),
        ("system[0]", "You are a coding agent."),
    ]
    assert request.blocks[-1].path == "messages[2].content[0]"
    assert request.sent == Sent("anthropic-messages", BODY["model"], {"thinking": None}, "req_01X")
    [sized] = requests(trace, with_prompts=Prompts.SIZED)  # the blocks breaks are judged by
    assert [msgspec.structs.replace(b, text=None, path=None) for b in request.blocks] == list(
        sized.blocks
    )
    call = {"id": "c1", "request": {"model": "gpt-5", "input": "Hi", "prompt_cache_key": "k"}}
    [logged] = requests(write(tmp_path / "calls.jsonl", [call]), with_prompts=Prompts.TEXT)
    assert [(b.path, b.text) for b in logged.blocks] == [("input", "Hi")]
    assert logged.sent == Sent("openai-responses", "gpt-5", {"prompt_cache_key": "k"}, "c1")
    assert requests(trace, with_prompts=Prompts.SIZED)[0].sent is None


def test_a_breakpoint_does_not_change_a_blocks_identity():
    from sniff.ingest.prompt_blocks import make_block

    marked = make_block(
        "text", "user", {"type": "text", "text": "Go on.", "cache_control": {"type": "ephemeral"}}
    )
    plain = make_block("text", "user", {"type": "text", "text": "Go on."})
    assert marked.content_hash == plain.content_hash
    assert (marked.cache_control, plain.cache_control) == ("5m", None)


# --- generic request log ---------------------------------------------------------------------


def test_openai_chat_cached_tokens_are_split_out_of_prompt_tokens(tmp_path):
    call = {
        "request": {"model": "gpt-4.1", "messages": [{"role": "system", "content": "Be brief."}]},
        "response": {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "model": "gpt-4.1-2025-04-14",
            "usage": {
                "prompt_tokens": 2500,
                "completion_tokens": 300,
                "prompt_tokens_details": {"cached_tokens": 1920},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
        },
        "started_at": "2026-03-05T09:00:01.120Z",
        "ended_at": 1772701203.5,
        "session": "bot-1",
        "project": "checkout-bot",
    }
    [request] = requests(write(tmp_path / "calls.jsonl", [call]))
    assert (request.usage.input_tokens, request.usage.cache_read_tokens) == (580, 1920)
    assert request.usage.prompt_tokens == 2500
    assert (request.usage.output_tokens, request.provider) == (300, "openai")
    assert (request.session_id, request.project, request.source) == (
        "bot-1",
        "checkout-bot",
        "request-log",
    )
    assert request.model == "gpt-4.1-2025-04-14"
    assert request.ended_at.timestamp() == 1772701203.5


def test_openai_responses_usage_and_stream(tmp_path):
    usage = {
        "input_tokens": 4096,
        "input_tokens_details": {"cached_tokens": 3968},
        "output_tokens": 800,
        "output_tokens_details": {"reasoning_tokens": 512},
    }
    completed = {
        "type": "response.completed",
        "response": {"id": "resp_2", "object": "response", "model": "gpt-5", "usage": usage},
    }
    stream = (
        'event: response.created\ndata: {"type":"response.created","response":{"id":"resp_2"}}\n\n'
        f"event: response.completed\ndata: {json.dumps(completed)}\n\n"
    )
    calls = [
        {
            "request": {"model": "gpt-5", "input": "hi"},
            "response": {"id": "resp_1", "object": "response", "model": "gpt-5", "usage": usage},
        },
        {"request": {"model": "gpt-5", "input": "hi", "stream": True}, "response": stream},
    ]
    found = requests(write(tmp_path / "responses.jsonl", calls))
    assert len(found) == 2
    for request in found:
        assert (request.usage.input_tokens, request.usage.cache_read_tokens) == (128, 3968)
        assert (request.usage.output_tokens, request.usage.reasoning_tokens) == (800, 512)


def test_proxy_usage_with_anthropic_cache_fields_is_not_counted_twice(tmp_path):
    # LiteLLM's example: prompt_tokens 31 excludes the 1,253 written (31 < 0 + 1,253).
    call = {
        "request": {"model": "claude-sonnet-4-5", "messages": []},
        "api": "openai-chat",
        "response": {
            "usage": {
                "prompt_tokens": 31,
                "completion_tokens": 5,
                "prompt_tokens_details": {"cached_tokens": 0},
                "cache_creation_input_tokens": 1253,
                "cache_read_input_tokens": 0,
            }
        },
    }
    [request] = requests(write(tmp_path / "proxy.jsonl", [call]))
    assert (request.usage.input_tokens, request.usage.cache_write_5m_tokens) == (31, 1253)


def test_request_log_missing_response_is_a_failed_call(tmp_path):
    calls = [
        {"request": {"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "x"}]}},
        {
            "request": {"model": "gpt-4.1", "messages": []},
            "response": {"error": {"message": "rate limited"}},
            "status": 429,
        },
    ]
    found = requests(write(tmp_path / "calls.jsonl", calls))
    assert sorted(r.error or "" for r in found) == ["HTTP 429: rate limited", "no response"]
    assert all(r.usage.total_tokens == 0 for r in found)


def test_a_request_log_line_without_request_is_skipped_and_reported(tmp_path):
    path = write(tmp_path / "calls.jsonl", [REQUEST_LOG_LINE, {"response": {}}])
    dataset = load([path])
    assert len(dataset.requests) == 1
    assert [(i.line, i.kept) for i in dataset.issues] == [(2, False)]


# --- Codex -----------------------------------------------------------------------------------


def token_count(at: str, total: tuple[int, int, int, int], last: tuple[int, int, int, int]) -> Any:
    def usage(values: tuple[int, int, int, int]) -> dict[str, int]:
        inp, cached, out, reasoning = values
        return {
            "input_tokens": inp,
            "cached_input_tokens": cached,
            "output_tokens": out,
            "reasoning_output_tokens": reasoning,
            "total_tokens": inp + out,
        }

    info = {"total_token_usage": usage(total), "last_token_usage": usage(last)}
    return {"timestamp": at, "type": "event_msg", "payload": {"type": "token_count", "info": info}}


def meta(session: str, at: str = "2026-03-06T14:02:11.000Z", **extra: Any) -> Any:
    payload = {"id": session, "cwd": "/home/dana/src/tilesrv", "cli_version": "0.104.0", **extra}
    return {"timestamp": at, "type": "session_meta", "payload": payload}


def turn(model: str, at: str = "2026-03-06T14:02:12.000Z") -> Any:
    return {"timestamp": at, "type": "turn_context", "payload": {"model": model}}


def test_codex_counts_growth_of_cumulative_totals_once(tmp_path):
    lines = [
        meta("019c-a"),
        turn("gpt-5.3-codex"),
        {
            "timestamp": "2026-03-06T14:02:13.000Z",
            "type": "event_msg",
            "payload": {"type": "token_count", "info": None},
        },
        token_count(
            "2026-03-06T14:02:20.000Z", (10_000, 2_048, 300, 100), (10_000, 2_048, 300, 100)
        ),
        token_count(
            "2026-03-06T14:02:21.000Z", (10_000, 2_048, 300, 100), (10_000, 2_048, 300, 100)
        ),
        turn("gpt-5.1-codex-max", "2026-03-06T14:03:00.000Z"),
        token_count(
            "2026-03-06T14:03:10.000Z", (22_000, 11_776, 700, 250), (12_000, 9_728, 400, 150)
        ),
        token_count(
            "2026-03-06T14:03:11.000Z", (22_000, 11_776, 700, 250), (12_000, 9_728, 400, 150)
        ),
    ]
    found = sorted(requests(write(tmp_path / "rollout-a.jsonl", lines)), key=lambda r: r.ended_at)
    assert [r.model for r in found] == ["gpt-5.3-codex", "gpt-5.1-codex-max"]
    assert [(r.usage.input_tokens, r.usage.cache_read_tokens) for r in found] == [
        (7_952, 2_048),
        (2_272, 9_728),
    ]
    assert [(r.usage.output_tokens, r.usage.reasoning_tokens) for r in found] == [
        (300, 100),
        (400, 150),
    ]
    assert {r.session_id for r in found} == {"019c-a"} and found[
        0
    ].project == "/home/dana/src/tilesrv"


def test_codex_total_that_decreases_is_a_reset(tmp_path):
    lines = [
        meta("019c-b"),
        turn("gpt-5.3-codex"),
        token_count("2026-03-06T14:02:20.000Z", (9_000, 0, 200, 0), (9_000, 0, 200, 0)),
        token_count("2026-03-06T14:05:20.000Z", (3_000, 1_024, 50, 0), (3_000, 1_024, 50, 0)),
    ]
    found = requests(write(tmp_path / "rollout-b.jsonl", lines))
    assert sum(r.usage.prompt_tokens for r in found) == 12_000


def test_codex_token_usage_records_replace_the_duplicate_token_counts(tmp_path):
    def record(response_id: str, inp: int, cached: int, out: int) -> Any:
        usage = {
            "input_tokens": inp,
            "cached_input_tokens": cached,
            "cache_write_input_tokens": 0,
            "output_tokens": out,
            "reasoning_output_tokens": 0,
        }
        return {
            "timestamp": "2026-03-07T10:00:05.000Z",
            "ordinal": 3,
            "type": "token_usage_record",
            "payload": {"response_id": response_id, "usage": usage},
        }

    lines = [
        meta("019d-c", cli_version="0.154.0"),
        turn("gpt-5.3-codex"),
        record("resp_1", 14_533, 9_984, 154),
        token_count("2026-03-07T10:00:05.100Z", (14_533, 9_984, 154, 0), (14_533, 9_984, 154, 0)),
        record("resp_2", 15_000, 14_464, 90),
        token_count("2026-03-07T10:00:09.100Z", (29_533, 24_448, 244, 0), (15_000, 14_464, 90, 0)),
    ]
    found = requests(write(tmp_path / "rollout-c.jsonl", lines))
    assert sorted(r.key for r in found) == ["resp_1", "resp_2"]
    assert sum(r.usage.cache_read_tokens for r in found) == 24_448


def test_a_forked_rollouts_replayed_history_counts_once(tmp_path):
    parent = [
        meta("019c-parent"),
        turn("gpt-5.3-codex"),
        token_count(
            "2026-03-06T14:02:20.000Z", (10_000, 2_048, 300, 100), (10_000, 2_048, 300, 100)
        ),
        token_count(
            "2026-03-06T14:03:10.000Z", (22_000, 11_776, 700, 250), (12_000, 9_728, 400, 150)
        ),
    ]
    child = [
        meta("019c-child", at="2026-03-06T15:00:00.000Z"),
        meta("019c-parent", at="2026-03-06T15:00:00.000Z"),
        turn("gpt-5.3-codex", "2026-03-06T15:00:00.100Z"),
        token_count(
            "2026-03-06T15:00:00.200Z", (10_000, 2_048, 300, 100), (10_000, 2_048, 300, 100)
        ),
        token_count(
            "2026-03-06T15:00:00.300Z", (22_000, 11_776, 700, 250), (12_000, 9_728, 400, 150)
        ),
        token_count(
            "2026-03-06T15:01:30.000Z", (35_000, 21_504, 900, 300), (13_000, 9_728, 200, 50)
        ),
    ]
    write(tmp_path / "2026" / "03" / "06" / "rollout-parent.jsonl", parent)
    write(tmp_path / "2026" / "03" / "06" / "rollout-child.jsonl", child)
    found = requests(tmp_path)
    assert len(found) == 3
    assert sum(r.usage.prompt_tokens for r in found) == 35_000
    assert {r.session_id for r in found} == {"019c-parent", "019c-child"}
    [own] = [r for r in found if r.session_id == "019c-child"]
    assert own.usage.output_tokens == 200
    # read alone, the child still counts the replayed history once
    alone = requests(tmp_path / "2026" / "03" / "06" / "rollout-child.jsonl")
    assert sum(r.usage.prompt_tokens for r in alone) == 35_000


def test_the_log_format_choices_are_the_formats_read() -> None:
    """`--log-format` offers exactly the formats there is a reader or parser of."""
    from sniff.ingest.files.log_formats import WHOLE_FILE_PARSERS, agent_formats
    from sniff.ingest.files.streamed import READERS
    from sniff.workspace.choices import FORMATS

    agents = {agent_format.name for agent_format in agent_formats()}
    assert set(FORMATS) == set(READERS) | set(WHOLE_FILE_PARSERS) | agents
    from importlib import import_module

    for name, module in {**READERS, **WHOLE_FILE_PARSERS}.items():
        assert name == import_module(f"sniff.ingest.formats.{module}").SOURCE
    assert len(FORMATS) == len(set(FORMATS))
