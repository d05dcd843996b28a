"""Every help page reads cleanly at 80 columns: no line wider, no type internals (`<str>`,
`<int range> [x>=1]`), text from a docstring neither swallowed nor broken mid-sentence."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from sniff.cli import COMMANDS, app

INTERNALS = re.compile(r"<(?:str|int|float|int range|float range|text)>|\[x[<>]=?[-0-9.]+")


def help_page(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_each_help_page_fits_80_columns_and_shows_no_type_internals(command: str) -> None:
    page = help_page(*([command] if command else []))
    assert [line for line in page.splitlines() if len(line) > 80] == []
    assert INTERNALS.findall(page) == []


def test_a_docstring_paragraph_reflows_instead_of_keeping_its_line_breaks() -> None:
    words = " ".join(
        line.strip(" │") for line in help_page().splitlines() if line.startswith("│")
    ).split()
    text = " ".join(words)
    assert "hash): its message, and the requests, tokens and cost" in text  # one sentence
    assert "ended (idle for --idle minutes) or resumed as it happens" in text


def test_lint_help_shows_its_pyproject_table() -> None:
    assert "[tool.sniff.lint]" in help_page("lint")
