"""Claude Code's API bodies (`OTEL_LOG_RAW_API_BODIES=file:<dir>`), read through their index:
each call once with its transcript's copy, whose prompt they hold; the body files yield nothing
apart; an index line naming a path elsewhere, a special file or a missing body is skipped and
counted, the others still count. Hand-made from Claude Code's documentation (unverified)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.record import Prompts
from sniff.logs import load
from tests.conftest import Lines

runner = CliRunner()
AT = "2026-03-02T09:00:00Z"


def body_folder(root: Path, lines: list[dict[str, Any]]) -> Path:
    folder = root / "bodies"
    folder.mkdir(parents=True, exist_ok=True)
    request = {"model": Lines.SONNET_4, "max_tokens": 32000,
               "system": [{"type": "text", "text": "You are Claude Code.",
                           "cache_control": {"type": "ephemeral"}}],
               "messages": [{"role": "user", "content": "Run the tests."}]}  # fmt: skip
    response = {"id": "msg_1", "type": "message", "role": "assistant", "model": Lines.SONNET_4,
                "content": [{"type": "text", "text": "Running them."}],
                "usage": {"input_tokens": 10, "cache_read_input_tokens": 5000,
                          "cache_creation_input_tokens": 300, "output_tokens": 50}}  # fmt: skip
    (folder / "4b1c.request.json").write_text(json.dumps(request))
    (folder / "req_1.response.json").write_text(json.dumps(response))
    (folder / "index.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


def index_line(**changed: str) -> dict[str, Any]:
    return {"timestamp": AT, "session_id": Lines.SESSION, "query_source": "main",
            "model": Lines.SONNET_4, "request_id": "req_1", "message_id": "msg_1",
            "message_uuid": "a1", "request_file": "4b1c.request.json",
            "response_file": "req_1.response.json", **changed}  # fmt: skip


def transcript(root: Path, cc: type[Lines]) -> None:
    usage = cc.usage(input=10, read=5000, write=300, output=50)
    cc.write(root / "projects" / "webshop" / "s.jsonl", [
        cc.user("u1", None, "2026-03-02T08:59:57Z"),
        cc.assistant("msg_1", "a1", "u1", AT, usage, request_id="req_1"),
    ])  # fmt: skip


def test_the_bodies_give_the_transcripts_call_its_prompt(tmp_path: Path, cc: type[Lines]) -> None:
    transcript(tmp_path, cc)
    body_folder(tmp_path, [index_line()])
    dataset = load([tmp_path], with_prompts=Prompts.TEXT, use_index=False)
    (request,) = dataset.requests
    assert request.source == "claude-code"  # the transcript's copy: its project, its chain
    assert request.project == cc.CWD
    assert [(block.role, block.cache_control) for block in request.blocks][:1] == [("system", "5m")]
    assert dataset.formats == {"claude-code": 1, "otel-bodies": 3}
    assert not dataset.issues  # the body files are read through their index, not apart


def test_alone_the_bodies_count_their_calls(tmp_path: Path) -> None:
    body_folder(tmp_path, [index_line()])
    result = runner.invoke(app, ["scan", "--json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    totals = json.loads(result.stdout)["totals"]
    assert (totals["requests"], totals["cache_read_tokens"], totals["output_tokens"]) == (
        1, 5000, 50)  # fmt: skip


def test_an_index_never_sends_sniff_elsewhere(tmp_path: Path) -> None:
    secret = tmp_path / "secret.response.json"
    secret.write_text(json.dumps({"usage": {"input_tokens": 999}}))
    folder = body_folder(tmp_path, [])
    os.mkfifo(folder / "pipe.response.json")  # a run must not hang on it
    lines = [
        index_line(response_file=str(secret)),  # elsewhere: looked up in the index's folder
        index_line(response_file="pipe.response.json", message_id="msg_2"),
        index_line(response_file="gone.response.json", message_id="msg_3"),
        index_line(message_id="msg_4", request_id="req_4"),
    ]
    (folder / "index.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = runner.invoke(app, ["scan", "--json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["totals"]["requests"] == 1 and report["totals"]["input_tokens"] == 10
    assert report["warnings"]["skipped_lines"] == 3
