"""How the command line names things: one project name per output kind, model names that stay
apart in a narrow terminal, and counts in the singular when there is one."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import FIRST_SAMPLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_LOGS = ROOT / "sample_logs"
PROJECT = "/home/dana/src/breaks-demo"
SHORT = "src/breaks-demo"
WIDE = {"COLUMNS": "200"}


def run(*args: str | Path, env: dict[str, str] | None = None) -> Any:
    result = CliRunner().invoke(app, [str(arg) for arg in args], env=env)
    assert result.exit_code == 0, result.output
    return result


def projects(value: Any) -> list[str]:
    """Every value of a `project` key anywhere in a JSON document."""
    if isinstance(value, dict):
        own = [value["project"]] if isinstance(value.get("project"), str) else []
        return own + [name for inner in value.values() for name in projects(inner)]
    if isinstance(value, list):
        return [name for inner in value for name in projects(inner)]
    return []


@pytest.mark.parametrize(
    "command",
    [
        ["scan", "--json"],
        ["sessions", "--json"],
        ["cache", "--json"],
        ["cache", "--breaks", "--json"],
        ["report", "-f", "json", "--by", "project"],
    ],
    ids=" ".join,
)
def test_json_names_a_project_by_its_full_name(command: list[str]) -> None:
    named = projects(json.loads(run(*command, SAMPLE_LOGS).stdout))
    assert PROJECT in named
    assert {name for name in named if name.endswith("breaks-demo")} == {PROJECT}


def test_csv_names_a_project_by_its_full_name() -> None:
    rows = list(
        csv.DictReader(
            io.StringIO(run("report", "-f", "csv", "--by", "project", SAMPLE_LOGS).stdout)
        )
    )
    assert [row["project"] for row in rows if row["project"].endswith("breaks-demo")] == [PROJECT]


@pytest.mark.parametrize(
    "command", [["scan"], ["sessions"], ["cache"], ["cache", "--breaks"]], ids=" ".join
)
def test_terminal_tables_show_the_same_short_project_name(command: list[str]) -> None:
    text = run(*command, SAMPLE_LOGS, env=WIDE).stdout
    shown = {word for word in text.split() if re.fullmatch(r"\S*breaks-demo", word)}
    assert shown == {SHORT}


def test_at_80_columns_the_two_sonnet_models_read_apart() -> None:
    text = run("scan", *FIRST_SAMPLES, env={"COLUMNS": "80"}).stdout
    rows = text[text.index("By model") : text.index("By agent")].splitlines()
    models = [row.split()[0] for row in rows if row.strip().startswith("claude-sonnet")]
    assert sorted(models) == ["claude-sonnet-4", "claude-sonnet-4-5"]
    assert all(len(row) <= 80 for row in rows)


def test_one_of_a_thing_is_counted_in_the_singular(tmp_path: Path, cc: Any) -> None:
    log = cc.write(
        tmp_path / "projects" / "-home-dana-src-webshop" / f"{cc.SESSION}.jsonl",
        [
            cc.user("u1", None, "2026-01-05T10:00:00Z"),
            cc.assistant("msg_1", "a1", "u1", "2026-01-05T10:00:04Z", cc.usage(100, 0, 3_000)),
            "not JSON",
        ],
    )
    scan = " ".join(run("scan", tmp_path, env=WIDE).stdout.split())
    assert "· 1 request from 1 file ·" in scan
    assert "1 line skipped" in scan
    assert "1 request wrote cache without saying which TTL" in scan
    assert " 1 files" not in scan and " 1 requests" not in scan
    assert "Cache simulation · policy: as logged · 1 request\n" in run("cache", log).stdout
    lint = " ".join(run("lint", log).stdout.split())
    assert lint.endswith("1 file checked: 0 errors, 0 warnings, 0 info.")
    assert "1 file, " in run("index").stdout


@pytest.mark.parametrize(
    ("count", "expected"), [(0, "0 files"), (1, "1 file"), (2, "2 files"), (1_024, "1,024 files")]
)
def test_plural_says_one_file_and_many_files(count: int, expected: str) -> None:
    from sniff.numbers import plural

    assert plural(count, "file") == expected
    assert plural(count, "info", "info").endswith(" info")
