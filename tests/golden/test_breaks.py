"""Cache breaks on the sample logs: `sniff cache --breaks` and the breaks part of `sniff scan`.

`breaks_expected.json` lists every break in `sample_logs` but the cold starts, worked out by
reading the files (see sample_logs/README.md, "Cache breaks"): one of each cause planted in
`claude-code/projects/-home-dana-src-breaks-demo/`, and the breaks the other samples already
had. Faults and the expected compactions alike: the calls that summarise a conversation and
the first request after it. A difference here is a change in what users are told, never
something to regenerate.

Prices are the published ones, per million tokens: input, cache read, 5m write, 1h write,
output.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.analyses.cache.breaks import CAUSES
from sniff.analyses.cache.breaks import EXPECTED as EXPECTED_CAUSES
from sniff.analyses.cache.provider_word import PROVIDER_CAUSES
from sniff.cli import app
from sniff.logs import load
from sniff.model import Request, Usage
from sniff.numbers import money
from tests.conftest import FIRST_SAMPLES, needs_shared
from tests.conftest import SHARED_SAMPLES as SHARED

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_LOGS = ROOT / "sample_logs"
CLAUDE_CODE = SAMPLE_LOGS / "claude-code"
FIRST_LOGS = (*FIRST_SAMPLES, str(SAMPLE_LOGS / "prompts"))
"""The bundled logs this file's figures are of (the other agents' breaks: their golden tests)."""
DEMO = CLAUDE_CODE / "projects" / "-home-dana-src-breaks-demo"
EXPECTED: list[dict[str, str]] = json.loads(
    (Path(__file__).parent / "breaks_expected.json").read_text()
)
PRICES = {
    "claude-opus-4-6": (5.00, 0.50, 6.25, 10.00, 25.00),
    "claude-sonnet-4-5-20250929": (3.00, 0.30, 3.75, 6.00, 15.00),
    "claude-sonnet-4-20250514": (3.00, 0.30, 3.75, 6.00, 15.00),
    "claude-haiku-4-5-20251001": (1.00, 0.10, 1.25, 2.00, 5.00),
}
WIDE = {"COLUMNS": "200"}
SONNET_4 = "claude-sonnet-4-20250514"


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env=WIDE)


@cache
def as_json(*args: str) -> dict[str, Any]:
    """The JSON output of `sniff ARGS --json` (memoized: one run serves several tests)."""
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def breaks_of(path: Path | tuple[str, ...], *options: str) -> dict[str, Any]:
    paths = path if isinstance(path, tuple) else (str(path),)
    return as_json("cache", "--breaks", "--tz", "UTC", *options, *paths)


@cache
def requests_of(path: Path) -> dict[str, Request]:
    """Every request under `path`, by key, as sniff reads them."""
    return {request.key: request for request in load([path]).requests}


def relative(file: str) -> str:
    return Path(file).resolve().relative_to(SAMPLE_LOGS).as_posix()


def by_place(item: dict[str, str]) -> tuple[str, str]:
    return item["file"], item["request"]


def faults(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [found for found in report["breaks"] if found["fault"]]


def warm(report: dict[str, Any]) -> list[dict[str, Any]]:
    """Every break but the cold starts."""
    return [found for found in report["breaks"] if found["cause"] != "cold_start"]


EXPECTED_FAULTS = [item for item in EXPECTED if item["cause"] not in EXPECTED_CAUSES]


def split(found: dict[str, Any], usage: Usage) -> tuple[int, int, int]:
    """A break's rebuilt tokens as (5-minute writes, 1-hour writes, uncached input).

    What was written again is the 1-hour part first, then 5-minute writes; whatever else it
    rebuilt was paid as uncached input (the prompt shrank, and the rest could not be cached).
    """
    written = min(found["rebuilt_tokens"], usage.cache_write_tokens)
    return (
        written - found["rebuilt_1h_tokens"],
        found["rebuilt_1h_tokens"],
        found["rebuilt_tokens"] - written,
    )


def price(model: str, usage: Usage) -> float:
    uncached, read, write_5m, write_1h, output = PRICES[model]
    return (
        usage.input_tokens * uncached
        + usage.cache_read_tokens * read
        + usage.cache_write_5m_tokens * write_5m
        + usage.cache_write_1h_tokens * write_1h
        + usage.output_tokens * output
    ) / 1e6


# --- the breaks of sample_logs -----------------------------------------------------------------


def test_breaks_are_exactly_the_expected_ones_with_their_causes() -> None:
    report = breaks_of(FIRST_LOGS)
    found = [
        {"file": relative(item["file"]), "request": item["request"], "cause": item["cause"]}
        for item in warm(report)
    ]
    assert sorted(found, key=by_place) == sorted(EXPECTED, key=by_place)
    # compactions (and cold starts) are how caching works: expected, not faults
    assert all(item["fault"] == (item["cause"] not in EXPECTED_CAUSES) for item in report["breaks"])


def test_every_planted_break_is_found_once() -> None:
    report = breaks_of(DEMO)
    planted = [item for item in EXPECTED if item["file"].startswith(relative(str(DEMO)))]
    # one of each cause but those of logs that hold prompts or thinking (the shared samples'
    # golden tests find thinking_dropped), those only a provider names (test_provider_word),
    # and the compaction's summariser call
    sniffs = [c for c in CAUSES[1:] if c != "thinking_dropped" and c not in PROVIDER_CAUSES]
    assert sorted(item["cause"] for item in planted) == sorted([*sniffs, "compaction"])
    found = {(relative(item["file"]), item["request"]): item["cause"] for item in warm(report)}
    assert found == {(item["file"], item["request"]): item["cause"] for item in planted}
    # the compaction's two breaks: the summariser's call, and the first request after the
    # `compact_boundary`, which continues no request of its chain
    compaction = [item for item in report["breaks"] if item["cause"] == "compaction"]
    assert sorted(item["agent"] for item in compaction) == ["acompact-4be09d", "main"]
    assert not any(item["fault"] for item in compaction)
    # and the cold starts: the first request of each of the 5 sessions (the test-triage
    # subagent's first request wrote nothing: below haiku's minimum)
    cold = [item for item in report["breaks"] if item["cause"] == "cold_start"]
    assert [item["agent"] for item in cold] == ["main"] * 5
    assert all(item["previous_request"] is None and not item["fault"] for item in cold)


def test_planted_breaks_continue_their_chain() -> None:
    """Each planted break names the request it continues and the gap since it started."""
    rows = {item["cause"]: item for item in faults(breaks_of(DEMO))}
    gaps = {cause: row["gap_seconds"] for cause, row in rows.items()}
    assert gaps["ttl_expired"] > 300
    assert all(gap < 300 for cause, gap in gaps.items() if cause != "ttl_expired")
    assert (
        rows["resume"]["session"]
        != requests_of(DEMO)[rows["resume"]["previous_request"]].session_id
    )
    for cause, row in rows.items():
        assert row["read_tokens"] < row["expected_read_tokens"], cause


# --- the price -----------------------------------------------------------------------------------


def test_each_break_costs_its_rebuilt_tokens_at_write_or_input_price_minus_read_price() -> None:
    requests = requests_of(CLAUDE_CODE)
    checked = 0
    for found in breaks_of(CLAUDE_CODE)["breaks"]:
        uncached, read, write_5m, write_1h, _ = PRICES[found["model"]]
        five_minute, one_hour, as_input = split(found, requests[found["request"]].usage)
        cost = (
            five_minute * (write_5m - read)
            + one_hour * (write_1h - read)
            + as_input * (uncached - read)
        ) / 1e6
        assert found["cost_usd"] == pytest.approx(cost, abs=1e-6), found["request"]
        checked += 1
    # the 10 faults of claude-code/, its 4 compaction breaks and its 20 cold starts
    assert checked == 34


def test_repricing_rebuilt_tokens_as_reads_lowers_the_cost_by_the_breaks_cost() -> None:
    """The acceptance: the archive's cost with every break's rebuilt tokens read instead of
    written (or paid as input) is lower by exactly the breaks' cost."""
    scan = as_json("scan", "--tz", "UTC", str(CLAUDE_CODE))
    requests = requests_of(CLAUDE_CODE)
    assert sum(price(r.model, r.usage) for r in requests.values()) == pytest.approx(
        scan["totals"]["cost_usd"], abs=1e-5
    )
    rebuilt = {found["request"]: found for found in faults(breaks_of(CLAUDE_CODE))}
    repriced = 0.0
    for key, request in requests.items():
        usage = request.usage
        if key in rebuilt:
            five_minute, one_hour, as_input = split(rebuilt[key], usage)
            usage = Usage(
                input_tokens=usage.input_tokens - as_input,
                cache_read_tokens=usage.cache_read_tokens + five_minute + one_hour + as_input,
                cache_write_5m_tokens=usage.cache_write_5m_tokens - five_minute,
                cache_write_1h_tokens=usage.cache_write_1h_tokens - one_hour,
                output_tokens=usage.output_tokens,
            )
        repriced += price(request.model, usage)
    lowered_by = scan["totals"]["cost_usd"] - repriced
    assert lowered_by == pytest.approx(sum(item["cost_usd"] for item in rebuilt.values()), abs=1e-5)
    assert lowered_by == pytest.approx(scan["breaks"]["cost_usd"], abs=1e-5)


