"""Shared by the golden tests of other agents' samples: a scan's JSON and a row's classes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app


def scan(*paths: Path, options: tuple[str, ...] = ()) -> dict[str, Any]:
    """`sniff scan --json --tz UTC` of `paths`."""
    arguments = ["scan", "--json", "--tz", "UTC", *options, *map(str, paths)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def classes(row: dict[str, Any]) -> tuple[int, ...]:
    """requests, input, cache read, all cache writes, output, reasoning."""
    return (
        row["requests"],
        row["input_tokens"],
        row["cache_read_tokens"],
        row["cache_write_5m_tokens"] + row["cache_write_1h_tokens"],
        row["output_tokens"],
        row["reasoning_tokens"],
    )


def tools(path: Path) -> dict[str, tuple[int, int]]:
    """`sniff agents`: tool → (calls, errors)."""
    result = CliRunner().invoke(app, ["agents", "--json", str(path)])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["tools"]["by_tool"]
    return {row["tool"]: (row["calls"], row["errors"]) for row in rows}
