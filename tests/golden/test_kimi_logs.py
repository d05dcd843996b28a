"""Golden totals of the bundled Kimi Code session (`sample_logs/kimi/`).

Counted by hand from the files: each `usage.record` is a call (its `step.end` twin repeats
it); the main agent's first request was cancelled and logged no usage; the `session`-scope
record is the compaction call; the sub-agent's two calls are in its own wire file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app
from sniff.logs import load
from sniff.model import Agent, Harness

ROOT = Path(__file__).resolve().parents[2]
KIMI = ROOT / "sample_logs" / "kimi"
SESSION = "7d4b2e90-1c3a-4f8e-a6b5-2e9f0c1d3a47"
MODEL = "moonshot-ai/kimi-k2.7-code"


def scan(path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(path)])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def classes(row: dict[str, Any]) -> tuple[int, ...]:
    keys = ("requests", "input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
            "cache_write_1h_tokens", "output_tokens", "reasoning_tokens")  # fmt: skip
    return tuple(row[key] for key in keys)


def test_totals_count_usage_records_only():
    report = scan(KIMI)
    # 6 step.end twins not counted again; 1 cancelled request with no usage
    assert classes(report["totals"]) == (7, 21_182, 50_688, 0, 0, 1_622, 0)
    assert {row["model"]: classes(row) for row in report["by_model"]} == {
        MODEL: (7, 21_182, 50_688, 0, 0, 1_622, 0)
    }
    assert report["source"]["formats"] == {"kimi": 2}
    assert report["warnings"]["skipped_lines"] == 0
    assert report["warnings"]["ttl_assumed_requests"] == 0


def test_one_session_with_its_subagent_and_compaction_call():
    report = scan(KIMI)
    assert [(row["session"], row["project"], row["requests"]) for row in report["sessions"]] == [
        (SESSION, "/home/dana/src/ledger-api", 7)  # the project from state.json's workDir
    ]
    agents = {row["agent"]: classes(row) for row in report["by_agent"]}
    assert agents == {
        "main": (4, 13_182, 28_416, 0, 0, 734, 0),
        "compaction": (1, 880, 13_056, 0, 0, 610, 0),
        "subagent": (2, 7_120, 9_216, 0, 0, 278, 0),
    }


def test_requests_carry_ids_times_and_links():
    requests = load([KIMI]).requests
    assert {(request.harness, request.provider) for request in requests} == {(Harness.KIMI, "kimi")}
    sub = [request for request in requests if request.agent is Agent.SUBAGENT]
    assert {request.agent_id for request in sub} == {"agent-0"}
    main = [request for request in requests if request.agent_id == "main"]
    assert [request.key for request in main] == [
        "kimi:chatcmpl-69b0a1c25e7f3d0a11c4e801",
        "kimi:chatcmpl-69b0a1ea5e7f3d0a11c4e80d",
        "kimi:chatcmpl-69b0a1f35e7f3d0a11c4e812",
        f"kimi:{SESSION}:main:1773133341000",  # the compaction call: no step.end, no id
        "kimi:chatcmpl-69b0a2725e7f3d0a11c4e83a",
    ]
    first, _, _, compaction, after = main
    assert first.opens_turn and first.thinks
    # sent at its llm.request; first token 1,840 ms later (step.end); done at its usage.record
    assert first.started_at is not None and first.started_at.timestamp() == 1_773_133_220.01
    assert first.first_token_at is not None
    assert first.first_token_at.timestamp() == 1_773_133_221.85
    assert first.ended_at.timestamp() == 1_773_133_231.001
    assert compaction.agent is Agent.COMPACTION and compaction.previous == main[2].key
    assert after.compacted and after.previous == compaction.key


def test_tool_calls_and_failures():
    result = CliRunner().invoke(app, ["agents", "--json", str(KIMI)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    tools = {row["tool"]: (row["calls"], row["errors"]) for row in report["tools"]["by_tool"]}
    assert tools == {"Bash": (1, 1), "Agent": (1, 0), "Grep": (1, 0)}
