"""`sniff scan` of sample_logs/cline: both of Cline's stores, figures counted by hand.

`data/sessions/` is the Cline SDK session store, written after Cline's own fixture
(cline/cline `sdk/packages/core/fixtures/session/`): a lead session with a sub-agent, a fork
of it that copies its first five messages, a compaction sidecar, and an aborted turn (zero
metrics). `globalStorage/<extension>/tasks/` is the classic task store of Cline, Roo Code and
Kilo Code. No real classic `ui_messages.json` could be used (none with a licence that allows
it): these three were built from documentation (the agent-format guide, the agents' sources),
not captured from the agents.

The figures, per call (uncached input, cache read, cache write, output):
- lead (SDK, `inputTokens` includes cache): 12000-0-11500 → 500, 0, 11500, 300;
  12600-11500-900 → 200, 11500, 900, 150; 13400-12400-800 → 200, 12400, 800, 420 (120 of it
  reasoning); a zero-metrics turn is no call. Sub-agent: 3000, 0, 0, 100. Fork: its five
  copied messages are the lead's calls (counted once), its own: 14000-12400 → 1600, 12400, 0,
  80.
- Cline task (disjoint): 1200, 0, 9000, 80; 40, 9000, 300, 150; a cancelled request with no
  counts is none; an `api_req_finished` row completes the request before it: 25, 9300, 0, 60.
- Roo task, 2025-11-10 (total input): 15000-14200 → 800, 0, 14200, 200; 15600-14200-1000 →
  400, 14200, 1000, 90; a failed stream with no counts is none.
- Kilo task, 2025-09-01: Anthropic protocol, disjoint: 300, 5000, 0, 40; OpenAI protocol
  (cached inside input): 6000-5500 → 500, 5500, 0, 70.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.files.discover import expand
from sniff.ingest.files.log_formats import parse_source
from sniff.logs import load
from sniff.model import Agent, Harness

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "cline"
LEAD = "1783900000000_k3v9q"
FORK = "1783990000000_p2m7x"
ROO = "0199b6f2-6c1e-7a4b-9a0e-3f5d2c8e1a77"
KILO = "0198f0a1-2b3c-7d4e-8f90-a1b2c3d4e5f6"
SONNET = "claude-sonnet-4-5-20250929"


def scan(path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(path)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return scan(SAMPLES)


def classes(row: dict[str, Any]) -> tuple[int, ...]:
    """requests, uncached input, cache read, 5m write, 1h write, output, reasoning."""
    keys = ("requests", "input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
            "cache_write_1h_tokens", "output_tokens", "reasoning_tokens")  # fmt: skip
    return tuple(row[key] for key in keys)


def test_totals(report):
    assert classes(report["totals"]) == (12, 8_765, 79_300, 37_700, 0, 1_740, 120)
    assert report["warnings"]["unpriced_models"] == []
    assert report["source"]["formats"] == {"cline": 3, "cline-tasks": 3}
    assert report["warnings"]["skipped_lines"] == 0
    assert report["warnings"]["unknown_format_files"] == []


def test_by_model(report):
    assert {row["model"]: classes(row) for row in report["by_model"]} == {
        SONNET: (8, 3_365, 56_400, 37_700, 0, 1_450, 120),
        "claude-haiku-4-5-20251001": (3, 3_800, 10_500, 0, 0, 210, 0),  # Kilo's and the sub-agent's
        "gpt-4.1": (1, 1_600, 12_400, 0, 0, 80, 0),
    }


def test_sessions_and_projects(report):
    sessions = {row["session"]: (row["project"], row["requests"], row["agents"])
                for row in report["sessions"]}  # fmt: skip
    assert sessions == {
        LEAD: ("/home/dana/src/tilesrv", 4, 2),  # the sub-agent's file joins its lead's session
        FORK: ("/home/dana/src/tilesrv", 1, 1),  # its copies stay with the session that made them
        "1760000000000": ("/home/dana/src/ledger-api", 3, 1),
        ROO: ("/home/dana/src/webshop", 2, 1),
        KILO: ("/home/dana/src/notes-cli", 2, 1),
    }


def test_cache_writes_of_anthropic_models_assume_5m(report):
    # SDK lead's three calls, the Cline task's first two, the Roo task's two
    assert report["warnings"]["ttl_assumed_requests"] == 7


def test_each_request_names_its_harness_agent_and_the_cost_logged():
    requests = load([SAMPLES]).requests
    harnesses: dict[Harness, int] = {}
    for request in requests:
        harnesses[request.harness] = harnesses.get(request.harness, 0) + 1
    assert harnesses == {Harness.CLINE: 8, Harness.ROO_CODE: 2, Harness.KILO_CODE: 2}
    [sub] = [r for r in requests if r.agent is Agent.SUBAGENT]
    assert (sub.session_id, sub.agent_id, sub.model) == (
        LEAD,
        "explorer",
        "claude-haiku-4-5-20251001",
    )
    reported = sorted(r.reported_cost_usd or 0.0 for r in requests if r.source == "cline")
    assert reported == pytest.approx([0.0035, 0.00664, 0.009225, 0.01362, 0.048375])
    lead = [r for r in requests if r.session_id == LEAD and r.agent is Agent.MAIN]
    assert [r.previous for r in lead] == [None, "cline:msg_a2", "cline:msg_a4"]


def test_fork_read_alone_counts_its_copied_history_once():
    report = scan(SAMPLES / "data" / "sessions" / FORK)
    assert classes(report["totals"]) == (3, 2_300, 23_900, 12_400, 0, 530, 0)


def test_the_manifests_model_is_not_the_calls(report):
    # the fork's manifest names mistralai/devstral-medium, the setting after the fork
    assert "mistralai/devstral-medium" not in {row["model"] for row in report["by_model"]}


def test_only_logs_are_claimed():
    """Manifests, the compaction sidecar, the conversation histories and task metadata are
    JSON documents of no format: skipped unsaid."""
    formats = {Path(file.path).name: parse_source(file).log_format for file in expand([SAMPLES])}
    assert {name: fmt for name, fmt in formats.items() if fmt} == {
        f"{LEAD}.messages.json": "cline",
        f"{LEAD}__explorer.messages.json": "cline",
        f"{FORK}.messages.json": "cline",
        "ui_messages.json": "cline-tasks",
    }


def test_agents_sees_cline_tool_calls_and_the_failed_command():
    result = CliRunner().invoke(app, ["agents", "--json", str(SAMPLES / "data")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    tools = {row["tool"]: (row["calls"], row["errors"]) for row in report["tools"]["by_tool"]}
    assert tools == {"read_files": (1, 0), "run_commands": (1, 1)}
    assert report["errors"]["failures"] == 1
