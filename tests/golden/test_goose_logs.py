"""`sniff scan` of a Goose `sessions.db`, built from tests/golden/goose/sessions.sql (written by
hand in Goose 1.x's schema from the field guide: no real database was found)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sniff.logs import load
from tests.golden.agent_scan import classes, scan

SQL = Path(__file__).parent / "goose" / "sessions.sql"


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "goose" / "sessions" / "sessions.db"
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as connection:
        connection.executescript(SQL.read_text())
    return path


def test_each_session_is_one_rollup_of_its_accumulated_totals(database):
    """Accumulated columns over the plain (last-turn) ones; the plain ones only for a row that
    has no accumulated ones; reasoning = total - input - output; the empty session is none."""
    report = scan(database.parent.parent)
    assert classes(report["totals"]) == (0, 151_200, 0, 0, 7_200, 1_000)  # sessions, no call
    assert {row["model"]: classes(row) for row in report["by_model"]} == {
        "claude-sonnet-4-5-20250929": (0, 141_000, 0, 0, 6_500, 500),
        "gpt-5": (0, 8_200, 0, 0, 300, 500),
        "qwen3-coder:30b": (0, 2_000, 0, 0, 400, 0),
    }
    assert report["warnings"]["session_totals_only"] == 3
    assert report["source"]["formats"] == {"goose": 1}
    assert len(report["sessions"]) == 3


def test_rollups_carry_harness_provider_cost_and_times(database):
    requests = {request.session_id: request for request in load([database]).requests}
    first = requests["20260303_1"]
    assert first.rollup and first.harness == "goose" and first.provider == "anthropic"
    assert first.reported_cost_usd == 0.52
    assert first.project == "/home/dana/src/tidepool"
    assert (
        first.started_at is not None and first.started_at.isoformat() == "2026-03-03T10:15:00+00:00"
    )
    assert first.ended_at.isoformat() == "2026-03-03T10:52:00+00:00"
    assert requests["20260304_2"].ended_at.isoformat() == "2026-03-04T08:00:00+00:00"
    assert not any(request.ttl_assumed for request in requests.values())
