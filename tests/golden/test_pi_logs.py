"""Golden totals of the bundled pi and OpenClaw sessions (`sample_logs/pi/`, `openclaw/`).

The figures were counted by hand from the files: each assistant message with usage is a call;
the branched session repeats two calls of its parent; aborted and failed attempts carry
all-zero usage; OpenClaw's gateway retries and its own injected message carry none either.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.logs import load
from sniff.model import Harness

ROOT = Path(__file__).resolve().parents[2]
PI = ROOT / "sample_logs" / "pi"
OPENCLAW = ROOT / "sample_logs" / "openclaw"
TILESRV = PI / ".pi/agent/sessions/--home-dana-src-tilesrv--"
PARENT = "a1c5e0d2-4b7f-4e13-9d0a-6f2b8c3e1a01"
BRANCH = "b7e29f40-0c6d-4a8b-93e1-5d7c2a4f6b02"
NOTES = "c3d8a1f6-7e2b-4c90-8a5d-1b6e9f2c4d03"
OPENCLAW_SESSION = "3f9d2c1a-8b7e-4d6f-a5c4-9e1b0d2f7a04"
TRASH = "5e0a7b3c-2d1f-4a98-b6e7-0c3d9f1a2b05.jsonl.deleted.1773046200000"


def scan(*paths: Path) -> dict[str, Any]:
    arguments = ["scan", "--json", "--tz", "UTC", *map(str, paths)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def classes(row: dict[str, Any]) -> tuple[int, ...]:
    """requests, input, cache read, 5m write, 1h write, output, reasoning."""
    keys = ("input_tokens", "cache_read_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens")
    return (row["requests"], *(row[key] for key in keys), row["output_tokens"],
            row["reasoning_tokens"])  # fmt: skip


@pytest.fixture(scope="module")
def pi_report() -> dict[str, Any]:
    return scan(PI)


def test_pi_totals_count_each_call_once(pi_report):
    # 11 assistant messages: 2 are the branch's copies, 3 aborted or failed with no usage
    assert classes(pi_report["totals"]) == (6, 1_222, 35_312, 27_800, 0, 1_203, 0)
    assert pi_report["source"]["formats"] == {"pi": 3}
    assert pi_report["warnings"]["skipped_lines"] == 0
    assert pi_report["warnings"]["failed_requests"] == 0


def test_pi_per_model(pi_report):
    assert {row["model"]: classes(row) for row in pi_report["by_model"]} == {
        "claude-sonnet-4-5": (3, 16, 14_210, 22_160, 0, 648, 0),
        "claude-haiku-4-5": (2, 6, 5_230, 5_640, 0, 145, 0),
        "gpt-5.1-codex": (1, 1_200, 15_872, 0, 0, 410, 0),
    }
    # pi logs no cache TTL: Anthropic's writes are assumed 5-minute ones, OpenAI has none
    assert pi_report["warnings"]["ttl_assumed_requests"] == 5


def test_pi_sessions_and_projects_from_the_headers(pi_report):
    sessions = {row["session"]: (row["project"], row["requests"]) for row in pi_report["sessions"]}
    assert sessions == {
        PARENT: ("/home/dana/src/tilesrv", 3),
        BRANCH: ("/home/dana/src/tilesrv", 1),  # its two copied calls stay with the parent
        NOTES: ("/home/dana/src/notes-cli", 2),
    }


def test_the_branch_alone_still_counts_its_copied_calls():
    report = scan(TILESRV / f"2026-03-02T10-02-00-000Z_{BRANCH}.jsonl")
    assert classes(report["totals"]) == (3, 1_208, 30_082, 16_040, 0, 718, 0)


def test_pi_requests_carry_harness_times_links_and_reported_cost():
    requests = load([PI]).requests
    assert {request.harness for request in requests} == {Harness.PI}
    assert {request.source for request in requests} == {"pi"}
    by_output = {request.usage.output_tokens: request for request in requests}
    first, second, after_compaction = by_output[212], by_output[96], by_output[340]
    assert first.previous is None and first.opens_turn and first.thinks
    assert second.previous == first.key and not second.opens_turn and not second.thinks
    assert after_compaction.compacted and after_compaction.previous == second.key
    # started: the message's creation (epoch ms); ended: when its line was written
    assert first.started_at is not None and first.started_at.timestamp() == 1_772_442_845.010
    assert first.ended_at.timestamp() == 1_772_442_851.3
    assert by_output[410].previous == second.key  # the branch continues the parent's call
    assert sum(request.reported_cost_usd or 0 for request in requests) == pytest.approx(
        0.0564765 + 0.0125805 + 0.028074 + 0.007584 + 0.0069815 + 0.0013225
    )


def test_pi_tool_calls_and_results():
    result = CliRunner().invoke(app, ["agents", "--json", str(PI)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    tools = {row["tool"]: (row["calls"], row["errors"]) for row in report["tools"]["by_tool"]}
    assert tools == {"bash": (1, 1), "edit": (1, 0), "read": (1, 0)}


def test_openclaw_counts_only_calls_that_used_tokens():
    report = scan(OPENCLAW)
    assert classes(report["totals"]) == (2, 1_052, 26_496, 0, 0, 397, 0)
    assert [row["model"] for row in report["by_model"]] == ["gpt-5.4"]
    assert [row["session"] for row in report["sessions"]] == [OPENCLAW_SESSION]
    assert report["sessions"][0]["project"] == "/home/dana/src/webshop"
    requests = load([OPENCLAW]).requests
    assert {(request.harness, request.provider) for request in requests} == {
        (Harness.OPENCLAW, "openai-codex")
    }


def test_openclaw_trash_is_not_walked_and_named_yields_only_why():
    trash = OPENCLAW / ".openclaw/agents/main/sessions" / TRASH
    assert trash.is_file()
    assert str(trash) not in load([OPENCLAW]).files
    report = scan(trash)
    assert report["totals"]["requests"] == 0
    assert report["source"]["formats"] == {"pi": 1}
    assert report["warnings"]["unreadable_files"] == [str(trash)]  # with why, on stderr
