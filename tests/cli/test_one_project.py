"""Every command books a request to the same project: the one its log gives it, whatever its
session's other requests say (Cline's first request of a task can lack the task's folder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import AGENT_SAMPLES, SAMPLE_LOGS


def output(*args: str | Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, [*map(str, args), "--json", "--no-index"])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


@pytest.mark.parametrize(
    "logs",
    [
        SAMPLE_LOGS,
        pytest.param(
            AGENT_SAMPLES,
            marks=pytest.mark.skipif(not AGENT_SAMPLES.is_dir(), reason="no shared agent samples"),
        ),
    ],
    ids=["sample_logs", "agent-samples"],
)
def test_every_command_books_the_same_requests_to_the_same_projects(logs: Path) -> None:
    scanned = {row["project"]: row["requests"] for row in output("scan", logs)["by_project"]}
    reported = output("report", logs, "-f", "json", "--by", "project")
    assert {row["project"]: row["requests"] for row in reported["groups"]} == scanned
    # the cache simulation replays only the requests it can (no failed or rolled-up ones): no
    # project may hold more of them than the scan books to it
    simulated = {
        row["project"]: row["observed"]["requests"] for row in output("cache", logs)["by_project"]
    }
    assert {p: n for p, n in simulated.items() if n > scanned.get(p, 0)} == {}
