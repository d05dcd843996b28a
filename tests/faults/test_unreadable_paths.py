"""Folders and files that cannot be read: named in `warnings.unreadable_files` and in one line
on stderr each, never dropped without a word; every other log still counts exactly.

Tests here run as root, whom `chmod 000` does not stop: `deny` injects the EACCES a user would
meet where every read starts. `test_a_real_chmod_is_reported_too` does it for real when the
tests run as any other user.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.faults.logs import (
    PROJECT,
    deny,
    good_logs,
    report_of,
    scan,
    scan_here,
    totals,
    with_locked,
)

runner = CliRunner()


def two_projects(root: Path) -> tuple[dict[str, int], Path]:
    """Good logs in one project; a second project's folder, with a log of its own, to lock."""
    expected = good_logs(root)
    good_logs(root, "other", project="-home-dana-src-other")
    return expected, root / "projects" / "-home-dana-src-other"


@pytest.mark.parametrize("options", [(), ("--no-index",), ("--verbose",)])
def test_a_folder_that_cannot_be_listed_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: tuple[str, ...]
) -> None:
    expected, locked = two_projects(tmp_path)
    deny(monkeypatch, locked)
    report, errors = scan_here(tmp_path, *options)
    assert totals(report) == expected
    assert report["warnings"]["unreadable_files"] == [str(locked)]
    assert f"sniff: {locked}: cannot read folder: Permission denied" in errors


def test_a_file_that_cannot_be_opened_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected, locked = with_locked(tmp_path)
    deny(monkeypatch, locked)
    for options in ((), ("--no-index",)):
        report, errors = scan_here(tmp_path, *options)
        assert totals(report) == expected
        assert report["warnings"]["unreadable_files"] == [str(locked)]
        assert report["warnings"]["unknown_format_files"] == []
        assert errors == [f"sniff: {locked}: cannot read file: Permission denied"]


def test_an_unreadable_file_named_on_the_command_line_is_an_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, locked = with_locked(tmp_path)
    deny(monkeypatch, locked)
    done = runner.invoke(app, ["scan", str(locked)])
    assert done.exit_code == 2
    assert done.stderr == f"sniff: error: {locked}: cannot read file: Permission denied\n"


def deep_folder(root: Path, depth: int = 30) -> Path:
    """Folders nested past the path length limit (made relative to each other, as only that
    works), with a log at the bottom; the top one."""
    top = root / "deep"
    top.mkdir()
    parent = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d" * 200, dir_fd=parent)
            child = os.open("d" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=parent)
            os.close(parent)
            parent = child
        log = os.open("lost.jsonl", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=parent)
        os.write(log, b"{}\n")
        os.close(log)
    finally:
        os.close(parent)
    return top


def test_a_folder_deeper_than_the_path_limit_is_named(tmp_path: Path) -> None:
    expected = good_logs(tmp_path)
    top = deep_folder(tmp_path / "projects")
    done = scan(str(tmp_path))
    report = report_of(done)
    assert totals(report) == expected
    [deep] = report["warnings"]["unreadable_files"]
    assert deep.startswith(str(top) + "/ddd") and len(deep) >= 4_000  # where the walk stopped
    assert f"sniff: {deep}: cannot read folder: File name too long" in done.stderr.splitlines()


@pytest.mark.skipif(
    os.geteuid() == 0, reason="root reads whatever the mode: the tests above inject the error"
)
def test_a_real_chmod_is_reported_too(tmp_path: Path) -> None:
    expected, locked = two_projects(tmp_path)
    good_logs(tmp_path, "file")
    file = tmp_path / "projects" / PROJECT / "file.jsonl"
    locked.chmod(0)
    file.chmod(0)
    try:
        done = scan(str(tmp_path))
    finally:
        locked.chmod(0o755)
        file.chmod(0o644)
    report = report_of(done)
    assert totals(report) == expected
    assert sorted(report["warnings"]["unreadable_files"]) == sorted([str(locked), str(file)])
    assert len(done.stderr.splitlines()) == 2
