"""`sniff export`: Parquet tables that read back to the scan's totals and merge without
counting a request twice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SAMPLE_LOGS

runner = CliRunner()
PROJECTS = SAMPLE_LOGS / "claude-code" / "projects"
TOKENS = ["input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
          "cache_write_1h_tokens", "output_tokens"]  # fmt: skip


def export(target: Path, *paths: Path) -> None:
    result = runner.invoke(app, ["export", *map(str, paths), "-o", str(target)])
    assert result.exit_code == 0, result.output


def scan_totals(*paths: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["scan", *map(str, paths), "--json"])
    totals: dict[str, Any] = json.loads(result.stdout)["totals"]
    return totals


def requests_of(target: Path) -> pd.DataFrame:
    return pd.read_parquet(target / "requests").sort_values("key").reset_index(drop=True)


def test_the_requests_table_reads_back_to_the_scans_totals(tmp_path: Path) -> None:
    export(tmp_path / "out", SAMPLE_LOGS)
    table = requests_of(tmp_path / "out")
    totals = scan_totals(SAMPLE_LOGS)
    assert int(table["calls"].sum()) == totals["requests"]  # a rollup stands for its calls
    for column in TOKENS:
        assert int(table[column].sum()) == totals[column]
    assert table["cost_usd"].sum() == pytest.approx(totals["cost_usd"], abs=1e-6)
    assert table["key"].is_unique
    days = sorted(p.name for p in (tmp_path / "out" / "requests").iterdir())
    assert days and all(day.startswith("day=") for day in days)
    for name in ("sessions", "breaks", "blocks"):
        assert len(pd.read_parquet(tmp_path / "out" / name)) > 0


def test_exporting_twice_gives_the_same_rows(tmp_path: Path) -> None:
    export(tmp_path / "out", SAMPLE_LOGS)
    once = requests_of(tmp_path / "out")
    export(tmp_path / "out", SAMPLE_LOGS)
    pd.testing.assert_frame_equal(requests_of(tmp_path / "out"), once)


def test_overlapping_folders_merged_equal_one_export_of_their_union(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for name in ("-home-dana-src-webshop", "-home-dana-src-breaks-demo"):
        shutil.copytree(PROJECTS / name, first / name)
    for name in ("-home-dana-src-webshop", "-home-dana-src-tilesrv"):  # webshop in both
        shutil.copytree(PROJECTS / name, second / name)
    export(tmp_path / "merged", first)
    export(tmp_path / "merged", second)
    export(tmp_path / "union", first, second)
    merged, union = requests_of(tmp_path / "merged"), requests_of(tmp_path / "union")
    assert list(merged["key"]) == list(union["key"])
    for column in [*TOKENS, "cost_usd"]:
        assert merged[column].sum() == pytest.approx(union[column].sum())
    sessions = pd.read_parquet(tmp_path / "merged" / "sessions")
    assert len(sessions) == len(pd.read_parquet(tmp_path / "union" / "sessions"))
    assert int(sessions["requests"].sum()) == len(union)


def test_a_folder_that_is_not_an_export_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["export", str(SAMPLE_LOGS), "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert "holds no sniff export" in result.output
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_exporting_the_same_logs_again_rewrites_no_file(tmp_path: Path) -> None:
    """Files are named by their bytes: a merge that changes nothing touches nothing, so the
    index and kept answers of a scan of the export stay valid."""
    export(tmp_path / "out", SAMPLE_LOGS)

    def files() -> dict[Path, tuple[int, int]]:
        found = sorted((tmp_path / "out").rglob("*"))
        return {path: (path.stat().st_ino, path.stat().st_mtime_ns) for path in found}

    before = files()
    export(tmp_path / "out", SAMPLE_LOGS)
    assert files() == before
