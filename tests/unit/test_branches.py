"""Git branch and repository attribution: what each parser reads, and the sums per branch.

A request is booked to the branch its own log line names (Claude Code writes the branch
checked out on every line, so a session can change branch midway), else to the branch of the
line it answers; an empty or absent branch is the row "(no branch)".
"""

from __future__ import annotations

import json
from datetime import UTC
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sniff.analyses.cost.branches import NO_BRANCH, NO_REPOSITORY, attribute
from sniff.analyses.cost.summary import summarize
from sniff.cli import app
from sniff.ingest.formats.claude_code import reader as claude_code
from sniff.ingest.formats.codex.reader import Reader
from sniff.ingest.index import rows as index_rows
from sniff.ingest.parquet_in import read_export
from sniff.logs import load
from sniff.model import Request
from tests.conftest import SAMPLE_LOGS, Lines
from tests.unit.test_codex_activity import Rollout
from tests.unit.test_index import CODEX_RECORDS, CODEX_ROLLOUT, append, settle

WEBSHOP = "webshop.jsonl"


def turn(
    n: int, parent: str | None, branch: str | None, answered_on: str | None = None
) -> list[dict[str, Any]]:
    """A user prompt on `branch` (None: a 1.0.x line without the field) and its response,
    whose lines name `answered_on` (None: `branch` too)."""
    user = Lines.user(f"u{n}", parent, f"2026-02-02T10:{n:02d}:00Z", f"Step {n}.")
    answer = Lines.assistant(
        f"msg_{n}", f"a{n}", f"u{n}", f"2026-02-02T10:{n:02d}:05Z",
        Lines.usage(10 * n, read=1_000 * n, write=100, output=n),
    )  # fmt: skip
    for line in (user, answer):
        line.pop("gitBranch")
        if branch is not None:
            line["gitBranch"] = branch
    if answered_on is not None:
        answer["gitBranch"] = answered_on
    return [user, answer]


def transcript(folder: Path, turns: list[list[dict[str, Any]]]) -> Path:
    lines = [line for pair in turns for line in pair]
    return Lines.write(folder / "projects" / "-home-dana-src-webshop" / WEBSHOP, lines)


def requests(*paths: Path) -> list[Request]:
    return sorted(load(list(paths), use_index=False).requests, key=lambda r: r.key)


def test_a_session_that_changes_branch_is_booked_per_request(tmp_path: Path) -> None:
    path = transcript(
        tmp_path,
        [turn(1, None, "main"), turn(2, "a1", "feature/cache"), turn(3, "a2", "main")],
    )
    found = requests(path)
    assert [r.git_branch for r in found] == ["main", "feature/cache", "main"]
    rows = {row.key: row for row in attribute(found, "branch")}
    assert rows.keys() == {"main", "feature/cache"}
    assert (rows["main"].totals.requests, rows["main"].sessions) == (2, 1)
    assert rows["main"].totals.cache_read_tokens == 4_000
    assert rows["main"].totals.input_tokens == 40
    assert rows["feature/cache"].totals.cache_read_tokens == 2_000
    assert rows["feature/cache"].sessions == 1  # the same session, in both rows


def test_an_empty_or_absent_branch_is_the_no_branch_row(tmp_path: Path) -> None:
    path = transcript(tmp_path, [turn(1, None, None), turn(2, "a1", ""), turn(3, "a2", "dev")])
    found = requests(path)
    assert [r.git_branch for r in found] == [None, None, "dev"]
    rows = {row.key: row.totals.requests for row in attribute(found, "branch")}
    assert rows == {NO_BRANCH: 2, "dev": 1}
    assert [row.key for row in attribute(found, "repo")] == [NO_REPOSITORY]


def test_a_response_naming_no_branch_takes_the_branch_of_the_line_it_answers(
    tmp_path: Path,
) -> None:
    turns = [turn(1, None, "dev", answered_on=""), turn(2, "a1", "", answered_on="")]
    path = transcript(tmp_path, turns)
    assert [r.git_branch for r in requests(path)] == ["dev", None]


def test_rows_come_by_cost_and_an_unknown_grouping_is_refused(tmp_path: Path) -> None:
    path = transcript(tmp_path, [turn(1, None, "small"), turn(9, "a1", "big")])
    found = requests(path)
    assert [row.key for row in attribute(found, "branch")] == ["big", "small"]
    with pytest.raises(ValueError, match="unknown attribution"):
        attribute(found, "commit")


