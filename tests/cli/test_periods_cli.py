"""`sniff daily`, `weekly` and `monthly`: the numbers of `sniff report --by`, and every option."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import FIRST_SAMPLES, SAMPLE_LOGS, Lines

runner = CliRunner()
COMMANDS = {"daily": "day", "weekly": "week", "monthly": "month"}
INTS = ("requests", "input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
        "cache_write_1h_tokens", "output_tokens", "reasoning_tokens",
        "unpriced_requests")  # fmt: skip
MEASURES = (*INTS, "prompt_tokens", "total_tokens", "cost_usd", "hit_rate", "savings_usd")


def run(*arguments: str) -> Any:
    result = runner.invoke(app, [*arguments, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def measures(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in MEASURES}


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "Pacific/Kiritimati"])
def test_rows_are_report_by_s(command: str, zone: str) -> None:
    by = COMMANDS[command]
    ours = run(command, str(SAMPLE_LOGS), "--tz", zone)
    report = run("report", str(SAMPLE_LOGS), "--tz", zone, "--by", by)
    assert [row[by] for row in ours[command]] == [group[by] for group in report["groups"]]
    for row, group in zip(ours[command], report["groups"], strict=True):
        assert measures(row) == measures(group), row[by]
    assert ours["totals"] == report["totals"]
    assert ours["zone"] == zone


GOLDEN = {
    "daily": (17, "2025-08-21", "2026-03-10", ("2025-08-21", 5, 0.100768)),
    "weekly": (9, "2025-08-18", "2026-03-09", ("2025-W34", 5, 0.100768)),
    "monthly": (6, "2025-08-01", "2026-03-01", ("2025-09", 18, 0.45183)),
}
"""On the first samples in UTC: periods, first and last period's first day, and one row."""


@pytest.mark.parametrize("command", list(COMMANDS))
def test_golden_figures_of_the_samples(command: str) -> None:
    data = run(command, *FIRST_SAMPLES, "--tz", "UTC")
    rows, (count, first, last, (key, requests, cost)) = data[command], GOLDEN[command]
    assert (len(rows), rows[0]["start"], rows[-1]["start"]) == (count, first, last)
    row = next(row for row in rows if row[COMMANDS[command]] == key)
    assert (row["requests"], row["cost_usd"]) == (requests, cost)
    assert (data["totals"]["requests"], data["totals"]["cost_usd"]) == (171, 7.200681)
    for name in INTS:
        assert sum(row[name] for row in rows) == data["totals"][name], name


