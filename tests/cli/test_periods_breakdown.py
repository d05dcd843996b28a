"""`sniff daily|weekly|monthly --breakdown model|harness|project`, the total-tokens column,
and the sessions an agent logged only as totals (Droid's), in the table and the JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.analyses.cost import periods as periods_analysis
from sniff.cli import app
from sniff.cli.commands import periods as periods_command
from tests.conftest import SAMPLE_LOGS, Lines

runner = CliRunner()
COMMANDS = {"daily": "day", "weekly": "week", "monthly": "month"}
KEYS = {"model": "breakdown", "harness": "by_harness", "project": "by_project"}
INTS = ("requests", "input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
        "cache_write_1h_tokens", "output_tokens", "reasoning_tokens", "prompt_tokens",
        "total_tokens", "unpriced_requests", "session_totals")  # fmt: skip
DROID = SAMPLE_LOGS / "droid"


def run(*arguments: str) -> Any:
    result = runner.invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def table(*arguments: str, columns: int = 80) -> str:
    result = runner.invoke(app, list(arguments), env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("by", ["harness", "project"])
def test_a_breakdowns_rows_add_up_to_their_period(command: str, by: str) -> None:
    rows = run(command, str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", by)[command]
    assert any(len(row[KEYS[by]]) > 1 for row in rows)
    for row in rows:
        parts = row[KEYS[by]]
        assert "breakdown" not in row  # the models' key is the models' alone
        assert len({part[by] for part in parts}) == len(parts)
        for name in INTS:
            assert sum(part[name] for part in parts) == row[name], (row[COMMANDS[command]], name)
        costs = [part["cost_usd"] or 0.0 for part in parts]
        assert sum(costs) == pytest.approx(row["cost_usd"] or 0.0, abs=1e-5)
        assert costs == sorted(costs, reverse=True)  # dearest first


def test_a_harness_row_is_the_period_of_that_harness_alone() -> None:
    rows = run("monthly", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", "harness")["monthly"]
    month = next(row for row in rows if len(row["by_harness"]) > 2)
    for part in month["by_harness"]:
        alone = run("monthly", str(SAMPLE_LOGS), "--tz", "UTC", "--harness", part["harness"])
        [same] = [row for row in alone["monthly"] if row["month"] == month["month"]]
        assert {name: same[name] for name in INTS} == {name: part[name] for name in INTS}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_b_alone_is_breakdown_model_and_so_is_breakdown_alone(command: str) -> None:
    model = run(command, str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", "model")
    assert run(command, "-b", str(SAMPLE_LOGS), "--tz", "UTC") == model
    assert run(command, str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown") == model
    assert all(row["breakdown"] for row in model[command])
    assert not {"by_harness", "by_project"} & model[command][0].keys()
    wide = ("--tz", "UTC", str(SAMPLE_LOGS))
    assert table(command, "-b", *wide) == table(command, *wide, "--breakdown", "model")


def test_the_table_shows_a_row_per_harness_and_per_project_under_each_period() -> None:
    harnesses = table("monthly", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", "harness",
                      columns=120)  # fmt: skip
    assert "└ droid" in harnesses and "└ claude-code" in harnesses
    assert "└ claude-sonnet" not in harnesses  # harnesses, not models
    projects = table("monthly", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", "project",
                     columns=120)  # fmt: skip
    assert "└ src/harbor-cli" in projects and "/home/dana" not in projects


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ("--breakdown", "agent"),
            "--breakdown must be one of model, harness, project, machine, user, not 'agent'",
        ),
        (("--breakdown", "Model"), "not 'Model'"),
    ],
)
def test_a_bad_breakdown_is_one_line_and_exit_2(options: tuple[str, ...], message: str) -> None:
    result = runner.invoke(app, ["weekly", str(SAMPLE_LOGS), *options])
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_breakdown_alone_before_a_path_leaves_the_path_a_path() -> None:
    """`-b PATH` and `--breakdown PATH` worked as flags: an existing path is no value."""
    expected = run("daily", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", "model")
    assert run("daily", "--breakdown", str(SAMPLE_LOGS), "--tz", "UTC") == expected
    assert run("daily", "-b", "harness", str(SAMPLE_LOGS), "--tz", "UTC") == run(
        "daily", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown=harness"
    )


def test_the_commands_breakdowns_are_the_analysis_ones() -> None:
    found = (*periods_analysis.BREAKDOWNS, *periods_analysis.LABELLED)
    assert found == periods_command.BREAKDOWNS


def cells(output: str, header: str) -> list[list[str]]:
    """The table's rows as cells, keyed by the header line's names (`└ name` one cell)."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [header])
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        rows.append(re.split(r"\s{2,}", line.strip().replace("└ ", "└")))
    return [re.split(r"\s{2,}", lines[start].strip()), *rows]


