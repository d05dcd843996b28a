"""Gemini CLI and Qwen Code: detection against the other formats, Google's token arithmetic,
and bad input (skipped, listed with file and line, the rest counted)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sniff.ingest.files.log_formats import detect, detect_document, parse_any
from sniff.ingest.gemini_wire import google_tokens
from sniff.ingest.record import Tokens
from sniff.logs import load

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
GEMINI_SAMPLES = SAMPLES / "gemini-cli"
QWEN_SAMPLES = SAMPLES / "qwen-code"
T = "2026-03-05T14:30:09.774Z"


def write(path: Path, records: list[Any], tail: str = "\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in records) + tail)
    return path


def gemini(ident: str, tokens: dict[str, int] | None, **extra: Any) -> dict[str, Any]:
    return {
        "id": ident,
        "timestamp": T,
        "type": "gemini",
        "content": "",
        "tokens": tokens,
        "model": "gemini-2.5-flash",
        **extra,
    }


def tokens(prompt: int, output: int, cached: int = 0, thoughts: int = 0) -> dict[str, int]:
    total = prompt + output + thoughts
    return {
        "input": prompt,
        "output": output,
        "cached": cached,
        "thoughts": thoughts,
        "tool": 0,
        "total": total,
    }


META = {"sessionId": "s-1", "projectHash": "ab12", "startTime": T, "lastUpdated": T}
QWEN_ROW = {
    "uuid": "u1",
    "parentUuid": None,
    "sessionId": "q-1",
    "timestamp": T,
    "type": "user",
    "cwd": "/p",
    "version": "0.18.1",
    "message": {"role": "user", "parts": [{"text": "hi"}]},
}


def qwen_call(uuid: str, parent: str | None, prompt: int, output: int, cached: int = 0) -> dict:
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": output,
        "cachedContentTokenCount": cached,
        "totalTokenCount": prompt + output,
    }
    return {
        **QWEN_ROW,
        "uuid": uuid,
        "parentUuid": parent,
        "type": "assistant",
        "model": "qwen3-coder-plus",
        "message": {"role": "model", "parts": [{"text": "ok"}]},
        "usageMetadata": usage,
    }


# --- detection -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([META], "gemini-cli"),
        ([{"$set": {"lastUpdated": T}}], "gemini-cli"),
        ([{"$rewindTo": "m1"}], "gemini-cli"),
        ([gemini("m1", tokens(10, 1))], "gemini-cli"),
        ([QWEN_ROW], "qwen-code"),
        (
            [{**QWEN_ROW, "type": "system", "subtype": "ui_telemetry", "systemPayload": {}}],
            "qwen-code",
        ),
        ([qwen_call("a1", "u1", 10, 1)], "qwen-code"),
    ],
)
def test_their_records_are_claimed(records, expected):
    assert detect("\n".join(json.dumps(r) for r in records).encode()) == expected


@pytest.mark.parametrize(
    "record",
    [
        {
            "parentUuid": None,
            "sessionId": "s",
            "type": "user",
            "uuid": "u",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "parentUuid": "u",
            "sessionId": "s",
            "type": "assistant",
            "uuid": "v",
            "message": {"id": "msg_1", "role": "assistant", "content": [], "usage": {}},
        },
        {"type": "summary", "summary": "x", "leafUuid": "u"},
        {"timestamp": T, "type": "session_meta", "payload": {"id": "x"}},
        {"request": {"model": "m", "messages": []}, "response": {}},
    ],
    ids=["claude-user", "claude-assistant", "claude-summary", "codex", "request-log"],
)
def test_other_formats_are_never_claimed(record):
    assert detect(json.dumps(record).encode()) not in {"gemini-cli", "qwen-code"}


def test_the_shipped_claude_code_and_codex_samples_keep_their_formats():
    formats = load([SAMPLES / "claude-code", SAMPLES / "codex"], use_index=False).formats
    assert set(formats) == {"claude-code", "codex"}


def test_a_legacy_session_document_is_claimed_and_other_json_is_not():
    legacy = {**META, "messages": [gemini("m1", tokens(10, 1))]}
    assert detect_document(json.dumps(legacy, indent=2).encode()) == "gemini-cli"
    prompt_log = [{"sessionId": "s", "messageId": 0, "timestamp": T, "type": "user"}]
    assert detect_document(json.dumps(prompt_log).encode()) is None
    checkpoint = [{"role": "user", "parts": [{"text": "hi"}]}]
    assert detect_document(json.dumps(checkpoint).encode()) is None


def test_the_log_format_option_forces_each_parser(tmp_path):
    path = write(
        tmp_path / "odd.jsonl",
        [
            {
                "id": "m1",
                "type": "gemini",
                "timestamp": T,
                "tokens": tokens(50, 5),
                "model": "gemini-2.5-flash",
            }
        ],
    )
    assert load([path], use_index=False).formats == {"gemini-cli": 1}
    assert load([path], use_index=False, log_format="qwen-code").requests == ()
    forced = load([path], use_index=False, log_format="gemini-cli")
    assert [r.usage.input_tokens for r in forced.requests] == [50]


# --- tokens ----------------------------------------------------------------------------------


def test_cached_tokens_are_taken_out_of_the_prompt_once():
    assert google_tokens(12069, 11502, 147, 0, 0, 12216) == Tokens(567, 11502, 0, 0, 147, 0)


def test_a_total_that_counts_cached_tokens_apart_keeps_the_prompt_whole():
    assert google_tokens(500, 300, 20, 0, 0, 820) == Tokens(500, 300, 0, 0, 20, 0)
    assert google_tokens(100, 300, 20, 0, 0, 0) == Tokens(100, 300, 0, 0, 20, 0)


def test_tool_use_prompts_are_uncached_input_and_thoughts_are_reasoning_beside_output():
    assert google_tokens(7800, 0, 64, 30, 120, 8014) == Tokens(7920, 0, 0, 0, 64, 30)


def test_qwens_openai_path_counts_thoughts_inside_the_candidates():
    inside = google_tokens(16050, 14080, 420, 96, 0, 16470, thoughts_may_be_inside=True)
    assert inside == Tokens(1970, 14080, 0, 0, 324, 96)
    apart = google_tokens(9000, 0, 200, 150, 0, 9350, thoughts_may_be_inside=True)
    assert apart == Tokens(9000, 0, 0, 0, 200, 150)


# --- bad input -------------------------------------------------------------------------------


def test_a_corrupt_gemini_line_is_listed_and_the_rest_counts(tmp_path):
    path = tmp_path / "chats" / "session-2026-03-05T14-30-s1.jsonl"
    write(path, [META, gemini("m1", tokens(100, 10))])
    with path.open("a") as handle:
        handle.write('{"id": "m2", "type": "gemini", "tok\n')
        handle.write(json.dumps(gemini("m3", {**tokens(1, 1), "input": -5})) + "\n")
        handle.write(json.dumps(gemini("m4", {**tokens(1, 1), "output": "many"})) + "\n")
        handle.write(json.dumps(gemini("m5", tokens(200, 20), timestamp="9999-12-31T00:00:00Z")))
        handle.write("\n" + json.dumps(gemini("m6", tokens(300, 30))) + "\n")
        handle.write('{"id": "m7", "type": "gem')  # cut short: still being written
    result = parse_any(str(path), "hint")
    assert [r.usage.input for r in result.responses] == [100, 300]
    assert [(issue.line, issue.kept) for issue in result.issues] == [
        (3, False),
        (4, False),
        (5, False),
        (6, False),
        (8, False),
    ]
    assert result.issues[0].file == str(path)
    assert "truncated last line" in result.issues[-1].reason


def test_a_corrupt_legacy_message_is_listed_by_its_place_and_a_broken_document_once(tmp_path):
    good, bad = gemini("m1", tokens(100, 10)), gemini("m2", {**tokens(1, 1), "cached": -1})
    path = tmp_path / "session-2026-03-02T10-05-s2.json"
    path.write_text(json.dumps({**META, "messages": [good, bad, "not a message"]}, indent=2))
    result = parse_any(str(path), "hint")
    assert [r.usage.input for r in result.responses] == [100]
    assert [(issue.line, issue.reason) for issue in result.issues] == [
        (2, "implausible usage"),
        (3, "a JSON string, not an object"),
    ]
    broken = tmp_path / "session-2026-03-02T10-06-s3.json"
    broken.write_text(json.dumps({**META, "messages": [good]}, indent=2)[:-30])
    result = parse_any(str(broken), "hint", "gemini-cli")
    assert result.responses == [] and [issue.line for issue in result.issues] == [0]


def test_a_corrupt_qwen_row_is_listed_and_the_rest_counts(tmp_path):
    path = tmp_path / "projects" / "p" / "chats" / "q-1.jsonl"
    rows = [QWEN_ROW, qwen_call("a1", "u1", 100, 10), qwen_call("a2", "a1", -1, 10)]
    write(path, rows)
    with path.open("a") as handle:
        handle.write("\x00\x01 binary garbage\n")
        handle.write(json.dumps(qwen_call("a3", "a2", 300, 30, cached=200)) + "\n")
    result = parse_any(str(path), "p")
    assert [(r.usage.input, r.usage.cache_read) for r in result.responses] == [(100, 0), (100, 200)]
    assert [issue.line for issue in result.issues] == [3, 4]
    # the skipped row leaves a gap: the call after it links past it to none it cannot see
    assert result.responses[1].previous is None


def test_qwen_rows_without_usage_or_with_zeros_are_no_requests(tmp_path):
    empty = {**qwen_call("a1", "u1", 0, 0), "usageMetadata": {}}
    zeros = qwen_call("a2", "a1", 0, 0)
    partial = {**qwen_call("a3", "a2", 0, 0)}
    del partial["usageMetadata"]
    path = write(tmp_path / "q.jsonl", [QWEN_ROW, empty, zeros, partial])
    assert parse_any(str(path), "p").responses == []


def test_a_gemini_record_whose_tokens_never_came_is_no_request(tmp_path):
    records = [META, gemini("m1", None), gemini("m2", tokens(0, 0)), gemini("m3", tokens(5, 1))]
    path = write(tmp_path / "s.jsonl", records)
    assert [r.key for r in parse_any(str(path), "p").responses] == ["gemini-cli:s-1:m3"]
