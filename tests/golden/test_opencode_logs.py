"""`sniff scan --json sample_logs/opencode` against the counts its builder wrote.

The figures are summed by hand from `opencode_sample.py`'s rows: one request per `step-finish`
part, a message counted from its row only when it has no step (the legacy message whose parts
were never written), the notes session that sits in both the database and the legacy tree once,
the aborted message not at all, the `event` table and the session table's totals never.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.logs import load
from sniff.model import Agent, Harness, Request
from tests.golden.opencode_sample import SAMPLE, build
from tests.golden.test_sample_logs import TOKEN_KEYS as CLAUDE_KEYS

TOKEN_KEYS = (*CLAUDE_KEYS, "reasoning_tokens")
# requests, input, cache read, 5m write, 1h write, output, reasoning
BY_MODEL = {
    # tilesrv: 3 steps + the compaction's summary + the call after it; webshop (Kilo): 1
    "claude-sonnet-4-5-20250929": (
        6,
        12 + 8 + 6 + 4 + 10 + 20,
        14210 + 15840 + 16260,
        14210 + 1630 + 420 + 3120 + 11800,
        180 + 95 + 260 + 610 + 150 + 240,
        0,
    ),  # noqa: E501
    "claude-haiku-4-5-20251001": (2, 9 + 5, 9800, 9800 + 150, 70 + 40, 0),
    "claude-sonnet-4-20250514": (1, 25, 0, 12040, 410, 0),
    "gpt-5-mini-2025-08-07": (1, 2400, 1024, 0, 350, 192),
}
REPORTED_USD = {
    "ses_3b1fa20c4ffe01tiles": 0.0560235 + 0.0118245 + 0.010245 + 0.01404 + 0.01398 + 0.0017096,
    "ses_2d07c11e8ffe02notes": 0.012609 + 0.0013725,
    "ses_1f9e03aa6ffe03old": 0.051375,
    "ses_3b6a55e2bffe05kilo": 0.04791,
}


def _row(counts: tuple[int, ...]) -> dict[str, int]:
    requests, uncached, read, write, output, reasoning = counts
    return dict(
        zip(TOKEN_KEYS, (requests, uncached, read, write, 0, output, reasoning), strict=True)
    )


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def requests() -> list[Request]:
    return list(load([SAMPLE], use_index=False).requests)


def test_the_committed_sample_is_what_its_builder_writes(tmp_path: Path) -> None:
    build(tmp_path)
    written = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    committed = sorted(p.relative_to(SAMPLE) for p in SAMPLE.rglob("*") if p.is_file())
    assert written == committed
    for name in written:
        if name.suffix == ".db":
            assert _dump(tmp_path / name) == _dump(SAMPLE / name), name
        else:
            assert (tmp_path / name).read_bytes() == (SAMPLE / name).read_bytes(), name


def _dump(path: Path) -> list[str]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return list(db.iterdump())


def test_totals_and_models(report: dict[str, Any]) -> None:
    rows = {row["model"]: {key: row[key] for key in TOKEN_KEYS} for row in report["by_model"]}
    assert rows == {model: _row(counts) for model, counts in BY_MODEL.items()}
    totals = tuple(map(sum, zip(*BY_MODEL.values(), strict=True)))
    assert {key: report["totals"][key] for key in TOKEN_KEYS} == _row(totals)
    assert report["totals"]["requests"] == 10
    # the two databases and the legacy tree's four message files; parts and sessions are read
    # beside their messages, never counted as logs
    assert report["source"]["formats"] == {"opencode": 6}
    assert report["warnings"]["skipped_lines"] == 0
    assert report["warnings"]["unknown_format_files"] == []
    # every Anthropic call that wrote to the cache: OpenCode does not log the TTL
    assert report["warnings"]["ttl_assumed_requests"] == 8


def test_sessions_projects_and_agents(report: dict[str, Any]) -> None:
    sessions = {row["session"]: (row["project"], row["requests"]) for row in report["sessions"]}
    assert sessions == {
        "ses_3b1fa20c4ffe01tiles": ("/home/dana/src/tilesrv", 6),  # with its sub-agent's call
        "ses_2d07c11e8ffe02notes": ("/home/dana/src/notes-cli", 2),
        "ses_1f9e03aa6ffe03old": ("/home/dana/src/ledger-api", 1),
        "ses_3b6a55e2bffe05kilo": ("/home/dana/src/webshop", 1),
    }
    agents = {row["agent"]: row["requests"] for row in report["by_agent"]}
    assert agents == {"main": 8, "compaction": 1, "subagent": 1}


def test_harness_reported_cost_and_links(requests: list[Request]) -> None:
    harness = {request.session_id: request.harness for request in requests}
    assert harness.pop("ses_3b6a55e2bffe05kilo") == Harness.KILO
    assert set(harness.values()) == {Harness.OPENCODE}
    reported: dict[str, float] = {}
    for request in requests:
        assert request.reported_cost_usd is not None
        reported[request.session_id] = (
            reported.get(request.session_id, 0.0) + request.reported_cost_usd
        )
    assert reported == pytest.approx(REPORTED_USD)
    tiles = [r for r in requests if r.session_id == "ses_3b1fa20c4ffe01tiles"]
    main = [r for r in tiles if r.agent != Agent.SUBAGENT]
    assert [r.agent for r in main] == [Agent.MAIN] * 3 + [Agent.COMPACTION, Agent.MAIN]
    assert [r.previous for r in main[1:]] == [r.key for r in main[:-1]]
    assert [r.compacted for r in main] == [False] * 4 + [True]
    [sub] = [r for r in tiles if r.agent == Agent.SUBAGENT]
    assert (sub.agent_id, sub.provider, sub.usage.reasoning_tokens) == (
        "ses_3b1fa31d0ffe04sub",
        "openai",
        192,
    )


def test_the_notes_session_counts_once_with_the_databases_copy(requests: list[Request]) -> None:
    notes = [r for r in requests if r.session_id == "ses_2d07c11e8ffe02notes"]
    assert len(notes) == 2
    assert {Path(r.file).name for r in notes} == {"opencode.db"}


def test_agents_reads_tool_calls_and_failures() -> None:
    result = CliRunner().invoke(app, ["agents", "--json", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    calls = {row["tool"]: (row["calls"], row["errors"]) for row in report["tools"]["by_tool"]}
    assert calls == {
        "edit": (3, 0),
        "read": (1, 0),
        "bash": (1, 1),
        "task": (1, 0),
        "grep": (1, 0),
    }


def test_cache_breaks_follow_each_sessions_calls() -> None:
    """The one warm break is the call after the compaction, which starts its cache again; the
    steps of a message and the messages of a session read what the call before them wrote."""
    result = CliRunner().invoke(app, ["cache", "--breaks", "--json", "--tz", "UTC", str(SAMPLE)])
    assert result.exit_code == 0, result.output
    found = [
        (item["request"], item["cause"])
        for item in json.loads(result.stdout)["breaks"]
        if item["cause"] != "cold_start"
    ]
    assert found == [("opencode:msg_019cbd7b28380030dana1", "compaction")]