# --- filters -------------------------------------------------------------------------------------


def test_since_keeps_the_chain_of_a_break_right_after_the_window_start() -> None:
    # the ttl_expired request of f0d44c5a starts at 14:55:58; the one it continues, at 14:41:25
    report = breaks_of(DEMO, "--since", "2026-02-11T14:50:00", "--until", "2026-02-11")
    [found] = report["breaks"]
    assert (found["request"], found["cause"]) == ("msg_01MRHaMaf2TWUYmGx3DF85kA", "ttl_expired")
    assert found["previous_request"] == "msg_01o1LEm0G6K2TemKs2TCNTzI"
    assert found["gap_seconds"] == pytest.approx(866.3)
    # the only request of the window, 14 min 26 s after the one it continues
    assert [row["requests"] for row in report["gaps"]] == [0, 0, 0, 0, 1, 0, 0, 0]


def test_until_cuts_the_window_without_cutting_the_chain() -> None:
    report = breaks_of(DEMO, "--since", "2026-02-11T14:41:00", "--until", "2026-02-11T14:42:00")
    assert [(item["cause"], item["previous_request"]) for item in report["breaks"]] == [
        ("model_switch", "msg_01ASFtyACr7QlAFEt5emBGAl")
    ]


# --- the JSON and terminal contracts --------------------------------------------------------------


