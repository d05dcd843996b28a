"""One grammar for lists: `--limit/-n N`, `--sort KEY` and `--order asc|desc` on every command
that prints a list, over `sample_logs/`: the limit cuts the table's rows and the --json list
alike, each key orders the rows by its number, `--order` flips it, an unknown key is one line
and exit code 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app, main
from tests.conftest import SAMPLE_LOGS
from tests.planted_session import Step, bash, write_session

Rows = Callable[[dict[str, Any]], list[dict[str, Any]]]


def invoke(*args: str | Path) -> Any:
    """The command's result, wide enough that no table wraps or drops a column."""
    return CliRunner().invoke(app, [str(arg) for arg in args], env={"COLUMNS": "200"})


def listed(*args: str | Path) -> dict[str, Any]:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def table_rows(out: str, title: str) -> list[str]:
    """The rows of the table titled `title...`: the lines between its rule and a blank line."""
    lines = out.splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith(title))
    rule = next(number for number in range(start, len(lines)) if "───" in lines[number])
    rows = []
    for line in lines[rule + 1 :]:
        if not line.strip():
            break
        rows.append(line)
    return rows


def is_ordered(values: list[Any], descending: bool) -> bool:
    return values == sorted(values, reverse=descending) and len(set(map(str, values))) > 1


def sessions_of(report: dict[str, Any]) -> list[dict[str, Any]]:
    return report["sessions"]


SESSION_KEYS = {
    "cost": "cost_usd",
    "start": "start",
    "duration": "duration_seconds",
    "requests": "requests",
    "tokens": "total_tokens",
    "hit-rate": "hit_rate",
    "agents": "agents",
}
"""Each `--sort` key of a session row and the JSON field holding its number."""
CASES: list[tuple[str, list[str], Rows, dict[str, str], frozenset[str]]] = [
    ("scan", [], sessions_of, SESSION_KEYS, frozenset({"start"})),
    ("sessions", [], sessions_of, SESSION_KEYS, frozenset({"start"})),
    (
        "context",
        ["--all"],
        sessions_of,
        {"peak": "peak_tokens", "requests": "requests"},
        frozenset(),
    ),
    (
        "agents",
        [],
        lambda report: report["commands"]["rows"],
        {"cost": "cost_usd", "calls": "model_calls", "tools": "tool_calls", "time": "at"},
        frozenset({"time"}),
    ),
    (
        "blocks",
        [],
        lambda report: [block for block in report["blocks"] if not block["gap"]],
        {"start": "start", "cost": "cost_usd", "tokens": "total_tokens", "requests": "requests",
         "hit-rate": "hit_rate"},
        frozenset({"start"}),
    ),
    (
        "cache",
        [],
        lambda report: report["by_session"],
        {"cost": "cost_usd", "requests": "requests", "hit-rate": "hit_rate"},
        frozenset(),
    ),
    (
        "cache",
        ["--breaks"],
        lambda report: report["breaks"],
        {"cost": "cost_usd", "rebuilt": "rebuilt_tokens", "gap": "gap_seconds", "time": "time"},
        frozenset({"time"}),
    ),
]  # fmt: skip
SORTED = [
    pytest.param(command, mode, rows, field, key, key in ascending,
                 id=f"{command}{''.join(mode)}-{key}")
    for command, mode, rows, keys, ascending in CASES
    for key, field in keys.items()
]  # fmt: skip


def number(row: dict[str, Any], field: str) -> Any:
    """The row's value of `field` (a cache comparison's, observed)."""
    value = row["observed"][field] if "observed" in row else row[field]
    return value or 0