@pytest.mark.parametrize("command", list(COMMANDS))
def test_breakdown_rows_add_up_to_their_period(command: str) -> None:
    rows = run(command, str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown")[command]
    assert any(len(row["breakdown"]) > 1 for row in rows)
    for row in rows:
        models = row["breakdown"]
        assert [model["model"] for model in models] == row["models"]
        for name in INTS:
            assert sum(model[name] for model in models) == row[name], name
        priced = [model["cost_usd"] for model in models if model["cost_usd"] is not None]
        assert sum(priced) == pytest.approx(row["cost_usd"] or 0.0, abs=1e-5)
        costs = [model["cost_usd"] or 0.0 for model in models]
        assert costs == sorted(costs, reverse=True)  # dearest first
    assert "breakdown" not in run(command, str(SAMPLE_LOGS), "--tz", "UTC")[command][0]


def test_a_models_breakdown_row_is_the_period_of_that_model_alone() -> None:
    rows = run("monthly", str(SAMPLE_LOGS), "--tz", "UTC", "--breakdown")["monthly"]
    names = {model for row in rows for model in row["models"]}
    checked = 0
    for row in rows:
        for model in row["breakdown"]:
            if any(model["model"] in other for other in names - {model["model"]}):
                continue  # --model matches a part of a name: another model would join
            alone = run("monthly", str(SAMPLE_LOGS), "--tz", "UTC", "--model", model["model"])
            month = next(item for item in alone["monthly"] if item["month"] == row["month"])
            assert measures(month) == measures(model), (row["month"], model["model"])
            checked += 1
            break
    assert checked >= 3


def test_order_desc_is_asc_reversed() -> None:
    ascending = run("daily", *FIRST_SAMPLES, "--tz", "UTC")["daily"]
    assert [row["day"] for row in ascending] == sorted(row["day"] for row in ascending)
    descending = run("daily", *FIRST_SAMPLES, "--tz", "UTC", "--order", "desc")["daily"]
    assert descending == ascending[::-1]
    assert run("daily", *FIRST_SAMPLES, "--tz", "UTC", "-o", "asc")["daily"] == ascending


@pytest.mark.parametrize(
    "options",
    [
        ("--since", "2026-02-11", "--until", "2026-02-16"),
        ("--since", "2026-02-11T12:00:00+00:00"),
        ("--project", "webshop"),
        ("--model", "sonnet"),
        ("--agent", "subagent"),
        ("--harness", "codex"),
        ("--log-format", "claude-code"),
    ],
)
def test_filters_select_what_report_selects(options: tuple[str, ...]) -> None:
    paths = FIRST_SAMPLES if "--log-format" not in options else (FIRST_SAMPLES[0],)
    ours = run("weekly", *paths, "--tz", "UTC", *options)
    report = run("report", *paths, "--tz", "UTC", "--by", "week", *options)
    assert ours["totals"] == report["totals"]
    assert ours["totals"]["requests"] > 0
    assert [measures(row) for row in ours["weekly"]] == [measures(g) for g in report["groups"]]


def test_pricing_overrides_price_the_rows(tmp_path: Path) -> None:
    prices = tmp_path / "prices.toml"
    prices.write_text(
        '[models."claude-sonnet-4-5-20250929"]\ninput_mtok = 0\noutput_mtok = 0\n'
        "cache_read_mtok = 0\ncache_write_mtok = 0\ncache_write_1h_mtok = 0\n"
    )
    plain = run("monthly", *FIRST_SAMPLES, "--tz", "UTC")
    priced = run("monthly", *FIRST_SAMPLES, "--tz", "UTC", "--pricing", str(prices))
    assert priced["totals"]["cost_usd"] < plain["totals"]["cost_usd"]
    report = run("report", *FIRST_SAMPLES, "--tz", "UTC", "--by", "month", "--pricing", str(prices))
    assert priced["totals"] == report["totals"]


def test_no_index_no_progress_and_verbose_change_no_number() -> None:
    plain = run("daily", *FIRST_SAMPLES, "--tz", "UTC")
    assert run("daily", *FIRST_SAMPLES, "--tz", "UTC", "--no-index", "--no-progress") == plain
    result = runner.invoke(app, ["daily", *FIRST_SAMPLES, "--tz", "UTC", "--verbose", "--json"])
    assert result.exit_code == 0 and json.loads(result.stdout) == plain
    assert ":" in result.stderr  # the skipped sample line, as file:line: reason


def test_an_unpriced_model_costs_none_not_zero(tmp_path: Path) -> None:
    Lines.write(
        tmp_path / "projects" / "-home-dana-src-webshop" / f"{Lines.SESSION}.jsonl",
        [
            Lines.user("u1", None, "2026-03-10T09:00:00Z"),
            Lines.assistant("m1", "a1", "u1", "2026-03-10T09:00:05Z", Lines.usage(output=50),
                            model="claude-unheard-of-9"),
            Lines.user("u2", "a1", "2026-03-10T09:01:00Z"),
            Lines.assistant("m2", "a2", "u2", "2026-03-10T09:01:05Z", Lines.usage(output=70)),
        ],
    )  # fmt: skip
    data = run("daily", str(tmp_path), "--tz", "UTC", "--breakdown")
    [row] = data["daily"]
    unknown = next(m for m in row["breakdown"] if m["model"] == "claude-unheard-of-9")
    assert (unknown["cost_usd"], unknown["savings_usd"], unknown["unpriced_requests"]) == (
        None, None, 1
    )  # fmt: skip
    assert row["cost_usd"] > 0 and row["unpriced_requests"] == 1
    assert data["warnings"]["unpriced_models"] == ["claude-unheard-of-9"]
    table = runner.invoke(app, ["daily", str(tmp_path), "--tz", "UTC", "-b"]).stdout
    assert "Unpriced models" in table and "*" in table  # the day's cost leaves one out


@pytest.mark.parametrize("command", list(COMMANDS))
def test_table_shows_the_periods_and_the_total(command: str) -> None:
    result = runner.invoke(app, [command, *FIRST_SAMPLES, "--tz", "Europe/Paris", "-b"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert f"Cost by {COMMANDS[command]} (Europe/Paris)" in text
    for header in ("reqs", "input", "output", "write", "read", "hit", "cost", "saved", "Total"):
        assert header in text
    assert "└ claude-" in text
    assert ("2025-W34 08-18" in text) == (command == "weekly")  # a week shows its Monday
    assert "$7.20" in text


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--order", "newest"), "--order must be one of asc, desc, not 'newest'"),
        (("--tz", "Mars/Olympus"), "unknown time zone"),
        (("--since", "yesterday"), "not a date or ISO date-time"),
        (("--agent", "robot"), "--agent must be one of"),
    ],
)
def test_a_user_error_is_one_line_and_exit_2(options: tuple[str, ...], message: str) -> None:
    result = runner.invoke(app, ["daily", *FIRST_SAMPLES, *options])
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_help_names_the_commands_and_their_options() -> None:
    text = runner.invoke(app, ["--help"]).stdout
    for command in COMMANDS:
        assert command in text
    own = runner.invoke(app, ["weekly", "--help"]).stdout
    for option in ("--breakdown", "--order", "--since", "--until", "--tz", "--json"):
        assert option in own


def test_o_still_means_order_here_for_one_release_and_says_so() -> None:
    old = runner.invoke(app, ["daily", *FIRST_SAMPLES, "--tz", "UTC", "-o", "desc", "--json"])
    assert old.exit_code == 0, old.output
    assert "write --order" in old.stderr and "-o is --output" in old.stderr
    assert json.loads(old.stdout) == run("daily", *FIRST_SAMPLES, "--tz", "UTC", "--order", "desc")
