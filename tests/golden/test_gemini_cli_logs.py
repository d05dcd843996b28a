"""`sniff scan` of the bundled Gemini CLI logs (`sample_logs/gemini-cli/`), every figure counted
by hand from their records.

The folder is `~/.gemini/tmp/<sha256 of /home/dana/src/tilesrv>/` as the CLI writes it:
- `session-…-5d1e8a3c.json`: a legacy session, 3 calls of gemini-2.5-pro;
- `session-…-5d1e8a3c.jsonl`: the same session resumed six minutes later: the 4 legacy messages
  copied, then 2 calls, the first appended three times (no tokens, tokens, tokens and its tool
  call);
- `session-…-7b2d4e91.jsonl`: gemini-2.5-flash, 4 calls: one with tool-use prompt tokens, one
  taken out by a `$rewindTo` (billed: it counts), one with zero tokens (not a request), an API
  error;
- `7b2d4e91-…/c1f07d93-….jsonl`: a sub-agent of that session, 2 calls;
- `logs.json`: the CLI's prompt log, no tokens (neither read nor reported).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sniff.logs import load
from sniff.model import Harness
from tests.golden.agent_totals import figures, run_json, scan, summed

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs" / "gemini-cli"
PROJECT = "680f7e0f90a80f3e441259eaef35ca1c27535276d35bbf07bad4e9bb9584db10"
LEGACY = "5d1e8a3c-2b47-4f0e-9c61-0a8e3f7d2b19"
CURRENT = "7b2d4e91-8c3a-4f57-b0d6-2e9a41c7f583"

# Per call: (uncached input, cache read, output, reasoning), from `tokens`: input − cached
# (+ tool), cached, output, thoughts.
PRO = [
    (9120, 0, 210, 340),
    (12480 - 8960, 8960, 96, 120),
    (13105 - 12288, 12288, 402, 58),
    (14020 - 13056, 13056, 130, 0),
    (14410 - 13952, 13952, 88, 44),
]
FLASH_MAIN = [
    (7800 + 120, 0, 64, 0),  # 120 tool-use prompt tokens: uncached input
    (8300 - 7680, 7680, 150, 0),
    (8700 - 8192, 8192, 40, 0),  # rewound, still billed
    (8710 - 8192, 8192, 95, 12),
]
FLASH_SUBAGENT = [(4200, 0, 35, 0), (4390 - 4096, 4096, 22, 0)]


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return scan(SAMPLES)


def test_totals_count_each_call_once(report):
    assert figures(report["totals"]) == summed(PRO + FLASH_MAIN + FLASH_SUBAGENT)
    assert report["totals"]["requests"] == 11
    assert report["warnings"]["skipped_lines"] == 0


def test_per_model(report):
    rows = {row["model"]: figures(row) for row in report["by_model"]}
    assert rows == {
        "gemini-2.5-pro": summed(PRO),
        "gemini-2.5-flash": summed(FLASH_MAIN + FLASH_SUBAGENT),
    }


def test_sessions_and_agents(report):
    """The resumed copy adds no request to its session; the sub-agent's calls are its
    parent session's."""
    assert {row["session"]: row["requests"] for row in report["sessions"]} == {
        LEGACY: 5,
        CURRENT: 6,
    }
    agents = {row["agent"]: figures(row) for row in report["by_agent"]}
    assert agents == {"main": summed(PRO + FLASH_MAIN), "subagent": summed(FLASH_SUBAGENT)}
    assert [row["project"] for row in report["by_project"]] == [PROJECT]


def test_files_read_and_the_prompt_log_left_alone(report):
    assert report["source"]["formats"] == {"gemini-cli": 4}
    assert report["warnings"]["unknown_format_files"] == []


def test_costs_are_priced_for_every_call(report):
    assert report["warnings"]["unpriced_models"] == []
    assert all(row["cost_usd"] > 0 for row in report["by_model"])


def test_harness_provider_and_kept_copies():
    requests = load([SAMPLES], use_index=False).requests
    assert {(r.harness, r.provider, r.source) for r in requests} == {
        (Harness.GEMINI_CLI, "google", "gemini-cli")
    }
    legacy = [r for r in requests if r.session_id == LEGACY]
    # the resumed .jsonl's copy of each legacy call is the one kept
    assert {Path(r.file).suffix for r in legacy} == {".jsonl"}
    # the call appended three times is kept from its last copy holding tokens (line 12)
    assert sorted(r.line for r in legacy) == [3, 4, 5, 12, 13]


def test_previous_calls_follow_the_conversation_through_a_rewind():
    requests = load([SAMPLES], use_index=False).requests
    by_key = {r.key.rsplit(":", 1)[1][:8]: r for r in requests}
    # after the rewind, the answer continues the call before the rewound user message
    assert by_key["4a17cf60"].previous == by_key["06d38b2c"].key
    assert by_key["28f5ad4e"].previous == by_key["06d38b2c"].key
    # the resumed session's first call continues the legacy file's last
    assert by_key["96f15358"].previous == by_key["0856c356"].key
    assert by_key["96f15358"].opens_turn and not by_key["3e7c9b52"].opens_turn
    assert by_key["f52c7a1b"].previous is None


def test_tool_calls_and_failures_through_agents():
    report = run_json("agents", "--json", "--no-index", str(SAMPLES))
    assert {row["tool"]: (row["calls"], row["errors"]) for row in report["tools"]["by_tool"]} == {
        "read_file": (1, 0),
        "run_shell_command": (1, 1),
        "replace": (1, 0),
        "google_web_search": (1, 0),
        "search_file_content": (1, 0),  # the sub-agent's
    }
    # the main sessions' user messages (a sub-agent's come from its parent); the legacy
    # file's copy in the .jsonl counts once
    assert report["commands"]["count"] == 5
    classes = {row["class"]: row["count"] for row in report["errors"]["by_class"]}
    assert classes["api_error"] == 1
