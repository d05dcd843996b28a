"""`sniff sessions --by branch|repo`: one row per git branch or repository, text and JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.unit.test_branches import transcript, turn
from tests.unit.test_index import CODEX_RECORDS, CODEX_ROLLOUT

WIDE = {"COLUMNS": "200"}


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=WIDE)


def logs(folder: Path) -> list[str]:
    """A Claude Code session that changes branch (and names none once), and two rollouts."""
    claude = transcript(
        folder, [turn(1, None, "main"), turn(2, "a1", "feature/cache"), turn(3, "a2", "")]
    )
    return [str(claude), str(CODEX_ROLLOUT), str(CODEX_RECORDS)]


def rows(*args: str) -> list[dict[str, Any]]:
    result = run("sessions", "--json", *args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"by", "rows", "warnings"}
    found: list[dict[str, Any]] = data["rows"]
    return found


def test_by_branch_json_books_each_request_to_its_branch(tmp_path: Path) -> None:
    listed = rows("--by", "branch", *logs(tmp_path))
    found = {row["branch"]: row for row in listed}
    assert set(found) == {"main", "feature/cache", "(no branch)", "metrics-cache-ratio"}
    claude = [found[key] for key in ("feature/cache", "(no branch)")]
    assert [(row["requests"], row["sessions"]) for row in claude] == [(1, 1), (1, 1)]
    assert found["feature/cache"]["cache_read_tokens"] == 2_000
    assert found["(no branch)"]["input_tokens"] == 30
    assert found["main"]["sessions"] == 2  # the Claude session and the notes-cli rollout
    costs = [row["cost_usd"] for row in listed]
    assert all(cost is not None and cost > 0 for cost in costs)
    assert costs == sorted(costs, reverse=True)  # dearest first


def test_by_repo_json_has_the_rollouts_repositories_and_no_repository(tmp_path: Path) -> None:
    found = {row["repository"]: row["requests"] for row in rows("--by", "repo", *logs(tmp_path))}
    assert found.pop("(no repository)") == 3  # Claude Code's transcripts name none
    assert set(found) == {"git@github.com:dana/tilesrv.git", "git@github.com:dana/notes-cli.git"}


def test_by_branch_sorts_by_requests_and_limits(tmp_path: Path) -> None:
    found = rows("--by", "branch", "--sort", "requests", "-n", "2", *logs(tmp_path))
    assert len(found) == 2
    assert found[0]["requests"] >= found[1]["requests"]


def test_by_branch_table_names_every_branch_and_says_how_it_books(tmp_path: Path) -> None:
    result = run("sessions", "--by", "branch", *logs(tmp_path))
    assert result.exit_code == 0, result.output
    for name in ("Cost by git branch", "main", "feature/cache", "(no branch)", "sessions"):
        assert name in result.stdout
    assert "booked to the branch its own log line names" in result.stdout


@pytest.mark.parametrize(
    ("args", "named"),
    [(["--by", "commit"], "'commit'"), (["--by", "branch", "--sort", "start"], "'start'")],
    ids=["by", "sort"],
)
def test_a_bad_by_or_sort_is_one_line_and_exit_2(tmp_path: Path, args: list[str], named: str):
    result = run("sessions", *args, *logs(tmp_path))
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert named in lines[0] and "--" in lines[0]
    assert result.stdout == ""


def test_the_report_has_the_branch_table_of_sessions_by_branch(tmp_path: Path) -> None:
    paths = logs(tmp_path)
    expected = rows("--by", "branch", *paths)
    report = run("report", *paths, "--json", "--tz", "UTC")
    assert report.exit_code == 0, report.output
    assert json.loads(report.stdout)["by_branch"] == expected
    markdown = run("report", *paths, "-f", "md", "--tz", "UTC")
    section = markdown.stdout.split("## Cost by git branch", 1)[1].split("\n## ", 1)[0]
    cells = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| branch")
    ]
    assert [(row[0], int(row[1]), int(row[2])) for row in cells] == [
        (row["branch"], row["requests"], row["sessions"]) for row in expected
    ]


def test_a_redacted_report_names_no_branch_but_keeps_its_figures(tmp_path: Path) -> None:
    paths = logs(tmp_path)
    result = run("report", *paths, "--json", "--redact", "--tz", "UTC")
    assert result.exit_code == 0, result.output
    redacted = json.loads(result.stdout)["by_branch"]
    plain = rows("--by", "branch", *paths)
    assert [row["branch"] for row in redacted if not row["branch"].startswith("branch-")] == [
        "(no branch)"
    ]
    assert "feature/cache" not in result.stdout and "metrics-cache-ratio" not in result.stdout
    assert [row["cost_usd"] for row in redacted] == [row["cost_usd"] for row in plain]