def test_codex_books_its_requests_to_session_meta_git() -> None:
    found = requests(CODEX_ROLLOUT)
    assert found and {(r.git_branch, r.repository) for r in found} == {
        ("metrics-cache-ratio", "git@github.com:dana/tilesrv.git")
    }
    assert {(r.git_branch, r.repository) for r in requests(CODEX_RECORDS)} == {
        ("main", "git@github.com:dana/notes-cli.git")
    }


def test_a_forked_rollout_keeps_its_own_git_not_its_parents() -> None:
    rollout = Rollout()
    rollout.lines[0]["payload"]["git"] = {"branch": "fix", "repository_url": "git@h:d/t.git"}
    parent = {"id": "parent-session", "git": {"branch": "main", "repository_url": "other"}}
    rollout.add("session_meta", parent)
    rollout.call("c1")
    rollout.lines.insert(1, rollout.lines.pop(2))  # the parent's meta right after the child's
    data = "".join(json.dumps(line) + "\n" for line in rollout.lines).encode()
    reader = Reader("rollout.jsonl", "")
    reader.feed(data)
    responses = reader.result().responses
    assert responses and {(r.git_branch, r.repository) for r in responses} == {
        ("fix", "git@h:d/t.git")
    }


def test_a_rollout_without_git_names_no_branch() -> None:
    rollout = Rollout()
    rollout.call("c1")
    data = "".join(json.dumps(line) + "\n" for line in rollout.lines).encode()
    reader = Reader("rollout.jsonl", "")
    reader.feed(data)
    assert [(r.git_branch, r.repository) for r in reader.result().responses] == [(None, None)]


def test_the_export_keeps_branch_and_repository_and_older_exports_read_none(
    tmp_path: Path,
) -> None:
    logs = [transcript(tmp_path / "logs", [turn(1, None, "main"), turn(2, "a1", "")])]
    logs.append(CODEX_ROLLOUT)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["export", *map(str, logs), "-o", str(out)])
    assert result.exit_code == 0, result.output
    before = {(r.key, r.git_branch, r.repository) for r in requests(*logs)}
    back = read_export(str(out)).responses
    assert {(r.key, r.git_branch, r.repository) for r in back} == before
    assert ("main", None) in {(r.git_branch, r.repository) for r in back}
    for file in (out / "requests").rglob("*.parquet"):  # as exports were before the columns
        table = pq.read_table(file)
        pq.write_table(table.drop_columns(["git_branch", "repository"]), file)
    older = read_export(str(out)).responses
    assert len(older) == len(before)
    assert {(r.git_branch, r.repository) for r in older} == {(None, None)}


@pytest.mark.parametrize("by", ["branch", "repo"])
def test_the_bundled_logs_book_every_request_once(by: str) -> None:
    found = load([SAMPLE_LOGS], use_index=False).requests
    whole = summarize(found, UTC).totals
    rows = attribute(found, by)
    assert len(rows) > 2
    assert sum(row.totals.requests for row in rows) == whole.requests
    assert sum(row.totals.total_tokens for row in rows) == whole.total_tokens
    assert sum(row.totals.cost_usd for row in rows) == pytest.approx(whole.cost_usd, abs=1e-9)


def by_branch(folder: Path, *options: str) -> list[dict[str, Any]]:
    arguments = ["sessions", "--by", "branch", "--json", str(folder), *options]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    rows: list[dict[str, Any]] = json.loads(result.stdout)["rows"]
    return rows


@pytest.mark.parametrize("window", [4096, 1])
def test_a_grown_transcript_books_its_branches_as_a_whole_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    """The kept reader resumes with the branches of its window; a response naming none whose
    prompt is older than the window has the file read whole."""
    monkeypatch.setattr(index_rows, "STATE_MIN_BYTES", 0)
    monkeypatch.setattr(claude_code, "WINDOW_RECORDS", window)
    prompt, answer = turn(3, "a2", "dev", answered_on="")
    notes = [
        {"type": "system", "subtype": "informational", "uuid": f"s{n}", "parentUuid": parent,
         "timestamp": f"2026-02-02T10:03:0{n}Z", "gitBranch": "dev", "content": "hook ran"}
        for n, parent in ((1, "u3"), (2, "s1"))
    ]  # fmt: skip
    path = transcript(tmp_path, [turn(1, None, "main"), turn(2, "a1", "dev"), [prompt, *notes]])
    settle(path)
    assert [row["branch"] for row in by_branch(tmp_path)] == ["dev", "main"]
    append(path, [answer])
    settle(path)
    grown = by_branch(tmp_path)
    assert grown == by_branch(tmp_path, "--no-index")
    assert {row["branch"]: row["requests"] for row in grown} == {"dev": 2, "main": 1}