def tokens(cell: str) -> int:
    return int(cell.replace(",", ""))


def test_total_column_is_the_sum_of_the_token_columns(tmp_path: Path) -> None:
    """Counts under 10,000 are printed whole, so the sum can be read off the table."""
    Lines.write(
        tmp_path / "projects" / "-home-dana-src-webshop" / f"{Lines.SESSION}.jsonl",
        [
            Lines.user("u1", None, "2026-03-10T09:00:00Z"),
            Lines.assistant("m1", "a1", "u1", "2026-03-10T09:00:05Z",
                            Lines.usage(input=120, read=0, write=2_000, output=50)),
            Lines.user("u2", "a1", "2026-03-10T09:01:00Z"),
            Lines.assistant("m2", "a2", "u2", "2026-03-10T09:01:05Z",
                            Lines.usage(input=7, read=2_000, write=300, output=1_400)),
            Lines.user("u3", "a2", "2026-03-11T09:01:00Z"),
            Lines.assistant("m3", "a3", "u3", "2026-03-11T09:01:05Z",
                            Lines.usage(input=3, read=2_300, write=10, output=9)),
        ],
    )  # fmt: skip
    headers, *rows = cells(table("daily", str(tmp_path), "--tz", "UTC", "-b", columns=400), "day")
    assert headers[-5:] == ["read", "total", "hit", "cost", "saved"]
    column = {name: headers.index(name) for name in ("input", "output", "write", "read", "total")}
    assert len(rows) == 5  # two days, each its model, and the total
    for row in rows:
        parts = [tokens(row[column[name]]) for name in ("input", "output", "write", "read")]
        assert sum(parts) == tokens(row[column["total"]]), row
    assert rows[-1][column["total"]] == f"{120 + 2_050 + 7 + 2_000 + 300 + 1_400 + 2_322:,}"
    for row in run("daily", str(tmp_path), "--tz", "UTC")["daily"]:
        assert row["total_tokens"] == row["prompt_tokens"] + row["output_tokens"]


@pytest.mark.parametrize("by", ["model", "harness", "project"])
def test_at_80_columns_cost_and_total_stay(by: str) -> None:
    wide = table("daily", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", by, columns=400)
    narrow = table("daily", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown", by)
    assert max(len(line) for line in narrow.splitlines()) <= 80
    headers = cells(narrow, "day")[0]
    assert {"reqs", "total", "cost", "saved"} <= set(headers)
    dollars = re.compile(r"-?\$[\d.,]+\*?")
    assert set(dollars.findall(wide)) == set(dollars.findall(narrow))


def test_sessions_of_totals_are_counted_beside_the_requests_not_as_zero() -> None:
    output = table("daily", str(DROID), "--tz", "UTC", "--breakdown", "model", columns=120)
    headers, *rows = cells(output, "day")
    requests = [row[headers.index("reqs")] for row in rows]
    assert requests == ["0 +1", "0 +1", "0 +1", "0 +1", "0 +2"]  # two days, the total
    assert "reqs +N: and N sessions their agent logged only as totals" in output
    data = run("daily", str(DROID), "--tz", "UTC", "--breakdown")
    assert [row["session_totals"] for row in data["daily"]] == [1, 1]
    assert [part["session_totals"] for row in data["daily"] for part in row["breakdown"]] == [1, 1]
    assert "reqs +N" not in table("daily", str(SAMPLE_LOGS / "codex"), "--tz", "UTC")


def test_droids_session_without_its_folder_is_no_project_named_sessions() -> None:
    data = run("monthly", str(DROID), "--tz", "UTC", "--breakdown", "project")
    projects = {part["project"] for row in data["monthly"] for part in row["by_project"]}
    assert "sessions" not in projects and "/home/dana/src/harbor-cli" in projects
