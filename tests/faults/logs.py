"""Shared by the fault tests: logs of known totals, a scan in a process of its own, and paths
made unreadable to this process.

Why a process of its own: a scan that hangs (a FIFO read as a log) must fail its test after a
timeout, not hang the suite.
"""

from __future__ import annotations

import builtins
import errno
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import REPO, Lines

PROJECT = "-home-dana-src-webshop"
TIMEOUT = 60


def good_logs(
    root: Path, name: str = "good", responses: int = 3, project: str = PROJECT
) -> dict[str, int]:
    """A transcript of `responses` priced calls at `root/projects/<project>/<name>.jsonl`,
    dated an hour back; the totals a scan of it must show."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    for number in range(responses):
        user, reply = f"{name}-u{number}", f"{name}-a{number}"
        when = f"2026-03-02T10:{number:02d}:00.000Z"
        usage = Lines.usage(10 + number, read=2_000, write=300, output=100 + number)
        lines.append(Lines.user(user, parent, when, session=f"session-{name}"))
        lines.append(
            Lines.assistant(f"msg_{reply}", reply, user, when, usage, session=f"session-{name}")
        )
        parent = reply
    path = Lines.write(root / "projects" / project / f"{name}.jsonl", lines)
    settle(path)
    return {
        "requests": responses,
        "input_tokens": sum(10 + n for n in range(responses)),
        "output_tokens": sum(100 + n for n in range(responses)),
        "cache_read_tokens": 2_000 * responses,
    }


def with_locked(root: Path) -> tuple[dict[str, int], Path]:
    """`good_logs` and, beside them, a log of its own to make unreadable: the totals the good
    logs make, and that log."""
    expected = good_logs(root)
    good_logs(root, "locked")
    return expected, root / "projects" / PROJECT / "locked.jsonl"


def settle(path: Path, seconds_ago: int = 3_600) -> None:
    """Date a file back, as logs not written in the last seconds are (`discover.RACY_NS`)."""
    moment = (int(os.path.getmtime(path)) - seconds_ago) * 1_000_000_000
    os.utime(path, ns=(moment, moment))


def totals(report: dict[str, Any]) -> dict[str, int]:
    """The totals `good_logs` predicts, from a `sniff scan --json` report."""
    return {key: report["totals"][key] for key in ("requests", "input_tokens", "output_tokens",
                                                   "cache_read_tokens")}  # fmt: skip


def scan(*arguments: str) -> subprocess.CompletedProcess[str]:
    """`sniff scan --json ARGUMENTS` in a process of its own, killed after `TIMEOUT` seconds."""
    return subprocess.run(
        [sys.executable, "-m", "sniff", "scan", "--json", *arguments],
        cwd=REPO,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def scan_here(root: Path, *options: str) -> tuple[dict[str, Any], list[str]]:
    """`sniff scan --json` in this process (where `deny` applies), its output to a pipe as a
    script's is (answers are kept): the report and the lines on stderr."""
    done = CliRunner().invoke(app, ["scan", "--json", str(root), *options])
    assert done.exit_code == 0, done.output
    report: dict[str, Any] = json.loads(done.stdout)
    return report, done.stderr.splitlines()


def report_of(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


def deny(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> None:
    """Make `paths` unreadable to this process as `chmod 000` makes them for any user but
    root (tests may run as root): opening a file or listing a folder fails with EACCES, while
    `stat` still answers. Injected where every read starts (`os.open`, `open`, `os.scandir`),
    so the real code path meets it."""
    denied = {str(path) for path in paths}

    def guarded(real: Callable[..., Any]) -> Callable[..., Any]:
        def call(path: Any = ".", *arguments: Any, **options: Any) -> Any:
            if isinstance(path, str | Path) and str(path) in denied:
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
            return real(path, *arguments, **options)

        return call

    monkeypatch.setattr(os, "open", guarded(os.open))
    monkeypatch.setattr(os, "scandir", guarded(os.scandir))
    monkeypatch.setattr(builtins, "open", guarded(builtins.open))
