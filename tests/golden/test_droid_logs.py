"""`sniff scan` of sample_logs/droid: Factory Droid sessions written by hand from the field
guide (no real settings file was found): settings sidecars of per-session totals, a copy of
one under `archive/`, one of all-zero usage, and a session `.jsonl`, which holds no usage."""

from __future__ import annotations

import json
from pathlib import Path

from sniff.logs import load
from tests.golden.agent_scan import classes, scan, tools

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "droid"
SESSION = "3e1f0a2b-7c4d-4e5f-a6b7-c8d9e0f1a2b3"


def test_each_session_is_one_rollup_counted_once():
    """Two sessions of totals, no request: Droid logs no call's usage."""
    report = scan(SAMPLES)
    assert classes(report["totals"]) == (0, 7_050, 351_000, 22_000, 5_000, 1_200)
    assert {row["model"]: classes(row) for row in report["by_model"]} == {
        "claude-sonnet-4-5-20250929": (0, 1_850, 310_000, 22_000, 4_200, 900),
        "gpt-5-codex": (0, 5_200, 41_000, 0, 800, 300),
    }
    assert report["warnings"]["session_totals_only"] == len(report["sessions"]) == 2
    [droid] = report["by_harness"]
    assert (droid["harness"], droid["requests"], droid["session_totals"]) == ("droid", 0, 2)
    # three settings files and their archived copy, and the session's lines
    assert report["source"]["formats"] == {"droid": 5}
    assert report["warnings"]["skipped_lines"] == 0


def test_rollups_carry_harness_provider_and_project():
    requests = {request.session_id: request for request in load([SAMPLES]).requests}
    assert all(request.rollup and request.harness == "droid" for request in requests.values())
    assert requests[SESSION].provider == "anthropic"
    assert requests[SESSION].ttl_assumed  # its cache writes' lifetime is unsaid
    assert requests[SESSION].project == "/home/dana/src/harbor-cli"  # from its .jsonl header
    assert requests[SESSION].ended_at.isoformat() == "2026-02-10T15:00:00+00:00"
    # no `.jsonl` names its folder, and `sessions` is Droid's folder, not a project's
    assert requests["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"].project == "(unknown)"


def test_an_archived_copy_takes_its_project_from_the_session_it_copies(tmp_path: Path):
    """Read alone, a copy under `archive/` finds its session's `.jsonl` a folder up."""
    sessions = tmp_path / "sessions"
    (sessions / "archive").mkdir(parents=True)
    for name in (f"{SESSION}.jsonl", f"archive/{SESSION}.settings.json"):
        (sessions / name).write_bytes((SAMPLES / "sessions" / name).read_bytes())
    [request] = load([sessions / "archive"]).requests
    assert request.project == "/home/dana/src/harbor-cli"


def test_session_lines_give_tool_activity():
    calls = tools(SAMPLES)
    assert calls == {"Execute": (1, 1)}


def test_session_totals_are_left_out_of_the_per_request_analyses_with_a_note():
    """No call's prompt or time is in a session's totals: breaks, the simulation and latency
    leave them out, and the cache report and latency say so in one line."""
    from typer.testing import CliRunner

    from sniff.cli import app

    def command(*arguments: str) -> dict:
        result = CliRunner().invoke(app, [*arguments, "--json", str(SAMPLES)])
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    cache = command("cache")
    assert cache["observed"]["requests"] == 0
    assert any("2 record(s) of many calls' totals" in note for note in cache["notes"])
    assert command("cache", "--breaks")["breaks"] == []
    latency = command("latency")
    assert latency["count"] == 0
    assert any("2 sessions logged only as totals" in note for note in latency["notes"])
