"""`sniff tui` from the command line: its help, and one clear line for a bad argument."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app

runner = CliRunner()


def test_help_names_the_keys() -> None:
    result = runner.invoke(app, ["tui", "--help"])
    assert result.exit_code == 0
    assert "Browse projects, sessions and requests" in result.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["tui", "no/such/folder"], "no such file or directory: no/such/folder"),
        (["tui", "--tz", "Mars/Olympus"], "unknown time zone 'Mars/Olympus'"),
        (["tui", "--log-format", "csv", "."], "--log-format must be one of"),
    ],
)
def test_a_bad_argument_is_one_line_and_exit_2(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0]
    assert "Traceback" not in result.output


def test_the_app_starts_over_the_given_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[object] = []
    from sniff.tui.app import SniffApp

    monkeypatch.setattr(SniffApp, "run", lambda self: started.append(self))
    result = runner.invoke(app, ["tui", "sample_logs", "--tz", "UTC"])
    assert result.exit_code == 0, result.output
    [launched] = started
    assert isinstance(launched, SniffApp)
    assert launched.workspace is not None and launched.workspace.paths == [Path("sample_logs")]
