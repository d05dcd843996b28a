"""`sniff scan` of sample_logs/droid: Factory Droid sessions written by hand from the field
guide (no real settings file was found): settings sidecars of per-session totals, a copy of
one under `archive/`, one of all-zero usage, and a session `.jsonl`, which holds no usage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app
from sniff.logs import load

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs" / "droid"
SESSION = "3e1f0a2b-7c4d-4e5f-a6b7-c8d9e0f1a2b3"


def scan() -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(SAMPLES)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def classes(row: dict[str, Any]) -> tuple[int, ...]:
    return (
        row["requests"],
        row["input_tokens"],
        row["cache_read_tokens"],
        row["cache_write_5m_tokens"] + row["cache_write_1h_tokens"],
        row["output_tokens"],
        row["reasoning_tokens"],
    )


def test_each_session_is_one_rollup_counted_once():
    report = scan()
    assert classes(report["totals"]) == (2, 7_050, 351_000, 22_000, 5_000, 1_200)
    assert {row["model"]: classes(row) for row in report["by_model"]} == {
        "claude-sonnet-4-5-20250929": (1, 1_850, 310_000, 22_000, 4_200, 900),
        "gpt-5-codex": (1, 5_200, 41_000, 0, 800, 300),
    }
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


def test_session_lines_give_tool_activity():
    result = CliRunner().invoke(app, ["agents", "--json", str(SAMPLES)])
    assert result.exit_code == 0, result.output
    calls = {
        row["tool"]: (row["calls"], row["errors"])
        for row in json.loads(result.stdout)["tools"]["by_tool"]
    }
    assert calls == {"Execute": (1, 1)}
