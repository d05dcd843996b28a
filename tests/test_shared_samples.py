"""Real logs from public repositories, against ../shared/samples/EXPECTED.md.

Those totals were counted independently of sniff (a direct count and ccusage agree); sniff must
match them to the token. The folder sits next to the repository; set SNIFF_SHARED_SAMPLES to
use another copy.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.files.log_formats import parse_any
from tests.conftest import AGENT_SAMPLES, classes, needs_agent_samples, needs_shared
from tests.conftest import SHARED_SAMPLES as SHARED

pytestmark = needs_shared

AGTRACE = "agtrace/crates/agtrace-providers/tests/samples"
CODEX_ROLLOUT = f"{AGTRACE}/codex_session.jsonl"
CLAUDE_TRACE = "claude-trace-dev/apps/claude-trace/test/test-traffic.jsonl"
LOCALPUSH = "localpush/src-tauri/tests/fixtures/codex/2026-02-23/raw/sessions"

# Claude Code: responses, input, cache read, 5m write, 1h write, output, hit rate (%), TTL assumed
EXPECTED = {
    "sniffly": (90, 293, 4_302_385, 206_624, 0, 19_313, 95.41, 90),
    "claude-code-viewer": (197, 1_040, 4_075_332, 198_421, 0, 56_515, 95.33, 0),
    "agtrace": (7, 561, 93_553, 5_158, 0, 974, 94.24, 0),
}
FOLDERS = {
    "sniffly": ["sniffly"],
    "claude-code-viewer": ["claude-code-viewer"],
    # the agtrace folder also holds a Codex rollout: the Claude rows are its two Claude files
    "agtrace": [f"{AGTRACE}/claude_session.jsonl", f"{AGTRACE}/claude_agent.jsonl"],
}


def scan(*paths: str, options: tuple[str, ...] = ()) -> dict[str, Any]:
    arguments = ["scan", "--json", "--tz", "UTC", *options, *(str(SHARED / p) for p in paths)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize("folder", sorted(EXPECTED))
def test_totals_match_expected_md(folder):
    report = scan(*FOLDERS[folder])
    totals = report["totals"]
    requests, uncached, read, write_5m, write_1h, output, hit_rate, assumed = EXPECTED[folder]
    assert (
        totals["requests"],
        totals["input_tokens"],
        totals["cache_read_tokens"],
        totals["cache_write_5m_tokens"],
        totals["cache_write_1h_tokens"],
        totals["output_tokens"],
    ) == (requests, uncached, read, write_5m, write_1h, output)
    assert round(totals["hit_rate"] * 100, 2) == hit_rate
    assert report["warnings"]["skipped_lines"] == 0
    # sniffly's 1.0.17 logs have no cache_creation object: every writing response assumed 5m.
    assert report["warnings"]["ttl_assumed_requests"] == assumed


def test_sniffly_cost_is_tokens_times_sonnet_4_prices():
    report = scan(*FOLDERS["sniffly"])
    [row] = report["by_model"]
    assert row["model"] == "claude-sonnet-4-20250514"
    cost = (293 * 3.00 + 4_302_385 * 0.30 + 206_624 * 3.75 + 19_313 * 15.00) / 1e6
    assert report["totals"]["cost_usd"] == pytest.approx(cost, abs=1e-6)


def test_codex_rollout_yields_nothing_to_the_claude_parser():
    result = parse_any(str(SHARED / CODEX_ROLLOUT), "agtrace", "claude-code")
    assert result.responses == []
    assert result.issues == []
    assert result.synthetic == 0


def test_claude_trace_matches_expected_md_per_model():
    report = scan(CLAUDE_TRACE)
    rows = {row["model"]: classes(row) for row in report["by_model"]}
    assert rows == {
        "claude-3-5-haiku-20241022": (47, 5_793, 0, 0, 305, 0),
        "claude-sonnet-4-20250514": (17, 60, 279_790, 45_598, 7_920, 0),
    }
    assert classes(report["totals"]) == (64, 5_853, 279_790, 45_598, 8_225, 0)
    assert report["source"]["formats"] == {"claude-trace": 1}


def test_agtrace_codex_rollout_matches_expected_md():
    report = scan(CODEX_ROLLOUT)
    assert classes(report["totals"]) == (7, 3_828, 22_912, 0, 408, 128)
    assert [row["model"] for row in report["by_model"]] == ["gpt-5.1-codex-max"]


def test_localpush_codex_rollouts_match_expected_md():
    report = scan(LOCALPUSH)
    assert classes(report["totals"]) == (485, 3_150_601, 46_689_152, 0, 223_178, 82_134)
    assert report["source"]["formats"] == {"codex": 6}


def test_localpush_utc_day_matches_the_totals_localpush_ships():
    report = scan(LOCALPUSH, options=("--since", "2026-02-23", "--until", "2026-02-23"))
    assert classes(report["totals"]) == (360, 1_692_546, 32_389_760, 0, 156_921, 64_401)
    # localpush's own expected/codex-stats.json counts input with cached input included
    assert report["totals"]["input_tokens"] + report["totals"]["cache_read_tokens"] == 34_082_306


def test_whole_samples_folder_mixes_formats():
    report = scan(".")
    assert report["source"]["formats"] == {"claude-code": 9, "claude-trace": 1, "codex": 7}
    assert report["warnings"]["unknown_format_files"] == []
    assert report["warnings"]["skipped_lines"] == 0


def test_claude_trace_latency_equals_its_own_timestamps():
    """TTFT = when the response headers came − when the request went out; end to end runs to
    the end of the response, which this early writer stamps only in local time without a zone,
    so the headers' time stands for it (as the format's documentation says)."""
    from datetime import UTC, datetime

    expected_ttft, expected_e2e = [], []
    for line in (SHARED / CLAUDE_TRACE).read_text().splitlines():
        pair = json.loads(line)
        request, response = pair["request"], pair.get("response")
        if "/v1/messages" not in request["url"] or "count_tokens" in request["url"]:
            continue
        if not response or response.get("status_code") != 200:
            continue
        expected_ttft.append(response["timestamp"] - request["timestamp"])
        logged = pair.get("logged_at", "")
        ends_at = response["timestamp"]
        if logged.endswith("Z"):  # an aware write time marks the end of a stream
            ends_at = max(ends_at, datetime.fromisoformat(logged).replace(tzinfo=UTC).timestamp())
        expected_e2e.append(ends_at - request["timestamp"])
    for metric, expected in (("ttft", expected_ttft), ("e2e", expected_e2e)):
        result = CliRunner().invoke(
            app, ["latency", str(SHARED / CLAUDE_TRACE), "--metric", metric, "--json"]
        )
        assert result.exit_code == 0, result.output
        report = json.loads(result.stdout)
        assert report["count"] == len(expected) == 64
        assert report["exact"] == 64
        low, high = min(expected), max(expected)
        assert report["percentiles"]["min"] == pytest.approx(low, abs=1e-3)
        assert report["percentiles"]["max"] == pytest.approx(high, abs=1e-3)
        ordered = sorted(expected)
        median = (ordered[31] + ordered[32]) / 2
        assert report["percentiles"]["p50"] == pytest.approx(median, abs=1e-3)


def test_agents_counts_tool_calls_and_failures_as_the_logs_hold_them() -> None:
    """sniffly sample: calls per tool = distinct `tool_use` blocks; failures = distinct
    `tool_result` blocks with `is_error`, each in a documented class, none left in `other`."""
    calls: dict[str, str] = {}
    failed: set[str] = set()
    for path in sorted((SHARED / "sniffly").rglob("*.jsonl")):
        for raw in path.read_text().splitlines():
            line = json.loads(raw)
            content = (line.get("message") or {}).get("content")
            for block in content if isinstance(content, list) else []:
                if block.get("type") == "tool_use":
                    calls.setdefault(block["id"], block["name"])
                elif block.get("type") == "tool_result" and block.get("is_error"):
                    failed.add(block["tool_use_id"])
    expected: dict[str, int] = {}
    for name in calls.values():
        expected[name] = expected.get(name, 0) + 1

    result = CliRunner().invoke(app, ["agents", "--json", str(SHARED / "sniffly")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {row["tool"]: row["calls"] for row in report["tools"]["by_tool"]} == expected
    classes = {row["class"]: row["count"] for row in report["errors"]["by_class"]}
    assert sum(classes.values()) == len(failed) == 6
    assert "other" not in classes


# The other agents: ../shared/agent-samples, with their own EXPECTED.md, read as a table.
AGENTS_READ = frozenset(
    {"cline", "copilot", "droid", "gemini-cli", "kimi", "openclaw", "pi-agent", "qwen-code"}
)
"""The agents of agent-samples/EXPECTED.md whose parser has landed (each checked below)."""


def _figures(cells: list[str]) -> tuple[int, ...]:
    return tuple(int(cell.replace(",", "")) for cell in cells)


def agent_expected() -> dict[str, tuple[tuple[int, ...], dict[str, tuple[int, ...]]]]:
    """agent → ((requests, input, cache read, cache write, output, reasoning, sessions),
    {model: (requests, input, cache read, cache write, output, reasoning)})."""
    text = (AGENT_SAMPLES / "EXPECTED.md").read_text()
    table: dict[str, tuple[tuple[int, ...], dict[str, tuple[int, ...]]]] = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 8 and cells[1][:1].isdigit():
            table[cells[0]] = (_figures(cells[1:]), {})
        elif line.startswith("- ") and " / `" in line and "requests, input" in line:
            agent, rest = line[2:].split(" / `", 1)
            model, numbers = rest.split("`: ", 1)
            table[agent][1][model] = _figures(re.findall(r"\d[\d,]*", numbers))
    return table


@needs_agent_samples
@pytest.mark.parametrize("agent", sorted(AGENTS_READ))
def test_agent_totals_match_agent_expected_md(agent: str) -> None:
    """Every agent's sample folder, scanned whole, gives EXPECTED.md's totals to the token,
    per agent and per model, and its sessions."""
    (totals, models), report = agent_expected()[agent], scan_agent(agent)
    assert classes(report["totals"]) + (len(report["sessions"]),) == totals
    assert {row["model"]: classes(row) for row in report["by_model"]} == models


def scan_agent(agent: str) -> dict[str, Any]:
    arguments = ["scan", "--json", "--tz", "UTC", str(AGENT_SAMPLES / agent)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@needs_agent_samples
def test_agent_expected_md_is_read_whole() -> None:
    """The table parses: every agent has its row, and its models add up to it."""
    table = agent_expected()
    assert len(table) == 9 and table["pi-agent"][0][0] == 441
    for agent, (totals, models) in table.items():
        if models:
            assert tuple(map(sum, zip(*models.values(), strict=True))) == totals[:6], agent


@needs_agent_samples
def test_gemini_thoughts_are_billed_beside_the_output() -> None:
    """Gemini reports thoughts apart from the output and bills them as output: each call's cost
    is its tokens at its model's prices, thoughts at the output's, and the shared sample's
    thinking calls cost more than their output alone would."""
    import msgspec

    from sniff.logs import load
    from sniff.pricing import PriceBook

    book = PriceBook()
    requests = load([AGENT_SAMPLES / "gemini-cli"]).requests
    thinking = [request for request in requests if request.usage.reasoning_tokens]
    assert sum(request.usage.reasoning_tokens for request in thinking) == 377
    for request in thinking:
        billed = msgspec.structs.replace(
            request.usage,
            output_tokens=request.usage.output_tokens + request.usage.reasoning_tokens,
        )
        cost, plain = request.cost, book.cost(request.model, request.when, request.usage)
        assert cost is not None and plain is not None
        assert cost == book.cost(request.model, request.when, billed)
        assert cost.total_usd > plain.total_usd


OPENCODE_DUMP = "opencode/kilocode/packages/kilo-cli/test/fixtures/v1-writer/kilo.db.sql"
OPENCODE_LEGACY = "opencode/tokscale/packages/core/__test__/fixtures/.local"


@needs_agent_samples
def test_opencode_samples_match_agent_expected_md(tmp_path: Path) -> None:
    """OpenCode's database sample is Kilo CLI's SQL dump: it is built first, into a folder
    beside the legacy message tree, and the folder scanned gives EXPECTED.md's row (so opencode
    is not in `AGENTS_READ`, whose folders are scanned as they are)."""
    with closing(sqlite3.connect(tmp_path / "kilo.db")) as database:
        database.executescript((AGENT_SAMPLES / OPENCODE_DUMP).read_text())
    shutil.copytree(AGENT_SAMPLES / OPENCODE_LEGACY, tmp_path / ".local")
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(tmp_path)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    totals, models = agent_expected()["opencode"]
    assert classes(report["totals"]) + (len(report["sessions"]),) == totals
    assert {row["model"]: classes(row) for row in report["by_model"]} == models
    assert report["source"]["formats"] == {"opencode": 2}
    assert report["warnings"]["skipped_lines"] == 0
