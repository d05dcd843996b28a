"""`sniff cache --ttl`: a TTL reaches only the requests whose provider offers it.

`sample_logs` holds Claude Code sessions (Anthropic: 5-minute and 1-hour TTLs) and Codex
rollouts (OpenAI: automatic caching, no TTL to choose). Asked for a TTL without a policy, each
provider keeps its own rules and the TTL applies where it exists, said in one line; asked for a
policy that offers no such TTL, the command refuses (exit 2, one line).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app

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
