"""The provider's word on a cache miss beside sniff's: Anthropic's `cache_miss_reason` and
OpenAI's `prompt_cache_diagnostics` in a request log (three Anthropic kinds, one OpenAI miss,
one hit) name the cause of their breaks, a miss sniff saw no drop for is listed, not lost,
hostile diagnostics read as none, and the agreement table counts both verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.analyses.cache.provider_word import Agreement, provider_cause
from sniff.cli import app
from sniff.first_hand import CacheDiagnosis
from sniff.ingest.providers.cache_diagnosis import diagnosis_of

runner = CliRunner()
MODEL, GPT = "claude-sonnet-4-5-20250929", "gpt-5.6"
T0 = 1_775_000_000


def anthropic(at: int, read: int, write: int, said: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {
        "id": f"msg_{at}", "type": "message", "model": MODEL,
        "usage": {"input_tokens": 10, "cache_read_input_tokens": read,
                  "cache_creation_input_tokens": write, "output_tokens": 50,
                  "cache_creation": {"ephemeral_5m_input_tokens": write,
                                     "ephemeral_1h_input_tokens": 0}},
    }  # fmt: skip
    if said is not None:
        response["diagnostics"] = {"cache_miss_reason": said}
    return {"request": {"model": MODEL, "messages": [{"role": "user", "content": "go"}]},
            "response": response, "started_at": T0 + at, "ended_at": T0 + at + 2,
            "session": "s-anthropic"}  # fmt: skip


def openai(at: int, cached: int, said: dict[str, Any] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {
        "id": f"resp_{at}", "object": "response", "model": GPT,
        "usage": {"input_tokens": 20_000, "input_tokens_details": {"cached_tokens": cached},
                  "output_tokens": 100},
    }  # fmt: skip
    if said is not None:
        response["prompt_cache_diagnostics"] = said
    return {"request": {"model": GPT, "input": "go", "prompt_cache_key": "k"},
            "response": response, "started_at": T0 + at, "ended_at": T0 + at + 2,
            "session": "s-openai"}  # fmt: skip


def planted() -> list[dict[str, Any]]:
    return [
        anthropic(0, 0, 10_000),
        anthropic(30, 0, 10_500, {"type": "system_changed", "cache_missed_input_tokens": 10_000}),
        anthropic(60, 10_500, 300),
        anthropic(90, 2_000, 8_900, {"type": "tools_changed", "cache_missed_input_tokens": 8_800}),
        anthropic(120, 10_900, 200),
        # reads grew: by usage alone no break, but the provider says messages changed
        anthropic(150, 11_000, 4_000, {"type": "messages_changed",
                                       "cache_missed_input_tokens": 3_900}),  # fmt: skip
        openai(0, 0),
        openai(30, 19_000, {"type": "cache_hit"}),
        openai(60, 0, {"type": "cache_miss", "reason": "prompt_cache_key_changed",
                       "cache_missed_tokens": 19_000, "comparison_reusable_tokens": 19_000}),
    ]  # fmt: skip


def breaks(tmp_path: Path, lines: list[dict[str, Any]]) -> dict[str, Any]:
    log = tmp_path / "calls.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = runner.invoke(app, ["cache", "--breaks", "--json", str(log)])
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def test_each_reason_is_named_on_its_break_and_is_its_cause(tmp_path: Path) -> None:
    report = breaks(tmp_path, planted())
    by_request = {item["request"]: item for item in report["breaks"]}
    expected = {
        "msg_30": ("system_changed", "system_changed", 10_000),
        "msg_90": ("tools_changed", "tools_changed", 8_800),
        "msg_150": ("messages_changed", "messages_changed", 3_900),
        "resp_60": ("prompt_cache_key_changed", "cache_miss", 19_000),
    }
    for key, (cause, kind, missed) in expected.items():
        item = by_request[key]
        assert item["cause"] == cause and item["fault"]
        assert (item["provider_says"]["type"], item["provider_says"]["missed_tokens"]) == (
            kind, missed)  # fmt: skip
        assert item["inferred_cause"] is not None  # sniff's own, kept beside
    assert by_request["msg_150"]["inferred_cause"] == "no break"
    assert by_request["msg_150"]["rebuilt_tokens"] == 3_900  # at most what was written again
    assert by_request["resp_60"]["provider_says"]["reason"] == "prompt_cache_key_changed"


def test_the_agreement_table_counts_both_verdicts(tmp_path: Path) -> None:
    rows = breaks(tmp_path, planted())["provider_agreement"]
    assert rows, "a non-empty provider_agreement"
    counted = {(row["sniff"], row["provider"]): row["requests"] for row in rows}
    assert counted[("no break", "messages_changed")] == 1
    assert counted[("no break", "cache_hit")] == 1
    assert sum(counted.values()) == 5  # every diagnosed request, once
    hit = next(row for row in rows if row["provider"] == "cache_hit")
    assert hit["agree"] is True and hit["missed_tokens"] == 0


@pytest.mark.parametrize("columns", ["80", "120"])
def test_text_shows_what_the_provider_says_beside_sniffs_cause(
    tmp_path: Path, columns: str
) -> None:
    (tmp_path / "calls.jsonl").write_text("".join(json.dumps(line) + "\n" for line in planted()))
    result = runner.invoke(app, ["cache", "--breaks", str(tmp_path)], env={"COLUMNS": columns})
    assert result.exit_code == 0, result.output
    table = result.stdout.split("Most expensive faults", 1)[1]
    assert "messages_changed*" in table and "* the provider's own reason" in table
    # sniff's own inference beside it, or named as left out at this width
    assert "no break" in table if columns == "120" else "sniff infers" in table
    assert "The provider's word" in result.stdout


@pytest.mark.parametrize(("hostile", "kind"), [
    ({"diagnostics": {"cache_miss_reason": {"type": "\x1b]0;pwned\x07"}}}, None),
    ({"diagnostics": {"cache_miss_reason": "tools_changed"}}, None),
    ({"diagnostics": [1, 2]}, None),
    ({"diagnostics": {"cache_miss_reason": {"type": "tools_changed",
                                            "cache_missed_input_tokens": -5}}}, "tools_changed"),
    ({"prompt_cache_diagnostics": {"type": "cache_miss", "reason": "x" * 5_000}}, "cache_miss"),
    ({"prompt_cache_diagnostics": {"type": 7}}, None),
])  # fmt: skip
def test_a_diagnosis_of_the_wrong_shape_says_nothing_wrong(
    hostile: dict[str, Any], kind: str | None
) -> None:
    """An unknown type is no diagnosis; a known one keeps its type, its bad fields dropped."""
    said = diagnosis_of(hostile)
    assert (said.kind if said else None) == kind
    if said is not None:
        assert said.missed_tokens is None and said.reason is None


def test_the_providers_words_map_to_sniffs_where_they_mean_the_same() -> None:
    assert provider_cause(CacheDiagnosis("anthropic", "model_changed")) == "model_switch"
    assert provider_cause(CacheDiagnosis("openai", "cache_miss", reason="context_compacted")) == (
        "compaction")  # fmt: skip
    assert provider_cause(CacheDiagnosis("anthropic", "previous_message_not_found")) is None
    assert provider_cause(CacheDiagnosis("openai", "cache_hit")) is None
    assert Agreement("model_switch", "model_changed", 1, 0).agrees
    assert not Agreement("ttl_expired", "tools_changed", 1, 0).agrees
