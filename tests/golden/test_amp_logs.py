"""`sniff scan` of sample_logs/amp: two Amp threads written by hand from the field guide (no
real thread was found): one with per-message usage, one older one with a usage ledger."""

from __future__ import annotations

from pathlib import Path

from sniff.logs import load
from tests.golden.agent_scan import classes, scan, tools

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "amp"


def test_totals_models_and_sessions():
    """The newer thread: three messages with usage (a fourth of zero tokens is none). The
    older: its two dated ledger rows with the cache split of the messages they name; the
    messages are not counted again, and the undated row is dropped."""
    report = scan(SAMPLES)
    assert classes(report["totals"]) == (5, 40, 48_200, 30_660, 1_475, 0)
    assert {row["model"]: classes(row) for row in report["by_model"]} == {
        "claude-sonnet-4-5-20250929": (3, 22, 38_400, 20_160, 685, 0),
        "claude-opus-4-1-20250805": (2, 18, 9_800, 10_500, 790, 0),
    }
    assert report["source"]["formats"] == {"amp": 2}
    assert {row["project"] for row in report["sessions"]} == {
        "/home/dana/src/tilecache",
        "/home/dana/src/harbor-cli",
    }
    assert report["warnings"]["ttl_assumed_requests"] == 5
    assert report["totals"]["cost_usd"] > 0


def test_credits_and_harness():
    requests = load([SAMPLES]).requests
    assert {request.harness for request in requests} == {"amp"}
    credits = sorted(r.reported_units.value for r in requests if r.reported_units)
    assert credits == [1.9, 2.6, 6.5, 7.4, 25.0]
    assert {r.reported_units.unit for r in requests if r.reported_units} == {"credits"}
    assert not any(request.rollup for request in requests)


def test_calls_are_linked_for_cache_breaks():
    requests = [r for r in load([SAMPLES]).requests if r.model.startswith("claude-sonnet")]
    assert [r.previous for r in requests][1:] == [requests[0].key, requests[1].key]


def test_agents_reads_tool_calls_and_failures():
    calls = tools(SAMPLES)
    assert calls == {"Read": (1, 0), "Bash": (1, 1)}
