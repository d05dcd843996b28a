"""`sniff scan` of the bundled Qwen Code logs (`sample_logs/qwen-code/`), every figure counted by
hand from their rows.

`~/.qwen/projects/-home-dana-src-ledger-api/chats/`:
- `2f8c41d7-….jsonl`: qwen3-coder-plus over Qwen OAuth, 5 calls on the main branch, each also
  described by a `ui_telemetry` row (never counted); one streamed twice under one uuid (a
  thought-only part first, no usage), its thoughts inside its candidates (total = prompt +
  candidates); a rewind abandoning one call (billed: it counts); a sub-agent's call on a
  sidechain; an API error;
- `9d47b1e2-….jsonl`: a `/branch` of it: its first call copied verbatim (counted once), then a
  gemini-2.5-flash call over the Gemini API, whose thoughts sit beside its candidates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sniff.logs import load
from sniff.model import Agent, Harness
from tests.golden.agent_totals import figures, run_json, scan, summed

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs" / "qwen-code"
FIRST = "2f8c41d7-93ab-4e6f-8d05-71b2c9e4a360"
BRANCH = "9d47b1e2-6c08-4a3f-b5d9-e2f0a1c3b754"

# Per call: (uncached input, cache read, output, reasoning): prompt − cached, cached,
# candidates (− thoughts where the total holds them once), thoughts.
QWEN_MAIN = [
    (14200, 0, 180, 0),
    (16050 - 14080, 14080, 420 - 96, 96),
    (16610 - 16000, 16000, 85, 0),
    (17020 - 16512, 16512, 230, 0),  # on the abandoned branch
    (16990 - 16512, 16512, 140, 0),
]
QWEN_SUBAGENT = [(5200, 0, 60, 0)]
GEMINI = [(9000, 0, 200, 150)]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return scan(SAMPLES)


def test_totals_count_assistant_usage_once(report):
    assert figures(report["totals"]) == summed(QWEN_MAIN + QWEN_SUBAGENT + GEMINI)
    assert report["totals"]["requests"] == 7
    assert report["warnings"]["skipped_lines"] == 0
    assert report["source"]["formats"] == {"qwen-code": 2}


def test_per_model(report):
    assert {row["model"]: figures(row) for row in report["by_model"]} == {
        "qwen3-coder-plus": summed(QWEN_MAIN + QWEN_SUBAGENT),
        "gemini-2.5-flash": summed(GEMINI),
    }
    # the price data names Qwen's model only as its vendor's (OpenRouter's `qwen/…`): it is
    # priced there, through the provider the log names (`auth_type` qwen-oauth: qwen)
    assert report["warnings"]["unpriced_models"] == []
    rows = {row["model"]: row for row in report["by_model"]}
    assert rows["gemini-2.5-flash"]["cost_usd"] > 0
    assert rows["qwen3-coder-plus"]["cost_usd"] > 0


def test_sessions_agents_and_project(report):
    """The branch's copy of the first call stays with the session it was made in."""
    sessions = {row["session"]: row["requests"] for row in report["sessions"]}
    assert sessions == {FIRST: 6, BRANCH: 1}
    assert {row["agent"]: row["requests"] for row in report["by_agent"]} == {
        "main": 6,
        "subagent": 1,
    }
    assert {row["project"]: row["requests"] for row in report["by_project"]} == {
        "/home/dana/src/ledger-api": 7
    }


def test_harness_providers_and_branch_links():
    requests = load([SAMPLES], use_index=False).requests
    assert {r.harness for r in requests} == {Harness.QWEN_CODE}
    by_uuid = {r.key[-4:]: r for r in requests}
    assert {uuid: r.provider for uuid, r in by_uuid.items()} == {
        **dict.fromkeys(["0003", "0006", "0009", "0013", "0017", "0019"], "qwen"),
        "0023": "google",  # the telemetry's auth_type: gemini-api-key
    }
    # a rewound branch is left: the call after the rewind continues the one before it
    assert by_uuid["0017"].previous == by_uuid["0009"].key
    assert by_uuid["0013"].previous == by_uuid["0009"].key
    assert by_uuid["0023"].previous == by_uuid["0003"].key  # through the branch's copies
    assert by_uuid["0017"].opens_turn and not by_uuid["0009"].opens_turn
    assert by_uuid["0006"].thinks and by_uuid["0006"].line == 7  # the copy with usage
    assert by_uuid["0019"].agent == Agent.SUBAGENT and by_uuid["0019"].agent_id == "explore-5e21"
    # the telemetry's duration dates when the call went out
    started, ended = by_uuid["0003"].started_at, by_uuid["0003"].ended_at
    assert started is not None and round((ended - started).total_seconds(), 3) == 4.213


def test_tool_calls_failures_and_requests_through_agents():
    report = run_json("agents", "--json", "--no-index", str(SAMPLES))
    assert {row["tool"]: (row["calls"], row["errors"]) for row in report["tools"]["by_tool"]} == {
        "read_file": (1, 0),  # also copied into the branch: once
        "edit": (2, 1),
    }
    # typed requests (the injected context left out), the branch's copy once; none of the
    # sub-agent's
    assert report["commands"]["count"] == 4
    classes = {row["class"]: row["count"] for row in report["errors"]["by_class"]}
    assert classes.get("api_error") == 1
