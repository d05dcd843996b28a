"""Helpers of the golden tests of other agents' sample logs: hand-counted calls summed into the
rows `sniff scan --json` prints, and the scan itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app

Call = tuple[int, int, int, int]
"""One call's (uncached input, cache read, output, reasoning), counted by hand."""


def summed(calls: list[Call]) -> dict[str, int]:
    """The figures of a scan's row holding exactly these calls."""
    input_tokens, read, output, reasoning = map(sum, zip(*calls, strict=True))
    return {
        "requests": len(calls),
        "input_tokens": input_tokens,
        "cache_read_tokens": read,
        "cache_write_5m_tokens": 0,
        "cache_write_1h_tokens": 0,
        "output_tokens": output,
        "reasoning_tokens": reasoning,
    }


def figures(row: dict[str, Any]) -> dict[str, int]:
    """A scan row's figures, as `summed` gives them."""
    return {key: row[key] for key in summed([(0, 0, 0, 0)])}


def run_json(*arguments: str) -> dict[str, Any]:
    """`sniff ARGUMENTS` (a command printing JSON), decoded."""
    result = CliRunner().invoke(app, list(arguments))
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def scan(folder: Path) -> dict[str, Any]:
    """`sniff scan --json --tz UTC FOLDER`."""
    return run_json("scan", "--json", "--tz", "UTC", str(folder))
