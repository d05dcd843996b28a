"""`sniff lint` reads logs as every other command does: with no path, the logs in the usual
places; `--no-index` parses them without the on-disk index."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SAMPLE_LOGS, SHARED_SAMPLES, needs_shared


def lint_json(*args: str | Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["lint", "--json", *map(str, args)])
    assert result.exit_code in (0, 1), result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def test_no_paths_lints_the_logs_in_the_usual_places() -> None:
    projects = Path(os.environ["HOME"]) / ".claude" / "projects"  # the test's own empty home
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", projects)
    found = lint_json("--no-index")
    assert found == lint_json(projects, "--no-index")
    assert found["files"] > 0


def test_no_index_touches_no_index() -> None:
    lint_json(SAMPLE_LOGS / "claude-code", "--no-index")
    assert not (Path(os.environ["SNIFF_CACHE_DIR"]) / "index.sqlite3").exists()


@needs_shared
def test_the_harness_own_calls_are_no_errors_of_the_users_prompts() -> None:
    trace = SHARED_SAMPLES / "claude-trace-dev" / "apps" / "claude-trace" / "test"
    found = lint_json(trace / "test-traffic.jsonl")["findings"]
    assert [f for f in found if f["severity"] == "error"] == []
    helpers = [f for f in found if "the harness's own call" in f["message"]]
    assert helpers and {f["severity"] for f in helpers} == {"info"}
    assert any("a compaction replaced the history" in f["message"] for f in found)
