"""The browser over real files: read in batches, reloaded with `r`, calm when files change."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sniff.lint
from sniff.analyses.browse import Archive
from sniff.ingest.files import discover
from sniff.logs import load
from sniff.tui import SniffApp, make_app
from sniff.tui.screens.overview import OverviewScreen
from sniff.workspace import Workspace, batches
from sniff.workspace.batches import Progress
from tests.conftest import Lines
from tests.tui.conftest import SAMPLE_LOGS, settle


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    """A copy of the sample Claude Code transcripts the test may change."""
    target = tmp_path / "projects"
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", target)
    return target


def requests_of(app_archive: object) -> int:
    return len(app_archive.dataset.requests)  # type: ignore[attr-defined]


async def test_the_overview_fills_in_batch_by_batch_to_what_scan_reads(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batches, "FIRST_BATCH_BYTES", 1)  # one file, then the rest
    monkeypatch.setattr(batches, "BATCH_BYTES", 20_000)
    shown: list[int] = []
    app = make_app(Workspace(archive, tz="UTC"))
    show = app._show

    def counting(archive_now: object, progress: Progress) -> None:
        show(archive_now, progress)  # type: ignore[arg-type]
        shown.append(requests_of(archive_now))

    app._show = counting  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.loaded
        assert len(shown) >= 3 and shown == sorted(shown)
        assert shown[-1] == len(load([archive]).requests)
        assert not app.screen.query_one("#progress").display


async def test_r_rereads_a_file_that_grew_and_drops_one_that_went(archive: Path) -> None:
    app = make_app(Workspace(archive, tz="UTC"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.archive is not None
        before = requests_of(app.archive)
        files = sorted(archive.rglob("*.jsonl"), key=lambda f: f.stat().st_size)
        gone, grown = files[-1], files[-2]
        gone.unlink()
        with grown.open("a") as handle:
            handle.write('{"truncated json line\n')  # a bad line: skipped, counted, no crash
        await pilot.press("r")
        await settle(pilot)
        fresh = load([archive])
        assert requests_of(app.archive) == len(fresh.requests) < before
        assert {r.key for r in app.archive.dataset.requests} == {r.key for r in fresh.requests}
        skipped = [i for i in app.archive.dataset.issues if i.file == str(grown)]
        assert skipped and not skipped[0].kept
        assert any("Re-read 1 changed file" in str(n.message) for n in app._notifications)
        assert isinstance(app.screen, OverviewScreen)


async def test_r_checks_the_prompts_again_only_when_files_changed(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[set[str]] = []
    real_lint = sniff.lint.lint

    def counting(paths: list[Path], *args: Any, **kwargs: Any) -> sniff.lint.LintReport:
        checked.append({str(path) for path in paths})
        return real_lint(paths, *args, **kwargs)

    monkeypatch.setattr(sniff.lint, "lint", counting)
    app = make_app(Workspace(archive, tz="UTC"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        files = sorted(archive.rglob("*.jsonl"))
        assert checked == [{str(file) for file in files}] and app.lint_findings is not None
        await pilot.press("r")  # nothing changed: the findings stand
        await settle(pilot)
        assert len(checked) == 1
        files[0].unlink()  # a file gone: its findings go with it
        await pilot.press("r")
        await settle(pilot)
        assert checked[1] == {str(file) for file in files[1:]}
        assert not any(found.file == str(files[0]) for found in app.lint_findings)
        with files[1].open("a") as handle:  # a file grown: checked again
            handle.write("\n")
        await pilot.press("r")
        await settle(pilot)
        assert len(checked) == 3


async def test_a_file_deleted_between_listing_and_reading_is_reported_not_fatal(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted(archive.rglob("*.jsonl"))
    real_expand = discover.expand

    def expand_then_delete(roots: list[Path]) -> list[discover.SourceFile]:
        listed = real_expand(roots)
        files[0].unlink(missing_ok=True)  # gone after it was listed
        return listed

    monkeypatch.setattr(discover, "expand", expand_then_delete)  # the Workspace lists the files
    app = make_app(Workspace(archive, tz="UTC"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.loaded and app.archive is not None
        assert [i.file for i in app.archive.dataset.unreadable] == [str(files[0])]


async def test_an_empty_folder_shows_the_empty_state(tmp_path: Path) -> None:
    app = make_app(Workspace(tmp_path, tz="UTC"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.loaded
        text = str(app.screen.query_one("#totals").render())
        assert "No API calls found under" in text


async def test_r_while_the_logs_are_still_read_starts_no_second_read(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batches, "FIRST_BATCH_BYTES", 1)  # one file, then the rest
    monkeypatch.setattr(batches, "BATCH_BYTES", 20_000)
    release = threading.Event()
    reads: list[int] = []
    real_batches = Workspace.batches

    def held_batches(self: Workspace) -> Iterator[Progress]:
        reads.append(1)
        for number, progress in enumerate(real_batches(self)):
            if number == 1:
                release.wait(10)  # hold the first read after its first batch
            yield progress

    monkeypatch.setattr(Workspace, "batches", held_batches)
    app = make_app(Workspace(archive, tz="UTC"))
    async with app.run_test(size=(100, 30)) as pilot:
        while app.archive is None:
            await pilot.pause(0.05)
        await pilot.press("r")
        assert any("Still reading" in str(n.message) for n in app._notifications)
        release.set()
        await settle(pilot)
        assert app.loaded and reads == [1]
        assert requests_of(app.archive) == len(load([archive]).requests)


def shown_progress(app: SniffApp) -> list[Progress]:
    """Every progress the app shows from now on."""
    shown: list[Progress] = []
    show = app._show

    def keeping(archive_now: Archive, progress: Progress) -> None:
        show(archive_now, progress)
        shown.append(progress)

    app._show = keeping  # type: ignore[method-assign,assignment]
    return shown


async def test_a_second_browser_over_unchanged_logs_parses_no_file(archive: Path) -> None:
    keys = []
    for parsed in (len(list(archive.rglob("*.jsonl"))), 0):  # the first fills the index
        app = make_app(Workspace(archive, tz="UTC"))
        shown = shown_progress(app)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            assert app.loaded and app.archive is not None
            assert shown[-1].changed == parsed and shown[-1].done
            keys.append(sorted(r.key for r in app.archive.dataset.requests))
    assert keys[0] == keys[1] == sorted(r.key for r in load([archive]).requests)


async def test_r_shows_the_request_a_grown_file_gained(archive: Path) -> None:
    grown = sorted(archive.rglob("*.jsonl"))[0]
    app = make_app(Workspace(archive, tz="UTC"))
    shown = shown_progress(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.archive is not None
        before = requests_of(app.archive)
        when = "2026-03-02T10:00:00.000Z"
        usage = Lines.usage(7, read=1_000, output=4_321)
        with grown.open("a") as handle:
            for line in (
                Lines.user("grown-u", None, when),
                Lines.assistant("msg_grown", "grown-a", "grown-u", when, usage),
            ):
                handle.write(json.dumps(line) + "\n")
        await pilot.press("r")
        await settle(pilot)
        assert shown[-1].changed == 1
        new = [r for r in app.archive.dataset.requests if r.file == str(grown)]
        assert requests_of(app.archive) == before + 1
        assert [r.usage.output_tokens for r in new if r.usage.output_tokens == 4_321] == [4_321]
