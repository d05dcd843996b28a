"""`sniff scan` of sample_logs/copilot: Copilot CLI sessions, written by hand from the field
guide (a resumed session with a shutdown per segment, and an older flat file whose shutdown
gives its tokens per session, not per model)."""

from __future__ import annotations

from pathlib import Path

from tests.golden.agent_scan import classes, scan, tools

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "copilot"
RESUMED = "5f0c7d9e-3b1a-4c2e-9d8f-6a7b8c9d0e1f"


def test_totals_and_models():
    """Segment 1's shutdown: sonnet 3 calls, 42,000 input of which 30,000 read and 8,000
    written (subtracted once), and gpt-5-mini 1; its messages' output is not counted again.
    Segment 2 (resumed, no shutdown): two messages of output, one of zero output dropped. The
    flat file: tokenDetails 5,000 input with 3,000 read, for its one model's 2 calls."""
    report = scan(SAMPLES)
    assert classes(report["totals"]) == (8, 8_500, 33_000, 8_000, 2_140, 0)
    assert {row["model"]: classes(row) for row in report["by_model"]} == {
        "claude-sonnet-4.5": (5, 4_000, 30_000, 8_000, 1_440, 0),
        "gpt-4.1": (2, 2_000, 3_000, 0, 400, 0),
        "gpt-5-mini": (1, 2_500, 0, 0, 300, 0),
    }
    assert report["source"]["formats"] == {"copilot": 2}
    assert report["warnings"]["skipped_lines"] == 0
    # the one Anthropic rollup that writes the cache, its lifetime unsaid
    assert report["warnings"]["ttl_assumed_requests"] == 1


def test_sessions_and_projects():
    report = scan(SAMPLES)
    sessions = {row["session"]: row for row in report["sessions"]}
    assert set(sessions) == {RESUMED, "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"}
    assert sessions[RESUMED]["requests"] == 6
    projects = {row["project"]: row["requests"] for row in report["by_project"]}
    assert projects == {"/home/dana/src/tidepool": 6, "/home/dana/src/harbor-cli": 2}


def test_requests_carry_the_harness_rollups_and_nano_aiu():
    from sniff.logs import load

    requests = load([SAMPLES]).requests
    assert {request.harness for request in requests} == {"copilot"}
    rollups = [request for request in requests if request.rollup]
    # both shutdowns' calls, one rollup per model each (the resumed segment's two are calls)
    assert (len(rollups), sum(request.calls for request in rollups)) == (3, 6)
    units = sorted(
        (request.reported_units.value, request.reported_units.unit)
        for request in requests
        if request.reported_units
    )
    assert units == [(1_500_000_000, "nano-AIU"), (3_120_000_000, "nano-AIU")]
    assert all(request.reported_cost_usd is None for request in requests)


def test_agents_reads_tool_calls_and_failures():
    calls = tools(SAMPLES)
    assert calls == {"bash": (2, 1), "view": (1, 0), "grep": (1, 0)}


def test_a_copy_of_a_session_counts_once(tmp_path):
    copy = tmp_path / "history-session-state" / f"{RESUMED}.jsonl"
    copy.parent.mkdir()
    copy.write_bytes((SAMPLES / "session-state" / RESUMED / "events.jsonl").read_bytes())
    original = SAMPLES / "session-state" / RESUMED / "events.jsonl"
    report = scan(original, copy)
    assert classes(report["totals"]) == (6, 6_500, 30_000, 8_000, 1_740, 0)
