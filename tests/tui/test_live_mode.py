"""The browser's live mode: new requests appear without `r`, `w` toggles it, nothing is read
on the UI thread and nothing is read again while the files stay as they are."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from textual.pilot import Pilot

from sniff.logs import load
from sniff.tui import make_app
from sniff.workspace import Workspace
from tests.conftest import Lines
from tests.tui.conftest import SAMPLE_LOGS, settle


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    target = tmp_path / "projects"
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", target)
    return target


def _grow(archive: Path, cc: type[Lines]) -> Path:
    grown = min(archive.rglob("*.jsonl"), key=lambda f: f.stat().st_size)
    line = cc.assistant("msg_live_1", "live-1", None, "2026-03-02T10:00:05Z", cc.usage(9, 0, 0, 7))
    with grown.open("a") as handle:
        handle.write(json.dumps(line) + "\n")
    return grown


async def _until(pilot: Pilot[None], done: object, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:  # type: ignore[operator]
        await pilot.pause(0.05)


async def test_live_shows_an_appended_request_without_r(archive: Path, cc: type[Lines]) -> None:
    app = make_app(Workspace(archive, tz="UTC"), live=True, interval=0.1)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.archive is not None and app.live
        before = len(app.archive.dataset.requests)
        _grow(archive, cc)
        await _until(pilot, lambda: len(app.archive.dataset.requests) > before)  # type: ignore[union-attr]
        assert len(app.archive.dataset.requests) == before + 1 == len(load([archive]).requests)
        assert "msg_live_1" in {r.key for r in app.archive.dataset.requests}


async def test_w_toggles_live_and_unchanged_files_are_not_read_again(
    archive: Path, cc: type[Lines]
) -> None:
    app = make_app(Workspace(archive, tz="UTC"), interval=0.1)
    loads: list[int] = []
    real = app._load

    def counted() -> None:
        loads.append(1)
        real()

    app._load = counted  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert not app.live and loads == [1]  # the first read
        await pilot.press("w")
        assert app.live
        await pilot.pause(0.5)  # five checks of unchanged files
        await settle(pilot)
        assert loads == [1]
        assert app.archive is not None
        before = len(app.archive.dataset.requests)
        await pilot.press("w")  # off: a grown file waits for r
        assert not app.live
        _grow(archive, cc)
        await pilot.pause(0.5)
        await settle(pilot)
        assert len(app.archive.dataset.requests) == before
        await pilot.press("w")
        await _until(pilot, lambda: len(app.archive.dataset.requests) > before)  # type: ignore[union-attr]
        assert len(app.archive.dataset.requests) == before + 1
