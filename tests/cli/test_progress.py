"""Progress on long work: counted where files are read (in every worker process), drawn on a
terminal only, never with --json, --no-progress, into a pipe or under a test runner."""

from __future__ import annotations

import io
import os
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import sniff.cli.progress as shown_progress
from sniff.cli import app
from sniff.ingest import progress
from sniff.ingest.files.discover import expand
from sniff.ingest.files.log_formats import parse_source
from sniff.ingest.index.indexed import IndexedFiles, fingerprint
from sniff.ingest.index.store import IndexStore
from sniff.ingest.parallel import map_files
from tests.conftest import SAMPLE_LOGS

CLAUDE_CODE = SAMPLE_LOGS / "claude-code"


def run(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(arg) for arg in args])


@pytest.fixture
def screen(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """A terminal for the progress bar (what it draws lands here), with no delay."""
    drawn = io.StringIO()
    monkeypatch.setattr(shown_progress, "DELAY_SECONDS", 0.0)
    monkeypatch.setattr(shown_progress, "_terminal", lambda stream: True)
    monkeypatch.setattr(shown_progress, "_piped", lambda stream: False)
    console = Console(file=drawn, force_terminal=True, width=160, color_system=None)
    monkeypatch.setattr(shown_progress, "_terminal_console", lambda: nullcontext(console))
    return drawn


@pytest.mark.parametrize(
    "command",
    [["scan"], ["sessions"], ["cache"], ["cache", "--breaks"], ["agents"], ["latency"],
     ["report", "-f", "md"]],
    ids=" ".join,
)  # fmt: skip
def test_a_terminal_sees_files_megabytes_and_requests(
    screen: io.StringIO, command: list[str]
) -> None:
    result = run(*command, CLAUDE_CODE, "--no-index")
    assert result.exit_code == 0, result.output
    drawn = screen.getvalue()
    files = len(expand([CLAUDE_CODE]))
    assert f"{files} files" in drawn and " MB" in drawn and "requests" in drawn, drawn
    assert drawn not in result.stdout and "requests read" not in result.stderr


def test_lint_on_logs_shows_progress_too(screen: io.StringIO) -> None:
    result = run("lint", CLAUDE_CODE)  # transcripts hold usage only: read as scan reads them
    assert result.exit_code in (0, 1), result.output
    assert "files" in screen.getvalue()


@pytest.mark.parametrize("flag", ["--no-progress", "--json"])
def test_no_progress_and_json_draw_nothing(screen: io.StringIO, flag: str) -> None:
    for command in (["scan"], ["sessions"], ["cache", "--breaks"], ["report", "-o", "-"]):
        result = run(*command, CLAUDE_CODE, "--no-index", flag)
        assert result.exit_code == 0, result.output
    assert screen.getvalue() == ""


def test_a_test_runner_is_no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shown_progress, "DELAY_SECONDS", 0.0)
    result = run("scan", CLAUDE_CODE, "--no-index")
    assert result.exit_code == 0 and result.stderr == ""


def test_a_pipe_on_stdout_means_no_progress(tmp_path: Path) -> None:
    reading, writing = os.pipe()
    try:
        with os.fdopen(writing, "w", closefd=False) as pipe:
            assert shown_progress._piped(pipe)
    finally:
        os.close(reading)
        os.close(writing)
    with (tmp_path / "out.txt").open("w") as file:
        assert not shown_progress._piped(file)  # `sniff report > r.html` still shows it
    assert shown_progress._piped(io.StringIO())  # no descriptor: taken for a pipe


def test_quick_work_shows_nothing() -> None:
    drawn = io.StringIO()
    console = Console(file=drawn, force_terminal=True)
    with shown_progress.shown(True, console=console, delay=5.0):
        pass
    assert drawn.getvalue() == ""


def test_workers_count_what_they_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sniff.ingest.parallel.PARALLEL_MIN_BYTES", 0)
    files = expand([SAMPLE_LOGS])
    with progress.watched() as reading:
        results = map_files(parse_source, files, workers=2)
        now = reading()
    assert now == progress.Reading(
        planned_files=len(files),
        planned_bytes=sum(file.size for file in files),
        files=len(files),
        bytes=sum(file.size for file in files),
        requests=sum(len(result.responses) for result in results),
    )
    assert now.requests > 0


def test_files_the_index_knows_are_not_read_again(tmp_path: Path) -> None:
    files = expand([CLAUDE_CODE])
    store = IndexStore.open(tmp_path, fingerprint())
    assert store is not None
    try:
        with progress.watched() as reading:
            IndexedFiles(files, store, roots=[str(CLAUDE_CODE)])
            first = reading()
        with progress.watched() as reading:
            IndexedFiles(files, store, roots=[str(CLAUDE_CODE)])
            second = reading()
    finally:
        store.close()
    assert first.planned_files == first.files == len(files) and first.requests > 0
    assert second == progress.Reading()


def test_counting_unwatched_costs_nothing_and_keeps_nothing() -> None:
    progress.read(100, 3)
    with progress.watched() as reading:
        assert reading() == progress.Reading()


def test_the_bar_reads_reading_then_analysing() -> None:
    reading = shown_progress._fields(progress.Reading(10, 5_000_000, 4, 2_000_000, 120))
    assert reading["description"] == "reading logs" and reading["completed"] == 2_000_000
    assert reading["counts"] == "4/10 files · 2.0/5.0 MB · 120 requests"
    analysing = shown_progress._fields(progress.Reading(10, 5_000_000, 10, 5_000_000, 300))
    assert analysing["description"] == "analysing" and analysing["total"] is None
    assert analysing["counts"] == "10 files · 5.0 MB · 300 requests read"
    assert shown_progress._fields(progress.Reading())["counts"] == ""  # all from the index
