"""sniff's writes to a user's files other than exports under faults: `sniff report -o FILE`,
the default `sniff-report.<format>`, standard output redirected to a file. A full disk, Ctrl-C
while it writes, a read-only folder: each time one line and exit 2 (or the interrupt), an
earlier report kept as it was, and no empty or partial file left. A device or a link given as
`-o` stays what it is."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.cli.commands import report as report_command
from tests.conftest import REPO, SAMPLE_LOGS
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


FULL = Path("/dev/full")
"""A device every write to which fails with ENOSPC, as on a full disk (Linux)."""


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", [["scan", "--json"], ["report", "-f", "md"]])
def test_standard_output_on_a_full_disk_is_one_line(command: list[str]) -> None:
    with FULL.open("wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "sniff", *command, str(SAMPLE_LOGS / "claude-code")],
            stdout=full, stderr=subprocess.PIPE, text=True, timeout=120, cwd=REPO,
        )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr == "sniff: error: cannot write the output: No space left on device\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")
def test_a_report_to_a_pipe_writes_into_it_and_leaves_it_a_pipe(tmp_path: Path) -> None:
    """As `-o /dev/stdout` or `-o /dev/null`: written to, never replaced by a file (a pipe in a
    test folder stands for them, so a regression cannot replace a device of the machine)."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()
    code, stderr = report("-o", str(pipe), "-f", "md")
    reader.join(timeout=10)
    if reader.is_alive():  # it was not opened for writing: let the reader go
        with contextlib.suppress(OSError):  # no reader any more (ENXIO): it went meanwhile
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(timeout=10)
    assert code == 0, stderr
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert received and received[0].startswith(b"#")


def test_a_report_through_a_link_replaces_the_file_it_names_with_its_mode(tmp_path: Path) -> None:
    real, link = tmp_path / "real.md", tmp_path / "link.md"
    real.write_bytes(EARLIER)
    real.chmod(0o640)
    link.symlink_to(real)
    code, stderr = report("-o", str(link), "-f", "md")
    assert code == 0, stderr
    assert link.is_symlink() and link.resolve() == real
    assert real.read_text().startswith("#")
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert sorted(path.name for path in tmp_path.iterdir()) == ["link.md", "real.md"]
