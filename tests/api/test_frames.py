"""The Workspace's frames equal the command line's JSON and the Parquet export of the same logs.

Each case is a folder of logs: `sample_logs/` and the real logs of the shared samples, whose
totals must also be those `../shared/samples/EXPECTED.md` counts independently of sniff.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sniff import Workspace
from sniff.cli import app
from tests.conftest import SAMPLE_LOGS
from tests.test_shared_samples import (
    CLAUDE_TRACE,
    CODEX_ROLLOUT,
    EXPECTED,
    FOLDERS,
    LOCALPUSH,
    SHARED,
)

TOKENS = ["input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
          "cache_write_1h_tokens", "output_tokens"]  # fmt: skip

# (requests, input, cache read, cache writes, output), from EXPECTED.md
EXACT: dict[str, tuple[list[str], tuple[int, ...]]] = {
    **{
        name: (FOLDERS[name], (count, uncached, read, w5 + w1h, output))
        for name, (count, uncached, read, w5, w1h, output, _, _) in EXPECTED.items()
    },
    "claude-trace": ([CLAUDE_TRACE], (64, 5_853, 279_790, 45_598, 8_225)),
    "codex-rollout": ([CODEX_ROLLOUT], (7, 3_828, 22_912, 0, 408)),
    "localpush": ([LOCALPUSH], (485, 3_150_601, 46_689_152, 0, 223_178)),
}
CASES = ["sample_logs", *EXACT]


def paths_of(case: str) -> list[str]:
    if case == "sample_logs":
        return [str(SAMPLE_LOGS)]
    if not SHARED.is_dir():
        pytest.skip(f"shared samples not found at {SHARED}")
    return [str(SHARED / path) for path in EXACT[case][0]]


def cli(*arguments: str) -> Any:
    result = CliRunner().invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def exported(tmp_path: Path, paths: list[str], table: str) -> pd.DataFrame:
    """One table of `sniff export`, read back with pyarrow."""
    out = tmp_path / "export"
    if not out.exists():
        cli("export", *paths, "-o", str(out))
    return pq.read_table(out / table).to_pandas()


def plain(frame: pd.DataFrame, *key: str) -> pd.DataFrame:
    """The values alone, in one order: labels as objects, times in UTC, columns by name."""
    columns = {}
    for name in sorted(frame.columns):
        column = frame[name]
        if isinstance(column.dtype, pd.DatetimeTZDtype):
            column = column.dt.tz_convert("UTC")
        elif not pd.api.types.is_numeric_dtype(column) or column.dtype == bool:
            column = column.astype(object).where(column.notna(), None)
        columns[name] = column
    return pd.DataFrame(columns).sort_values(list(key)).reset_index(drop=True)


@pytest.mark.parametrize("case", CASES)
def test_the_summary_is_scans_json(case: str) -> None:
    paths = paths_of(case)
    assert Workspace(paths, tz="UTC").summary() == cli("scan", "--tz", "UTC", *paths)


@pytest.mark.parametrize("case", CASES)
def test_the_requests_add_up_to_scans_totals_and_are_the_exports(case: str, tmp_path: Path) -> None:
    paths = paths_of(case)
    frame = Workspace(paths, tz="UTC").requests()
    totals = cli("scan", "--tz", "UTC", *paths)["totals"]
    assert frame["calls"].sum() == totals["requests"]  # a rollup stands for the calls it sums
    for column in [*TOKENS, "reasoning_tokens"]:
        assert int(frame[column].sum()) == totals[column], column
    assert frame["cost_usd"].sum() == pytest.approx(totals["cost_usd"], abs=1e-6)
    prompt = frame[TOKENS[:4]].to_numpy().sum()
    assert round(frame["cache_read_tokens"].sum() / prompt, 6) == totals["hit_rate"]
    assert frame["key"].is_unique
    pd.testing.assert_frame_equal(
        plain(frame, "key"), plain(exported(tmp_path, paths, "requests"), "key")
    )


@pytest.mark.parametrize("case", [case for case in CASES if case != "sample_logs"])
def test_the_requests_hold_the_totals_expected_md_counts(case: str) -> None:
    frame = Workspace(paths_of(case)).requests()
    writes = frame["cache_write_5m_tokens"] + frame["cache_write_1h_tokens"]
    found = (len(frame), *(int(frame[c].sum()) for c in TOKENS[:2]), int(writes.sum()))
    assert (*found, int(frame["output_tokens"].sum())) == EXACT[case][1]


@pytest.mark.parametrize("case", CASES)
def test_the_sessions_are_the_sessions_commands_and_the_exports(case: str, tmp_path: Path) -> None:
    paths = paths_of(case)
    frame = Workspace(paths, tz="UTC").sessions()
    listed = {row["session"]: row for row in cli("sessions", *paths)["sessions"]}
    assert sorted(frame["session_id"]) == sorted(listed)
    for row in frame.to_dict("records"):
        shown = listed[row["session_id"]]
        assert row["project"] == shown["project"]
        assert row["start"] == pd.Timestamp(shown["start"])
        assert row["end"] == pd.Timestamp(shown["end"])
        assert row["models"].split(",") == shown["models"]
        assert len(row["agents"].split(",")) == shown["agents"]
        for column in ["requests", *TOKENS, "unpriced_requests"]:
            assert row[column] == shown[column], column
        # an unpriced session (sample_logs/kimi: no price for its model) costs None, not $0
        cost = None if pd.isna(row["cost_usd"]) else row["cost_usd"]
        assert cost == (
            None if shown["cost_usd"] is None else pytest.approx(shown["cost_usd"], abs=1e-6)
        )
    pd.testing.assert_frame_equal(
        plain(frame, "session_id"), plain(exported(tmp_path, paths, "sessions"), "session_id")
    )


def _break_of(row: dict[str, Any]) -> tuple[Any, ...]:
    gap, previous = row["gap_seconds"], row["previous_key"]
    return (
        row["request_key"], None if pd.isna(previous) else previous, row["cause"], row["fault"],
        None if pd.isna(gap) else round(gap, 3), row["expected_read_tokens"],
        row["rebuilt_tokens"], row["rebuilt_1h_tokens"],
        None if pd.isna(row["cost_usd"]) else round(row["cost_usd"], 6), row["detail"],
    )  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_the_breaks_are_cache_breaks_and_the_exports(case: str, tmp_path: Path) -> None:
    paths = paths_of(case)
    frame = Workspace(paths, tz="UTC").breaks()
    listed = cli("cache", "--breaks", "--tz", "UTC", *paths)["breaks"]
    shown = [
        (b["request"], b["previous_request"], b["cause"], b["fault"], b["gap_seconds"],
         b["expected_read_tokens"], b["rebuilt_tokens"], b["rebuilt_1h_tokens"], b["cost_usd"],
         b["detail"])
        for b in listed
    ]  # fmt: skip
    assert sorted(map(_break_of, frame.to_dict("records")), key=str) == sorted(shown, key=str)
    pd.testing.assert_frame_equal(
        plain(frame, "request_key"), plain(exported(tmp_path, paths, "breaks"), "request_key")
    )


@pytest.mark.parametrize("case", CASES)
def test_the_tool_calls_add_up_to_agents_counts(case: str) -> None:
    paths = paths_of(case)
    frame = Workspace(paths, tz="UTC").tools()
    report = cli("agents", "--tz", "UTC", *paths)
    per_tool = frame.groupby("tool", observed=True).agg(
        server=("server", "first"),
        calls=("tool_use_id", "size"),
        errors=("outcome", lambda outcome: int((outcome == "failed").sum())),
        result_tokens=("result_tokens", "sum"),
        exact=("result_tokens_exact", "sum"),
    )
    summed = {
        tool: (row.server, row.calls, row.errors, row.result_tokens, row.exact)
        for tool, row in per_tool.iterrows()
    }
    assert summed == {
        row["tool"]: (row["server"], row["calls"], row["errors"], row["result_tokens"],
                      row["result_tokens_exact_calls"])
        for row in report["tools"]["by_tool"]
    }  # fmt: skip
    assert len(frame) == report["tools"]["calls"]
    assert int((frame["outcome"] == "unknown").sum()) == report["errors"]["outcome_unknown"]
    by_project = frame.groupby(["project", "tool"], observed=True).size()
    assert {p: dict(by_project[p]) for p in by_project.index.levels[0]} == {
        project: counts for project, counts in report["tools"]["by_project"].items() if counts
    }
    assert frame["tool_use_id"].is_unique


def test_filters_select_as_the_command_lines_options_do() -> None:
    options = {"since": "2026-01-01", "agent": "main", "model": "sonnet"}
    flags = ["--since", "2026-01-01", "--agent", "main", "--model", "sonnet", "--tz", "UTC"]
    workspace = Workspace(SAMPLE_LOGS, tz="UTC", **options)
    assert workspace.summary() == cli("scan", *flags, str(SAMPLE_LOGS))
    frame = workspace.requests()
    totals = cli("scan", *flags, str(SAMPLE_LOGS))["totals"]
    calls = frame["calls"].sum()
    assert 0 < calls == totals["requests"] < Workspace(SAMPLE_LOGS).requests()["calls"].sum()
    assert set(frame["agent"]) == {"main"}
    assert all("sonnet" in model for model in frame["model"])
    assert (
        frame["started_at"].fillna(frame["ended_at"]) >= pd.Timestamp("2026-01-01", tz="UTC")
    ).all()
    breaks = cli("cache", "--breaks", *flags, str(SAMPLE_LOGS))["breaks"]
    assert sorted(workspace.breaks()["request_key"]) == sorted(b["request"] for b in breaks)
    sessions = cli("sessions", *flags, str(SAMPLE_LOGS))["sessions"]
    assert sorted(workspace.sessions()["session_id"]) == sorted(s["session"] for s in sessions)
