"""`sniff cache`: the JSON contract, the simulation's error on real logs, policies and what-ifs.

The error bound is the engine's credibility on real logs: simulated cache reads under each
provider's own policy stay within ±5% of the reported ones on every sample at hand. The shared
samples live outside the repository (`../shared/samples`); their tests skip when it is absent.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SHARED_SAMPLES as SHARED

ROOT = Path(__file__).resolve().parents[2]
CLAUDE_CODE = ROOT / "sample_logs" / "claude-code"
SAMPLES = {
    "claude-code": CLAUDE_CODE,
    "sniffly": SHARED / "sniffly",
    "claude-code-viewer": SHARED / "claude-code-viewer",
    "claude-trace": SHARED
    / "claude-trace-dev"
    / "apps"
    / "claude-trace"
    / "test"
    / "test-traffic.jsonl",
}
WIDE = {"COLUMNS": "200"}
KEYS = {"observed", "simulated", "error", "what_if", "shared_prefixes"}


def run(*args: str) -> Any:
    return CliRunner().invoke(app, ["cache", *args], env=WIDE)


@cache
def cache_json(*args: str) -> dict[str, Any]:
    """`sniff cache --json ARGS` (memoized: the same run serves several tests)."""
    result = run("--json", *args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def sample(name: str) -> Path:
    path = SAMPLES[name]
    if not path.exists():
        pytest.skip(f"{path} is not here")
    return path


def what_if(data: dict[str, Any], label: str) -> dict[str, Any]:
    (found,) = [row for row in data["what_if"] if row["policy"] == label]
    return found


# --- the JSON contract -------------------------------------------------------------------------


def test_json_has_the_documented_keys() -> None:
    data = cache_json(str(CLAUDE_CODE))
    assert set(data) >= KEYS
    assert data["policy"] == "as logged"
    assert set(data["error"]) >= {"read_tokens_bias", "read_tokens_absolute", "worst_file"}
    assert [row["policy"] for row in data["what_if"]] == [
        "anthropic 5m",
        "anthropic 1h",
        "openai",
        "engine",
        "ideal",
    ]
    # observed and simulated cover the same requests and the same prompt tokens
    observed, simulated = data["observed"], data["simulated"]
    assert observed["requests"] == simulated["requests"] == 129
    assert observed["prompt_tokens"] == simulated["prompt_tokens"]


# --- the simulation's error on real logs -------------------------------------------------------


@pytest.mark.parametrize("name", list(SAMPLES))
def test_simulated_reads_are_within_5_percent_of_reported(name: str) -> None:
    error = cache_json(str(sample(name)))["error"]
    assert error["read_tokens_bias"] is not None
    assert abs(error["read_tokens_bias"]) <= 0.05, error


@pytest.mark.parametrize("name", list(SAMPLES))
def test_terminal_output_prints_the_simulation_error(name: str) -> None:
    result = run(str(sample(name)))
    assert result.exit_code == 0, result.output
    assert "Simulation error vs reported cache reads: totals " in result.stdout


def test_terminal_output_says_when_there_is_nothing_to_compare_with(tmp_path: Path, cc) -> None:
    # a log that reports no cache reads at all: no error can be measured, and it says so
    path = cc.write(
        tmp_path / "projects" / "-home-dana-src-x" / "a1b2c3d4.jsonl",
        [
            cc.user("u1", None, "2026-01-05T10:00:00Z", session="a1b2c3d4"),
            cc.assistant(
                "msg_1",
                "a1",
                "u1",
                "2026-01-05T10:00:04Z",
                cc.usage(3000, 0, 0, 50),
                session="a1b2c3d4",
            ),
        ],
    )
    result = run(str(path))
    assert result.exit_code == 0, result.output
    assert "No reported cache reads to compare the simulation with." in result.stdout
    assert cache_json(str(path))["error"]["read_tokens_bias"] is None


# --- policies and what-ifs ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(SAMPLES))
def test_ideal_never_reads_less_than_the_as_logged_simulation(name: str) -> None:
    path = str(sample(name))
    as_logged = cache_json(path)
    ideal = cache_json("--policy", "ideal", path)
    assert ideal["policy"] == "ideal"
    assert ideal["simulated"]["hit_rate"] >= as_logged["simulated"]["hit_rate"]
    assert what_if(as_logged, "ideal")["hit_rate"] == ideal["simulated"]["hit_rate"]
    assert all(row["hit_rate"] <= ideal["simulated"]["hit_rate"] for row in as_logged["what_if"])


def test_1h_what_if_costs_more_in_writes_than_5m() -> None:
    data = cache_json(str(CLAUDE_CODE))
    five, hour = what_if(data, "anthropic 5m"), what_if(data, "anthropic 1h")
    assert five["cache_write_1h_tokens"] == 0 and hour["cache_write_5m_tokens"] == 0
    # 1h writes cost 2x input, 5m writes 1.25x (docs §1.4); the 1h TTL reads a little more
    # (fewer expiries) yet costs more in total: its writes cost more than the reads save
    assert hour["cache_write_1h_tokens"] * 2.0 > five["cache_write_5m_tokens"] * 1.25
    assert hour["cache_read_tokens"] >= five["cache_read_tokens"]
    assert hour["cost_usd"] > five["cost_usd"]


def test_ttl_option_writes_every_breakpoint_with_it() -> None:
    data = cache_json("--ttl", "1h", str(CLAUDE_CODE))
    assert data["policy"] == "anthropic 1h"
    assert data["simulated"]["cache_write_5m_tokens"] == 0
    assert data["simulated"]["cache_write_1h_tokens"] > 0
    # the same simulation as the "anthropic 1h" what-if
    hour = what_if(data, "anthropic 1h")
    assert data["simulated"] == {key: hour[key] for key in data["simulated"]}


@pytest.mark.parametrize(
    "args",
    [("--policy", "nope"), ("--ttl", "2h"), ("--policy-file", "/nonexistent/policies.toml")],
    ids=["policy", "ttl", "policy-file"],
)
def test_bad_options_exit_2_with_one_line(args: tuple[str, ...]) -> None:
    result = run(*args, str(CLAUDE_CODE))
    assert result.exit_code == 2
    assert result.stderr.startswith("sniff: error: ")
    assert result.stderr.count("\n") == 1


def test_policy_file_naming_an_unknown_policy_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "policies.toml"
    path.write_text("[gemini]\nmin_tokens = 4096\n")
    result = run("--policy-file", str(path), str(CLAUDE_CODE))
    assert result.exit_code == 2
    assert "unknown policy 'gemini'" in result.stderr


# --- --policy-file -----------------------------------------------------------------------------

# The largest prompt of sample_logs/claude-code is 156,170 tokens: with a 200,000-token minimum
# nothing can be written, so nothing can be read.
NOTHING_CACHED = "[anthropic]\nmin_tokens = 200000\nmin_tokens_rules = []\n"


def test_policy_file_changes_the_simulation(tmp_path: Path) -> None:
    path = tmp_path / "policies.toml"
    path.write_text(NOTHING_CACHED)
    bundled = cache_json(str(CLAUDE_CODE))["simulated"]
    simulated = cache_json("--policy-file", str(path), str(CLAUDE_CODE))["simulated"]
    assert bundled["cache_read_tokens"] > 0
    assert simulated["cache_read_tokens"] == 0
    assert simulated["cache_write_5m_tokens"] == simulated["cache_write_1h_tokens"] == 0
    assert simulated["input_tokens"] == simulated["prompt_tokens"] == bundled["prompt_tokens"]


def test_min_tokens_option_applies_to_every_model() -> None:
    simulated = cache_json("--min-tokens", "200000", str(CLAUDE_CODE))["simulated"]
    assert simulated["cache_read_tokens"] == 0
    assert simulated["cache_write_5m_tokens"] == simulated["cache_write_1h_tokens"] == 0


def test_policy_file_min_tokens_alone_applies_to_every_model(tmp_path: Path) -> None:
    path = tmp_path / "policies.toml"
    path.write_text("[anthropic]\nmin_tokens = 200000\n")
    simulated = cache_json("--policy-file", str(path), str(CLAUDE_CODE))["simulated"]
    assert simulated["cache_write_5m_tokens"] == simulated["cache_write_1h_tokens"] == 0
