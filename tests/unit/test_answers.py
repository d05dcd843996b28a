"""Kept answers (`sniff.workspace.answers`): `sniff scan` to a pipe replays its last output when
nothing it depends on changed, and reads again when anything did."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.unit.test_index import (
    append,
    index_path,
    output_of,
    scan_json,
    settle,
    transcript,
    turn,
)


def test_an_unchanged_archive_is_answered_without_reading_it(tmp_path: Path) -> None:
    transcript(tmp_path, "a", 2)
    first = scan_json(tmp_path).communicate(timeout=120)[0]
    index_path().unlink()  # a run that read anything would make a new index

    again = scan_json(tmp_path).communicate(timeout=120)[0]

    assert again == first
    assert not index_path().exists()


def test_a_grown_file_or_another_option_is_read_again(tmp_path: Path) -> None:
    path = transcript(tmp_path, "a", 2)
    before = output_of(scan_json(tmp_path))
    append(path, turn("more", 600, "a1-a2", output=777))
    settle(path)

    grown = output_of(scan_json(tmp_path))

    assert grown["totals"]["output_tokens"] == before["totals"]["output_tokens"] + 777
    assert grown == output_of(scan_json(tmp_path, "--no-index"))
    assert output_of(scan_json(tmp_path, "--tz", "Asia/Tokyo")) == output_of(
        scan_json(tmp_path, "--tz", "Asia/Tokyo", "--no-index")
    )


def test_no_answer_is_kept_while_a_file_may_still_change(tmp_path: Path) -> None:
    transcript(tmp_path, "a", 2, fresh=True)  # modified just now: within its mtime's resolution
    scan_json(tmp_path).communicate(timeout=120)
    answers = index_path().parent / "answers"
    assert not answers.exists() or not any(answers.iterdir())


def sniff_run(*arguments: str) -> subprocess.CompletedProcess[str]:
    """sniff in a process of its own, its output into a pipe."""
    return subprocess.run(
        [sys.executable, "-m", "sniff", *arguments],
        cwd=REPO, env=dict(os.environ), capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip


COMMANDS = [
    ["sessions", "--json"],
    ["agents"],
    ["cache", "--breaks", "--json"],
    ["cache"],
    ["latency", "--json"],
    ["report", "-f", "md"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_replays_its_answer_on_unchanged_logs(
    tmp_path: Path, command: list[str]
) -> None:
    transcript(tmp_path, "a", 3)
    first = sniff_run(*command, str(tmp_path))
    index_path().unlink()  # a run that read anything would make a new index

    again = sniff_run(*command, str(tmp_path))

    assert (again.stdout, again.stderr) == (first.stdout, first.stderr)
    assert first.stdout.strip()
    assert not index_path().exists()


def test_a_report_written_to_a_file_is_written_again_whole(tmp_path: Path) -> None:
    transcript(tmp_path / "logs", "a", 3)
    target = tmp_path / "report.html"
    sniff_run("report", "-o", str(target), str(tmp_path / "logs"))
    written = target.read_bytes()
    target.unlink()
    index_path().unlink()

    sniff_run("report", "-o", str(target), str(tmp_path / "logs"))

    assert target.read_bytes() == written
    assert not index_path().exists()


def test_a_command_reads_again_when_a_log_grew(tmp_path: Path) -> None:
    path = transcript(tmp_path, "a", 2)
    before = json.loads(sniff_run("sessions", "--json", str(tmp_path)).stdout)
    append(path, turn("more", 600, "a1-a2", output=777))
    settle(path)

    grown = json.loads(sniff_run("sessions", "--json", str(tmp_path)).stdout)

    [old], [new] = before["sessions"], grown["sessions"]
    assert new["requests"] == old["requests"] + 1
    assert grown == json.loads(sniff_run("sessions", "--json", "--no-index", str(tmp_path)).stdout)
