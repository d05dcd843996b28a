"""Longer TTLs on the command line: what `--ttl` reaches, and one verdict for lint and breaks.

A TTL reaches only the requests whose provider offers it. `sample_logs` holds Claude Code
sessions (Anthropic: 5-minute and 1-hour TTLs) and Codex rollouts (OpenAI: automatic caching,
no TTL to choose). Asked for a TTL without a policy, each provider keeps its own rules and the
TTL applies where it exists, said in one line; asked for a policy that offers no such TTL, the
command refuses (exit 2, one line).

The longer-TTL advice of `sniff lint` (SN012) and `sniff cache --breaks` is one computation:
on the shared samples (outside the repository; skipped when absent) both give the same figure
for the Claude Code session d3ad4cdc, and the Codex rollouts get none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SHARED_SAMPLES as SHARED

ROOT = Path(__file__).resolve().parents[2]
CLAUDE_CODE = ROOT / "sample_logs" / "claude-code"
CODEX = ROOT / "sample_logs" / "codex"
WIDE = {"COLUMNS": "200"}


def run(*args: str | Path) -> Any:
    return CliRunner().invoke(app, ["cache", *map(str, args)], env=WIDE)


def cache_json(*args: str | Path) -> dict[str, Any]:
    result = run("--json", *args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def sessions(data: dict[str, Any]) -> dict[str, Any]:
    return {row["session"]: row["simulated"] for row in data["by_session"]}


def test_a_ttl_applies_to_the_providers_that_offer_it_and_says_so() -> None:
    as_logged = cache_json(CLAUDE_CODE, CODEX)
    hour = cache_json("--ttl", "1h", CLAUDE_CODE, CODEX)
    assert hour["policy"] == "anthropic 1h + openai"
    [note] = [note for note in hour["notes"] if note.startswith("TTL 1h")]
    assert "11 openai request(s) keep their provider's own rules" in note
    anthropic_only = cache_json("--ttl", "1h", CLAUDE_CODE)
    codex = {session for session in sessions(as_logged) if session not in sessions(anthropic_only)}
    assert len(codex) == 2  # the rollouts
    for session in codex:  # OpenAI's requests simulated as they were, not as Anthropic's
        assert sessions(hour)[session] == sessions(as_logged)[session]
    for session, simulated in sessions(anthropic_only).items():
        assert sessions(hour)[session] == simulated
        assert simulated["cache_write_5m_tokens"] == 0


def test_a_ttl_no_request_can_take_is_said_in_one_line() -> None:
    result = run("--ttl", "1h", CODEX)
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())
    assert "TTL 1h applies to no request: the 11 openai request(s) keep" in text
    assert "policy: as logged" in text


def test_a_ttl_alone_on_one_provider_keeps_the_single_policy_name() -> None:
    data = cache_json("--ttl", "1h", CLAUDE_CODE)
    assert data["policy"] == "anthropic 1h"
    assert not [note for note in data["notes"] if note.startswith("TTL")]


@pytest.mark.parametrize(
    ("args", "policy"),
    [
        (("--ttl", "1h", "--policy", "openai"), "openai"),
        (("--ttl", "5m", "--policy", "ideal"), "ideal"),
        (("--ttl", "1h", "--kv-tokens", "100000"), "engine"),
    ],
    ids=["openai", "ideal", "engine"],
)
def test_a_ttl_the_chosen_policy_does_not_offer_is_a_usage_error(
    args: tuple[str, ...], policy: str
) -> None:
    result = run(*args, CLAUDE_CODE)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"sniff: error: --ttl {args[1]} cannot apply to the {policy}")


def test_a_minimum_without_a_policy_keeps_each_provider_under_its_own_rules() -> None:
    # OpenAI's own minimum is 1,024 tokens: the rollouts simulate as they did
    as_logged = sessions(cache_json(CODEX))
    assert sessions(cache_json("--min-tokens", "1024", CODEX)) == as_logged


D3AD = (
    SHARED
    / "sniffly/tests/mock-data/-Users-chip-dev-ai-music/d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"
)
LOCALPUSH = SHARED / "localpush"


def shared(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} is not here")
    return path


def lint_text(*paths: Path) -> str:
    result = CliRunner().invoke(app, ["lint", *map(str, paths)], env=WIDE)
    assert result.exit_code in (0, 1), result.output
    return " ".join(result.stdout.split())


def breaks_advice(*paths: Path) -> dict[str, Any]:
    result = run("--breaks", "--json", *paths)
    assert result.exit_code == 0, result.output
    advice: dict[str, Any] = json.loads(result.stdout)["ttl_advice"]
    return advice


@pytest.mark.parametrize("scope", ["session", "samples"])
def test_lint_and_cache_breaks_give_one_verdict_for_a_session(scope: str) -> None:
    from sniff.lint import LintConfig, lint
    from sniff.logs import load
    from sniff.numbers import money

    path = shared(D3AD) if scope == "session" else shared(SHARED)
    [session] = [v for v in breaks_advice(path)["sessions"] if v["session"].startswith("d3ad4cdc")]
    linted = lint([path], LintConfig(select=("SN012",)), load=load).findings
    [found] = [f for f in linted if "d3ad4cdc" in f.message]
    assert found.saving is not None and found.saving.usd is not None
    assert round(found.saving.usd, 6) == session["net_saving_usd"] > 0
    # 1-hour writes at 2x instead of 1.25x, against the three rebuilds after 6 to 9 minutes
    assert session["avoided_breaks"] == 3 and session["extra_write_cost_usd"] > 0
    assert f"{money(session['net_saving_usd'])} net" in lint_text(path)
    if scope == "session":  # the file alone: the whole is the session
        whole = breaks_advice(path)
        assert whole["net_saving_usd"] == session["net_saving_usd"]
        assert whole["recommend_1h"] is True


def test_a_codex_rollout_gets_no_longer_ttl_advice_from_either() -> None:
    path = shared(LOCALPUSH)
    advice = breaks_advice(path)
    assert advice["retentions"] == [] and advice["sessions"] == []
    assert advice["no_setting"] == [{"source": "codex", "requests": 485}]
    assert "SN012" not in lint_text(path)
    text = " ".join(run("--breaks", path).stdout.split())
    assert "No longer-TTL advice for the 485 codex requests" in text
    assert "1-hour TTL" not in text


@pytest.mark.parametrize(
    "args",
    [("--ttl", "1h"), ("--policy", "openai"), ("--min-tokens", "0"), ("--kv-tokens", "10")],
    ids=["ttl", "policy", "min-tokens", "kv-tokens"],
)
def test_a_simulation_option_with_breaks_is_a_usage_error(args: tuple[str, ...]) -> None:
    """`--breaks` reports what the logs observed: `--ttl 1h` there would be dropped unsaid."""
    result = run("--breaks", *args, CLAUDE_CODE)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"sniff: error: {args[0]} sets the simulation; --breaks reports what the logs observed\n"
    )
