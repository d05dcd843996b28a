"""What the proxy's record gives that a transcript cannot: the whole prompt of every call. A
planted 30-call conversation, recorded as `sniff proxy` writes it: `sniff cache` simulates
Anthropic's cache on its prompts within 1 % of the reads the provider logged, and `sniff lint`
finds the timestamp planted in its system prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.record import Prompts
from sniff.logs import load

runner = CliRunner()
T0 = 1_775_000_000.0
CALLS = 30
SYSTEM = (
    "You are a coding agent working in the repository of a tile server written in Rust. "
    "Current date and time: 2026-03-31 23:33:20 UTC. Answer briefly; run the tests before "
    "you claim a fix works. " * 30
)
TOOLS = [
    {
        "name": "bash",
        "description": "Run a shell command in the repository. " * 20,
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]


def body(turns: int) -> dict[str, Any]:
    """The request of call `turns`: the system prompt, the tools and the conversation so far,
    its last message marked for the cache (as Claude Code marks it)."""
    messages: list[dict[str, Any]] = []
    for turn in range(turns + 1):
        text = f"Step {turn}: look at src/render/mod.rs line {turn * 40} and explain it. " * 8
        messages.append({"role": "user", "content": [{"type": "text", "text": text}]})
        if turn < turns:
            reply = f"At line {turn * 40} the renderer clips the tile to its extent. " * 6
            messages.append({"role": "assistant", "content": [{"type": "text", "text": reply}]})
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return {"model": "claude-sonnet-4-5-20250929", "max_tokens": 1024,
            "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
            "tools": TOOLS, "messages": messages}  # fmt: skip


def planted(folder: Path) -> Path:
    """The conversation's record, each call's usage what Anthropic's cache gives its prompt:
    it reads what the call before it wrote, and writes the rest (sizes as sniff counts them)."""
    path = folder / "calls.jsonl"
    bodies = [body(turn) for turn in range(CALLS)]
    lines = [_line(number, request, {}) for number, request in enumerate(bodies)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    sizes = [
        sum(block.tokens for block in request.blocks)
        for request in sorted(
            load([folder], with_prompts=Prompts.COUNTED, use_index=False).requests,
            key=lambda request: request.key,
        )
    ]
    read = 0
    lines = []
    for number, (request, size) in enumerate(zip(bodies, sizes, strict=True)):
        usage = {"input_tokens": 0, "cache_read_input_tokens": read,
                 "cache_creation_input_tokens": size - read, "output_tokens": 120}  # fmt: skip
        lines.append(_line(number, request, usage))
        read = size
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _line(number: int, request: dict[str, Any], usage: dict[str, Any]) -> dict[str, Any]:
    at = T0 + 30 * number
    key = f"msg_{number:03d}"
    return {"request": request,
            "response": {"id": key, "type": "message", "model": request["model"], "usage": usage},
            "status": 200, "api": "anthropic-messages", "provider": "anthropic", "id": key,
            "started_at": at, "first_byte_at": at + 0.3, "first_token_at": at + 0.9,
            "ended_at": at + 4, "outcome": "complete", "session": "s-30",
            "client": "claude-cli/2.1.30 (external, cli)",
            "proxy": {"path": "/v1/messages", "upstream": "https://api.anthropic.com",
                      "diagnose": False}}  # fmt: skip


def test_the_simulation_on_the_proxys_prompts_matches_the_logged_reads(tmp_path: Path) -> None:
    log = planted(tmp_path)
    result = runner.invoke(app, ["cache", "--json", str(log)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["observed"]["requests"] == CALLS
    assert abs(report["error"]["read_tokens_absolute"]) <= 0.01, report["error"]


def test_lint_finds_the_timestamp_in_the_system_prompt(tmp_path: Path) -> None:
    log = planted(tmp_path)
    result = runner.invoke(app, ["lint", "--json", str(log)])
    assert result.exit_code in (0, 1), result.output
    findings = json.loads(result.stdout)["findings"]
    assert any(
        item["rule"] == "SN001" and item["block"] == "system[0]" and "timestamp" in item["message"]
        for item in findings
    ), findings