def test_cache_breaks_json_has_the_documented_keys() -> None:
    report = breaks_of(FIRST_LOGS)
    assert {"totals", "breaks", "by_cause", "by_project", "gaps", "ttl_advice"} <= set(report)
    assert report["provider_agreement"] == []  # no provider diagnosed these requests
    # every cause occurs but thinking_dropped (no sample of sample_logs thinks across turns)
    # and those only a provider names
    assert [row["cause"] for row in report["by_cause"]] == [
        cause for cause in CAUSES if cause != "thinking_dropped" and cause not in PROVIDER_CAUSES
    ]
    assert {row["gap"] for row in report["gaps"]} == {
        "first",
        "≤ 1m",
        "1–5m",
        "5–10m",
        "10–30m",
        "30–60m",
        "1–2h",
        "> 2h",
    }
    assert set(report["ttl_advice"]) >= {
        "extra_write_cost_usd",
        "avoided_rebuild_cost_usd",
        "avoided_breaks",
        "net_saving_usd",
        "recommend_1h",
    }
    costs = [item["cost_usd"] for item in report["breaks"]]
    assert costs == sorted(costs, reverse=True)  # dearest first


def test_scan_json_reports_the_count_cost_and_top_five_breaks() -> None:
    breaks = as_json("scan", "--tz", "UTC", *FIRST_LOGS)["breaks"]
    everything = faults(breaks_of(FIRST_LOGS))
    assert breaks["count"] == len(EXPECTED_FAULTS) == len(everything)
    assert breaks["cost_usd"] == pytest.approx(sum(item["cost_usd"] for item in everything))
    top = breaks["top"]
    assert len(top) == 5
    assert [item["cost_usd"] for item in top] == sorted(
        (item["cost_usd"] for item in everything), reverse=True
    )[:5]
    assert all(item["fault"] for item in top)


