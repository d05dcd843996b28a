"""Detection and bad input of pi/OpenClaw sessions (format `pi`) and Kimi Code wire files
(format `kimi`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sniff.ingest.files.log_formats import detect, parse_any
from sniff.ingest.plausible import IMPLAUSIBLE_USAGE
from sniff.logs import load
from sniff.model import Harness

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"

PI_HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-03-02T09:14:00Z",
             "cwd": "/home/dana/src/tilesrv"}  # fmt: skip
KIMI_HEAD = {"type": "metadata", "protocol_version": "1.4", "created_at": 1773133200000}


def pi_call(line: int, output: int, **usage: Any) -> dict[str, Any]:
    counts = {"input": 3, "output": output, "cacheRead": 100, "cacheWrite": 0, **usage}
    return {
        "type": "message", "id": f"e{line}", "parentId": f"e{line - 1}",
        "timestamp": f"2026-03-02T09:15:{line:02d}.000Z",
        "message": {"role": "assistant", "content": [], "api": "anthropic-messages",
                    "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": counts,
                    "stopReason": "stop", "timestamp": 1772442900000 + line},
    }  # fmt: skip


def kimi_record(time: int, output: int, **usage: Any) -> dict[str, Any]:
    counts = {"inputOther": 10, "output": output, "inputCacheRead": 0, "inputCacheCreation": 0}
    return {"type": "usage.record", "model": "moonshot-ai/kimi-k2.7-code",
            "usage": {**counts, **usage}, "usageScope": "turn", "time": time}  # fmt: skip


def lines(path: Path, records: list[Any], extra: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + extra)
    return path


@pytest.mark.parametrize(
    ("records", "expected"),
    [
        ([PI_HEADER], "pi"),
        ([pi_call(2, 5)], "pi"),  # a file whose header is gone
        ([KIMI_HEAD], "kimi"),
        ([kimi_record(1, 5)], "kimi"),
        ([{"type": "llm.request", "kind": "loop", "model": "m", "time": 1}], "kimi"),
        # Droid's session store and a pi-like message without pi's words: not pi's
        ([{"type": "session_start", "id": "i", "title": "t", "cwd": "/p"}], None),
        ([{"type": "message", "message": {"role": "assistant", "content": []}}], None),
        # Claude Code and Codex keep theirs
        ([{"parentUuid": None, "sessionId": "s", "type": "user", "message": {}}], "claude-code"),
        ([{"type": "session", "uuid": "u", "sessionId": "s", "cwd": "/p", "id": "x"}],
         "claude-code"),
        ([{"timestamp": "t", "type": "session_meta", "payload": {"id": "s", "cwd": "/p"}}],
         "codex"),
    ],
    ids=["pi-header", "pi-message", "kimi-head", "kimi-usage", "kimi-request", "droid",
         "bare-message", "claude-code", "claude-code-typed-session", "codex"],
)  # fmt: skip
def test_detect(records: list[dict[str, Any]], expected: str | None) -> None:
    assert detect("".join(json.dumps(r) + "\n" for r in records).encode()) == expected


@pytest.mark.parametrize(
    "folder", ["claude-code", "codex", "claude-trace", "request-logs"]
)  # fmt: skip
def test_bundled_logs_of_other_formats_are_not_claimed(folder: str) -> None:
    formats = load([SAMPLES / folder]).formats
    assert formats and not {"pi", "kimi"} & formats.keys()


def test_log_format_forces_each_parser(tmp_path: Path) -> None:
    path = lines(tmp_path / "s.jsonl", [{"hello": 1}, pi_call(2, 5)])
    assert load([path], log_format="pi").formats == {"pi": 1}
    assert [r.usage.output_tokens for r in load([path], log_format="pi").requests] == [5]
    wire = lines(tmp_path / "w.jsonl", [{"hello": 1}, kimi_record(1773133200000, 7)])
    assert [r.usage.output_tokens for r in load([wire], log_format="kimi").requests] == [7]


def test_pi_bad_lines_are_listed_and_the_rest_counts(tmp_path: Path) -> None:
    path = lines(
        tmp_path / "s.jsonl",
        [PI_HEADER, pi_call(2, 5), "not json", pi_call(4, 6, input=-1),
         pi_call(5, 7, cacheRead="many"), pi_call(6, 8)],
        extra='{"type":"message","id":"e7","message":{"role":"assis',  # cut short
    )  # fmt: skip
    result = parse_any(str(path), "hint")
    assert [r.usage.output for r in result.responses] == [5, 8]
    assert [(i.file, i.line) for i in result.issues] == [(str(path), n) for n in (3, 4, 5, 7)]
    assert result.issues[1].reason == IMPLAUSIBLE_USAGE
    assert result.responses[0].harness is Harness.PI
    assert result.responses[0].project == "/home/dana/src/tilesrv"


def test_pi_counts_a_copied_v1_call_once(tmp_path: Path) -> None:
    """Two files holding one id-less message (a branch of a v1 session): one request."""
    call = pi_call(2, 5)
    del call["id"], call["parentId"]
    header = {k: v for k, v in PI_HEADER.items() if k != "version"}
    first = lines(tmp_path / "a_1.jsonl", [header, call])
    second = lines(tmp_path / "b_2.jsonl", [{**header, "id": "s2"}, call, pi_call(3, 9)])
    assert sorted(r.usage.output_tokens for r in load([first, second]).requests) == [5, 9]


def test_openclaw_from_its_layout_or_its_records(tmp_path: Path) -> None:
    layout = lines(tmp_path / "agents/ops/sessions/s.jsonl", [PI_HEADER, pi_call(2, 5)])
    assert parse_any(str(layout), "h").responses[0].harness is Harness.OPENCLAW
    snapshot = {"type": "custom", "id": "c", "customType": "model-snapshot", "data": {}}
    content = lines(tmp_path / "x/s.jsonl", [PI_HEADER, snapshot, pi_call(3, 5)])
    assert parse_any(str(content), "h").responses[0].harness is Harness.OPENCLAW


def test_kimi_bad_lines_are_listed_and_the_rest_counts(tmp_path: Path) -> None:
    path = lines(
        tmp_path / "wire.jsonl",
        [KIMI_HEAD, kimi_record(1773133200000, 5), "{oops", kimi_record(1773133201000, 6,
         inputCacheRead=10**12), kimi_record(1773133202000, 7), [1, 2]],
    )  # fmt: skip
    result = parse_any(str(path), "hint")
    assert [r.usage.output for r in result.responses] == [5, 7]
    assert [(i.file, i.line) for i in result.issues] == [(str(path), n) for n in (3, 4, 6)]
    assert {r.harness for r in result.responses} == {Harness.KIMI}
    assert result.responses[0].session_id == tmp_path.name  # wire.jsonl: its folder's session


def test_kimi_manifest_that_cannot_be_read_leaves_the_hint(tmp_path: Path) -> None:
    folder = tmp_path / "session_abc" / "agents" / "main"
    path = lines(folder / "wire.jsonl", [KIMI_HEAD, kimi_record(1773133200000, 5)])
    (tmp_path / "session_abc" / "state.json").write_text("{not json")
    [response] = parse_any(str(path), "hint").responses
    assert (response.session_id, response.agent_id, response.project) == ("abc", "main", "hint")


def test_the_python_kimi_clis_wire_file(tmp_path: Path) -> None:
    """`sessions/<group>/<session>/wire.jsonl` with `StatusUpdate` records (kimi-cli's wire
    documentation): each usage counts once by its message id; context-only updates do not."""

    def status(at: float, message_id: str, **usage: int) -> dict[str, Any]:
        return {"timestamp": at, "message": {"type": "StatusUpdate", "payload": {
            "context_tokens": 9000, "token_usage": usage, "message_id": message_id}}}  # fmt: skip

    step = {
        "input_other": 1244,
        "output": 155,
        "input_cache_read": 69376,
        "input_cache_creation": 0,
    }
    records = [
        {"type": "metadata", "protocol_version": "1.3"},
        {"timestamp": 1773133200.5, "message": {"type": "TurnBegin", "payload": {}}},
        status(1773133204.25, "chatcmpl-a", **step),
        {"timestamp": 1773133204.3, "message": {"type": "StatusUpdate", "payload": {}}},
        status(1773133209.0, "chatcmpl-b", **{**step, "output": 80}),
    ]
    wire = lines(tmp_path / "sessions" / "9f1c" / "5b7e-session" / "wire.jsonl", records)
    again = lines(tmp_path / "copy" / "5b7e-session" / "wire.jsonl", records)
    found = load([wire, again]).requests
    assert [(r.key, r.usage.output_tokens) for r in found] == [
        ("kimi:chatcmpl-a", 155), ("kimi:chatcmpl-b", 80)
    ]  # fmt: skip
    first = found[0]
    assert (first.usage.input_tokens, first.usage.cache_read_tokens) == (1244, 69376)
    assert (first.model, first.session_id, first.harness) == ("(unknown)", "5b7e-session",
                                                              Harness.KIMI)  # fmt: skip
    assert first.ended_at.timestamp() == 1773133204.25
