"""`sniff commits`: the table, `--by pr`, `--json`, `--limit`, the shared filters, errors."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sniff.cli import app
from tests.planted_session import Step, bash, write_session


def planted(folder: Path) -> Path:
    write_session(folder, [
        Step(),
        bash("git commit -m 'Add the parser'", "[feat abc1234] Add the parser"),
        bash("git commit -m 'Test it'", "[feat def5678] Test it"),
        bash("gh pr create --fill", "https://github.com/o/r/pull/12"),
        Step(),
    ])  # fmt: skip
    return folder


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["commits", *args], env={"COLUMNS": "160"})
    return result.exit_code, result.stdout, result.stderr


def test_the_table_lists_each_commit_and_says_what_it_counts(tmp_path: Path) -> None:
    code, out, _ = invoke(str(planted(tmp_path)), "--no-index")
    assert code == 0
    assert "abc1234" in out and "def5678" in out and "Add the parser" in out
    assert "Commits · 2 in 1 session" in out
    assert "Counts only commits made inside a session" in out
    assert "After the last commit of those sessions (in no commit): 2 requests" in out


def test_json_and_limit(tmp_path: Path) -> None:
    code, out, _ = invoke(str(planted(tmp_path)), "--json", "--no-index", "-n", "1")
    assert code == 0
    data = json.loads(out)
    assert [row["hash"] for row in data["commits"]] == ["abc1234"]
    assert data["commits"][0]["requests"] == 2
    assert data["commits"][0]["request_keys"] == ["msg_main_1", "msg_main_2"]
    assert data["pull_requests"][0]["commits"] == ["abc1234", "def5678"]
    assert data["pull_requests"][0]["requests"] == 3
    assert data["after_last_commit"]["requests"] == 2
    assert "inside a session" in data["note"]


def test_by_pr(tmp_path: Path) -> None:
    code, out, _ = invoke(str(planted(tmp_path)), "--by", "pr", "--no-index")
    assert code == 0
    assert "https://github.com/o/r/pull/12" in out and "Pull requests · 1" in out


def test_filters_apply(tmp_path: Path) -> None:
    code, out, _ = invoke(str(planted(tmp_path)), "--json", "--since", "2026-04-01", "--no-index")
    assert code == 0
    assert json.loads(out)["commits"] == []
    code, out, _ = invoke(str(planted(tmp_path)), "--project", "nowhere", "--no-index")
    assert code == 0 and "No commits found." in out


def test_a_wrong_by_is_a_user_error(tmp_path: Path) -> None:
    code, _, err = invoke(str(planted(tmp_path)), "--by", "branch")
    assert code == 2
    assert err.strip().splitlines() == [
        "sniff: error: --by must be one of commit, pr, not 'branch'"
    ]