def test_scan_json_lists_fewer_than_five_when_there_are_fewer() -> None:
    breaks = as_json("scan", "--tz", "UTC", str(SAMPLE_LOGS / "codex"))["breaks"]
    assert breaks["count"] == 1
    assert [item["cause"] for item in breaks["top"]] == ["model_switch"]


def test_a_new_conversation_in_a_logged_session_is_not_a_break() -> None:
    """Request logs link no call to the one it continues: a call that shares only the system
    prompt with the previous call of its session read all they had in common."""
    report = as_json("cache", "--breaks", str(SAMPLE_LOGS / "request-logs"))
    assert [item for item in report["breaks"] if item["fault"]] == []
    [tolerated] = report["within_tolerance"]
    assert tolerated["request"] == "msg_01USRzjHTnQuippYLJj4fHLR"


def test_scan_terminal_output_shows_the_top_cache_breaks() -> None:
    result = run("scan", "--tz", "UTC", str(SAMPLE_LOGS))
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert f"Top cache breaks (of {len(EXPECTED_FAULTS)})" in text
    assert "`sniff cache --breaks` explains them all" in text


# --- the shared samples (real logs) -----------------------------------------------------------

TRACE_DEV = SHARED / "claude-trace-dev"
AGTRACE_CLAUDE = SHARED / "agtrace/crates/agtrace-providers/tests/samples/claude_session.jsonl"
LOCALPUSH = SHARED / "localpush"
shared_only = needs_shared


@shared_only
def test_claude_trace_requests_continue_the_call_whose_messages_they_extend(
    tmp_path: Path,
) -> None:
    import pyarrow.parquet as pq

    result = run("export", "-o", str(tmp_path / "out"), str(TRACE_DEV))
    assert result.exit_code == 0, result.output
    rows = pq.read_table(tmp_path / "out" / "requests").to_pylist()
    assert len(rows) == 64
    line_of = {row["key"]: row["line"] for row in rows}
    links = {row["line"]: line_of.get(row["previous"]) for row in rows if row["previous"]}
    assert len(links) == 34
    # the Sonnet conversation: every request continues the one before it, but the summariser
    # (line 35) and the conversation that restarts from the summary (line 58)
    sonnet = sorted(row["line"] for row in rows if row["model"] == SONNET_4)
    chain = [line for line in sonnet if line not in (6, 35, 58)]
    assert {line: links[line] for line in chain} == dict(
        zip(chain, [6, 8, 10, 13, 15, 17, 19, 23, 25, 27, 29, 31, 58, 61], strict=True)
    )
    assert 35 not in links and 58 not in links


@shared_only
def test_the_claude_trace_summarising_call_is_the_expected_cost_of_compaction() -> None:
    scan = as_json("scan", "--tz", "UTC", "--agent", "compaction", str(TRACE_DEV))
    assert scan["totals"]["requests"] == 1
    report = breaks_of(TRACE_DEV)
    [compaction] = [item for item in report["breaks"] if item["cause"] == "compaction"]
    assert (compaction["line"], compaction["fault"]) == (35, False)
    assert compaction["rebuilt_tokens"] == 12_072  # what it wrote: all its prompt but 3
    assert [item["cause"] for item in report["breaks"]] == ["cold_start", "compaction"]


