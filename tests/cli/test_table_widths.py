"""Every command's text output at 80 and 120 columns on the bundled logs, read as a user would:
no line wider than the terminal, no number in a table cut, and every dollar amount a table
shows at 120 columns also shown at 80 (issue 31, §2: the layout rule of
`sniff.present.terminal.layout`).

A table's rows are the lines between its header's rule (`───`) and the next blank line.
"""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SAMPLE_LOGS

runner = CliRunner()

COMMANDS = [
    ["scan"],
    ["sessions"],
    ["sessions", "--by", "branch"],
    ["sessions", "--by", "repo"],
    ["daily"],
    ["daily", "-b"],
    ["weekly", "--breakdown", "harness"],
    ["monthly", "--breakdown", "project"],
    ["weekly"],
    ["monthly"],
    ["blocks"],
    ["cache"],
    ["cache", "--breaks"],
    ["agents"],
    ["commits"],
    ["lint"],
    ["latency"],
    ["latency", "--metric", "tpot"],
    ["context"],
    ["drift"],
]
RULE = re.compile(r"^\s*─[─ ]*$")
NUMBER = re.compile(r"^[-+~]?\$?\d[\d,]*(?:\.\d+)?(?:[%kMBGs]|ms)?\*?$")
"""A cell that is a number as sniff prints one: `1,204`, `93.5%`, `$0.308`, `33.94M`, `$2.1*`."""
NUMBER_END, NUMBER_START = re.compile(r"\d[.,]?$"), re.compile(r"^[.,]?\d")
DOLLARS = re.compile(r"[-+]?\$\d[\d,]*(?:\.\d+)?")


def render(command: list[str], columns: int) -> str:
    result = runner.invoke(app, [*command, str(SAMPLE_LOGS)], env={"COLUMNS": str(columns)})
    assert result.exit_code in (0, 1), result.output  # `lint` exits 1 on its findings
    return result.stdout


def table_rows(output: str) -> list[str]:
    rows: list[str] = []
    inside = False
    for line in output.splitlines():
        if RULE.match(line):
            inside = True
        elif not line.strip():
            inside = False
        elif inside:
            rows.append(line)
    return rows


def cut_in_a_number(word: str, whole: list[str]) -> bool:
    """Whether `word` was shortened through a number (`gpt-….3%` of `gpt-5.3-codex 94.3%`,
    `path/5…` of `path/59b923df4d`): wherever the lines of the whole output hold what it
    shortens, the ellipsis stands between two digits of one number."""
    if "…" not in word:
        return False
    head, _, tail = word.partition("…")
    gap = "(.+?)" if head and tail else "(.{1,2})" if tail else "(.)"
    pattern = re.compile(re.escape(head) + gap + re.escape(tail))
    found = [match.group(1) for line in whole for match in pattern.finditer(line)]
    return bool(found) and all(
        (head and splits(head, left_out)) or (tail and splits(left_out, tail)) for left_out in found
    )


def splits(before: str, after: str) -> bool:
    """Whether `before` and `after` are the two halves of one number."""
    return bool(NUMBER_END.search(before) and NUMBER_START.match(after))


def words(lines: list[str]) -> set[str]:
    return {word for line in lines for word in line.split()}


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_table_reads_whole_at_80_and_120_columns(command: list[str]) -> None:
    wide = render(command, 400)
    whole = wide.splitlines()
    known = words(whole)
    shown = {}
    for columns in (80, 120):
        output = render(command, columns)
        too_wide = [line for line in output.splitlines() if len(line) > columns]
        assert not too_wide, f"wider than {columns}: {too_wide}"
        rows = table_rows(output)
        assert rows or not table_rows(wide), "the tables are gone"
        cut = [
            word
            for word in words(rows)
            if cut_in_a_number(word, whole) or (NUMBER.match(word) and word not in known)
        ]
        assert not cut, f"numbers cut at {columns} columns: {cut}"
        shown[columns] = {match for row in rows for match in DOLLARS.findall(row)}
    assert shown[120] <= shown[80], f"dropped at 80 columns: {shown[120] - shown[80]}"