@pytest.mark.parametrize(("command", "mode", "rows", "field", "key", "ascending"), SORTED)
def test_each_sort_key_orders_the_json_rows_by_its_number_and_order_flips_it(
    command: str, mode: list[str], rows: Rows, field: str, key: str, ascending: bool
) -> None:
    chosen = rows(listed(command, SAMPLE_LOGS, *mode, "--sort", key))
    assert is_ordered([number(row, field) for row in chosen], descending=not ascending)
    flipped = "desc" if ascending else "asc"
    turned = rows(listed(command, SAMPLE_LOGS, *mode, "--sort", key, "--order", flipped))
    assert is_ordered([number(row, field) for row in turned], descending=ascending)


@pytest.mark.parametrize(
    ("command", "mode", "rows"),
    [pytest.param(command, mode, rows, id=command + "".join(mode))
     for command, mode, rows, _, _ in CASES],
)  # fmt: skip
def test_limit_cuts_the_json_list_to_its_first_rows(
    command: str, mode: list[str], rows: Rows
) -> None:
    whole = rows(listed(command, SAMPLE_LOGS, *mode))
    cut = rows(listed(command, SAMPLE_LOGS, *mode, "--limit", "2"))
    assert len(whole) > 2
    assert cut == whole[:2]


@pytest.mark.parametrize(
    ("command", "title"),
    [
        (["scan"], "Top sessions by"),
        (["sessions"], "Sessions by"),
        (["context", "--all"], "Context growth"),
        (["agents"], "Most expensive requests"),
        (["agents"], "Tools"),
        (["cache"], "By project"),
        (["cache"], "By session"),
        (["cache", "--breaks"], "Most expensive faults"),
    ],
)
def test_limit_cuts_the_printed_table_to_n_rows(command: list[str], title: str) -> None:
    assert len(table_rows(invoke(*command, SAMPLE_LOGS).stdout, title)) > 2
    result = invoke(*command, SAMPLE_LOGS, "-n", "2")
    assert result.exit_code == 0, result.output
    assert len(table_rows(result.stdout, title)) == 2


def test_scan_keeps_its_top_lists_lengths_and_cuts_both_to_the_limit() -> None:
    out = invoke("scan", SAMPLE_LOGS).stdout
    assert (len(table_rows(out, "Top sessions")), len(table_rows(out, "Top cache breaks"))) == (
        10,
        5,
    )
    out = invoke("scan", SAMPLE_LOGS, "--limit", "3", "--sort", "requests").stdout
    assert "Top sessions by requests" in out
    assert (len(table_rows(out, "Top sessions")), len(table_rows(out, "Top cache breaks"))) == (
        3,
        3,
    )
    report = listed("scan", SAMPLE_LOGS, "-n", "1")
    assert (len(report["sessions"]), len(report["breaks"]["top"])) == (1, 1)


def test_the_table_follows_the_sort_as_the_json_does() -> None:
    rows = table_rows(invoke("sessions", SAMPLE_LOGS, "--sort", "requests", "-n", "3").stdout,
                      "Sessions by requests")  # fmt: skip
    top = listed("sessions", SAMPLE_LOGS, "--sort", "requests", "-n", "3")["sessions"]
    assert [row["session"][:8] for row in top] == [row.split()[3] for row in rows]


def test_a_flipped_order_is_said_in_the_title() -> None:
    out = invoke("sessions", SAMPLE_LOGS, "--sort", "cost", "--order", "asc", "-n", "2").stdout
    assert "Sessions by cost, ascending" in out
    out = invoke("agents", SAMPLE_LOGS, "--sort", "time", "--order", "desc", "-n", "2").stdout
    assert "Requests by time, descending" in out


def test_blocks_keep_their_idle_gaps_only_in_time_order() -> None:
    in_time = listed("blocks", SAMPLE_LOGS, "-n", "2")["blocks"]
    assert [block["gap"] for block in in_time] == [False, True, False]
    by_cost = listed("blocks", SAMPLE_LOGS, "--sort", "cost")["blocks"]
    assert by_cost and not any(block["gap"] for block in by_cost)


