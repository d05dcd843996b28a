"""`sniff report` writing a file under faults: a full disk, Ctrl-C while it writes, a read-only
folder. Each time one line and exit 2 (or the interrupt), an earlier report kept as it was, and
no empty or partial file left, for `-o FILE` and for the default `sniff-report.<format>`."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.cli import report as report_command
from tests.conftest import SAMPLE_LOGS
from tests.faults.failing_writes import fill_disk, refuse_writes, snapshot, writable_again

runner = CliRunner()
EARLIER = b"<html>the report of last week</html>"


def report(*options: str) -> tuple[int, str]:
    arguments = ["report", str(SAMPLE_LOGS / "claude-code"), "--no-progress", *options]
    result = runner.invoke(app, arguments)
    return result.exit_code, result.stderr


def the_error(stderr: str) -> str:
    [line] = stderr.strip().splitlines()
    assert line.startswith("sniff: error: cannot write ") and "please report" not in line
    return line


@pytest.fixture
def on_a_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The current folder, with standard output a terminal: the report goes to its file."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(report_command, "_on_terminal", lambda: True)
    return tmp_path


@pytest.mark.parametrize("free", [0, 5000])
def test_a_full_disk_keeps_the_earlier_report_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free: int
) -> None:
    target = tmp_path / "report.html"
    target.write_bytes(EARLIER)
    fill_disk(monkeypatch, tmp_path, free)
    code, stderr = report("-o", str(target))
    assert code == 2
    assert "No space left on device" in the_error(stderr)
    monkeypatch.undo()
    assert snapshot(tmp_path) == {"report.html": EARLIER}


def test_ctrl_c_while_a_report_is_written_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.html"
    target.write_bytes(EARLIER)
    fill_disk(monkeypatch, tmp_path, 5000, failure=KeyboardInterrupt())
    code, _ = report("-o", str(target))
    assert code != 0
    monkeypatch.undo()
    assert snapshot(tmp_path) == {"report.html": EARLIER}


def test_the_default_report_file_on_a_full_disk_leaves_no_empty_file(
    on_a_terminal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill_disk(monkeypatch, on_a_terminal, 0)
    code, stderr = report("-f", "md")
    assert code == 2
    assert "cannot write sniff-report.md: No space left on device" in the_error(stderr)
    monkeypatch.undo()
    assert snapshot(on_a_terminal) == {}


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS])
def test_a_report_into_a_read_only_folder_is_one_line(
    on_a_terminal: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    elsewhere = on_a_terminal / "reports"
    elsewhere.mkdir()
    refuse_writes(monkeypatch, on_a_terminal, code)
    try:
        for options in (("-o", str(elsewhere / "r.csv"), "-f", "csv"), ("-f", "html")):
            exit_code, stderr = report(*options)
            assert exit_code == 2
            the_error(stderr)
    finally:
        monkeypatch.undo()
        writable_again(on_a_terminal)
    assert snapshot(on_a_terminal) == {}


def test_a_report_written_whole_replaces_the_earlier_one(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_bytes(EARLIER)
    code, stderr = report("-o", str(target), "-f", "md")
    assert code == 0, stderr
    assert target.read_text().startswith("#")
    assert [path.name for path in tmp_path.iterdir()] == ["report.md"]
