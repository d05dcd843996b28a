"""Special files among logs: never opened, never a hang or a flood of bytes, always named.

A FIFO named `*.jsonl` blocked a scan forever, and a link to `/dev/zero` read until memory ran
out. Each scan here runs in a process of its own with a timeout, so a hang fails the test.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.faults.logs import good_logs, report_of, scan, totals


def fifo(path: Path) -> None:
    os.mkfifo(path)


def link_to_zero(path: Path) -> None:
    path.symlink_to("/dev/zero")


def unix_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))  # the file stays when the socket closes
    server.close()


SPECIAL: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (fifo, "a FIFO"),
    "link to /dev/zero": (link_to_zero, "a character device"),
    "socket": (unix_socket, "a socket"),
}


@pytest.fixture
def short_tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with a short path: a Unix socket's path is limited to about 100 bytes."""
    return tmp_path_factory.mktemp("s")


def test_special_files_in_a_log_folder_are_skipped_and_named(short_tmp: Path) -> None:
    expected = good_logs(short_tmp)
    folder = short_tmp / "projects" / "-home-dana-src-webshop"
    made = {}
    for name, (make, kind) in SPECIAL.items():
        path = folder / f"{name.replace(' ', '-').replace('/', '')}.jsonl"
        make(path)
        made[str(path)] = kind

    for options in ((), ("--no-index",), ("--verbose",)):
        done = scan(str(short_tmp), *options)
        report = report_of(done)
        assert totals(report) == expected  # nothing good lost
        assert sorted(report["warnings"]["unreadable_files"]) == sorted(made)
        lines = done.stderr.splitlines()
        for path, kind in made.items():
            assert f"sniff: {path}: skipped, not a regular file ({kind})" in lines
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", list(SPECIAL))
def test_a_special_file_named_on_the_command_line_is_an_input_error(
    short_tmp: Path, name: str
) -> None:
    make, kind = SPECIAL[name]
    path = short_tmp / "named.jsonl"
    make(path)
    done = scan(str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"sniff: error: not a regular file or folder: {path} ({kind})\n"


def test_links_in_a_loop_never_hang_and_are_named(tmp_path: Path) -> None:
    expected = good_logs(tmp_path)
    folder = tmp_path / "projects" / "-home-dana-src-webshop"
    (folder / "back-up").symlink_to(tmp_path)  # a folder linking to its ancestor: not followed
    loop = folder / "loop.jsonl"
    loop.symlink_to(loop)  # a link to itself

    done = scan(str(tmp_path))
    report = report_of(done)
    assert totals(report) == expected
    assert report["warnings"]["unreadable_files"] == [str(loop)]
    assert f"sniff: {loop}: cannot read file: Too many levels of symbolic links" in (
        done.stderr.splitlines()
    )