def three_commits(folder: Path) -> Path:
    """Commits a (2 requests, small), b (2 requests, a large output) and c (1 request)."""
    write_session(folder, [
        Step(),
        bash("git commit -m a", "[main aaa1111] a"),
        Step(output_tokens=20_000),
        bash("git commit -m b", "[main bbb2222] b"),
        bash("git commit -m c", "[main ccc3333] c"),
    ])  # fmt: skip
    return folder


@pytest.mark.parametrize(
    ("args", "hashes"),
    [
        ([], ["aaa1111", "bbb2222", "ccc3333"]),
        (["--sort", "cost"], ["bbb2222", "aaa1111", "ccc3333"]),
        (["--sort", "tokens"], ["bbb2222", "aaa1111", "ccc3333"]),
        (["--sort", "requests", "--order", "asc"], ["ccc3333", "aaa1111", "bbb2222"]),
        (["--order", "desc"], ["ccc3333", "bbb2222", "aaa1111"]),
        (["--sort", "cost", "--limit", "2"], ["bbb2222", "aaa1111"]),
    ],
)
def test_commits_sort_and_limit_in_the_json_and_the_table(
    tmp_path: Path, args: list[str], hashes: list[str]
) -> None:
    folder = three_commits(tmp_path)
    assert [row["hash"] for row in listed("commits", folder, *args)["commits"]] == hashes
    rows = table_rows(invoke("commits", folder, *args).stdout, "Commits")
    assert [row.split()[0] for row in rows] == hashes


@pytest.mark.parametrize(
    "command",
    [["scan"], ["sessions"], ["commits"], ["context"], ["agents"], ["blocks"], ["cache"],
     ["cache", "--breaks"]],
)  # fmt: skip
def test_an_unknown_sort_key_is_one_line_and_exit_code_2(command: list[str]) -> None:
    result = invoke(*command, SAMPLE_LOGS, "--sort", "nonsense")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1
    assert "--sort" in result.stderr and "'nonsense'" in result.stderr


def test_an_order_other_than_asc_or_desc_is_one_line_and_exit_code_2() -> None:
    result = invoke("sessions", SAMPLE_LOGS, "--order", "up")
    assert (result.exit_code, len(result.stderr.splitlines())) == (2, 1)
    assert "--order must be asc or desc" in result.stderr


def test_a_limit_below_1_is_refused() -> None:
    assert invoke("scan", SAMPLE_LOGS, "--limit", "0").exit_code == 2


@pytest.mark.parametrize(
    "command", ["scan", "sessions", "commits", "context", "agents", "blocks", "cache"]
)
def test_each_help_says_the_three_options_and_no_o_for_order(command: str) -> None:
    page = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"}).stdout
    assert "--sort" in page and "--order" in page and "--limit" in page and "-n " in page
    order = next(line for line in page.splitlines() if "--order" in line)
    assert "-o " not in order


def test_statusline_help_reads_like_the_other_commands(capsys: pytest.CaptureFixture[str]) -> None:
    page = CliRunner().invoke(app, ["statusline", "--help"], env={"COLUMNS": "80"}).stdout
    assert "Usage: sniff statusline [OPTIONS]" in page and "─ Options ─" in page
    for option in ("--parts", "--plain", "--color", "--timeout", "--tz"):
        assert option in page
    assert "--refresh" not in page
    with pytest.raises(SystemExit) as done:  # the console script, which skips typer for a line
        main(["statusline", "--help"])
    assert done.value.code in (0, None)
    assert "Usage: sniff statusline [OPTIONS]" in capsys.readouterr().out


def test_agents_json_keeps_its_time_order_until_an_order_is_asked_for() -> None:
    rows = listed("agents", SAMPLE_LOGS)["commands"]["rows"]
    assert is_ordered([row["at"] for row in rows], descending=False)
    by_cost = listed("agents", SAMPLE_LOGS, "--sort", "cost")["commands"]["rows"]
    assert is_ordered([row["cost_usd"] for row in by_cost], descending=True)