@shared_only
def test_thinking_dropped_at_a_new_user_turn_is_expected_on_the_agtrace_sample() -> None:
    report = breaks_of(AGTRACE_CLAUDE)
    [found] = [item for item in report["breaks"] if item["cause"] == "thinking_dropped"]
    # after three responses with thinking, a new user message: the prompt is rewritten from
    # the first response on (16,028 tokens read of the 16,371 it shares)
    assert (found["fault"], found["read_tokens"], found["expected_read_tokens"]) == (
        False,
        16_028,
        16_371,
    )
    assert found["rebuilt_tokens"] == 343 and found["cost_usd"] > 0
    assert faults(report) == []


@shared_only
def test_every_table_and_the_headline_state_the_same_counts() -> None:
    report = breaks_of(SHARED)
    totals = report["totals"]
    for table in ("by_cause", "by_project", "by_week", "gaps"):
        rows = report[table]
        assert sum(row["faults"] for row in rows) == totals["faults"], table
        assert sum(row["expected"] for row in rows) == totals["expected"], table
        assert sum(row["fault_cost_usd"] for row in rows) == pytest.approx(
            totals["fault_cost_usd"], abs=1e-5
        ), table
        assert sum(row["expected_cost_usd"] for row in rows) == pytest.approx(
            totals["expected_cost_usd"], abs=1e-5
        ), table
    assert totals["faults"] == len(faults(report))
    assert totals["expected"] == (
        totals["cold_starts"] + totals["compactions"] + totals["thinking_dropped"]
    )
    result = run("cache", "--breaks", "--tz", "UTC", str(SHARED))
    assert result.exit_code == 0, result.output
    headline = result.stdout.splitlines()[0]
    assert headline == (
        f"Cache breaks · {totals['faults']} faults ({money(totals['fault_cost_usd'])}) and "
        f"{totals['expected']} expected: {totals['cold_starts']} cold starts, "
        f"{totals['compactions']} compactions, {totals['thinking_dropped']} thinking "
        f"({money(totals['expected_cost_usd'])})"
    )


@shared_only
def test_codex_breaks_are_explained_by_what_a_rollout_holds() -> None:
    from sniff.present.causes import explain

    report = breaks_of(LOCALPUSH)
    warm_breaks = warm(report)
    assert warm_breaks
    for item in warm_breaks:
        assert "block" not in item["detail"], item  # a rollout holds no prompt
        if item["cause"] in ("prefix_changed", "ttl_expired", "compaction"):
            assert item["detail"], item
    # 58 minutes idle: the cache had expired, whatever else the shrunk prompt tells
    [idle] = [item for item in warm_breaks if item["gap_seconds"] == pytest.approx(3535.255)]
    assert idle["cause"] == "ttl_expired"
    assert idle["detail"].startswith("idle 58m 55s, longer than the 10m 00s TTL")
    assert "Something early in the prompt" not in explain("prefix_changed")


@shared_only
def test_a_policy_file_overrides_which_models_drop_thinking_blocks(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(
        "[anthropic]\n"
        'thinking_rules = [{ model = "claude-sonnet-4-5", strips = false, since = "2025-01-01" }]\n'
    )
    report = breaks_of(AGTRACE_CLAUDE, "--policy-file", str(policy))
    assert [item["cause"] for item in faults(report)] == ["prefix_changed"]


def test_an_unreadable_policy_file_is_a_usage_error(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("[anthropic\n")
    result = run("cache", "--breaks", "--policy-file", str(policy), str(DEMO))
    assert result.exit_code == 2
    assert "cannot read policy file" in result.output
    assert len(result.output.strip().splitlines()) == 1
