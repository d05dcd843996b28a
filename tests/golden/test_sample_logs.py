"""`sniff scan --json sample_logs` against totals counted independently of sniff.

`sample_logs_expected.json` was written by two independent counts (see sample_logs/README.md);
a difference here is a change in the numbers users see, never something to regenerate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.files.discover import expand
from sniff.ingest.files.log_formats import parse_source
from sniff.ingest.parallel import map_files

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs" / "claude-code"
EXPECTED = json.loads((Path(__file__).parent / "sample_logs_expected.json").read_text())
TOKEN_KEYS = (
    "requests",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_5m_tokens",
    "cache_write_1h_tokens",
    "output_tokens",
)
# Published prices per million tokens: input, cache read, 5m write, 1h write, output.
PRICES = {
    "claude-opus-4-6": (5.00, 0.50, 6.25, 10.00, 25.00),
    "claude-sonnet-4-5-20250929": (3.00, 0.30, 3.75, 6.00, 15.00),
    "claude-sonnet-4-20250514": (3.00, 0.30, 3.75, 6.00, 15.00),
    "claude-haiku-4-5-20251001": (1.00, 0.10, 1.25, 2.00, 5.00),
}


@pytest.fixture
def report() -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(SAMPLES)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def tokens(row: dict[str, Any]) -> dict[str, int]:
    return {key: row[key] for key in TOKEN_KEYS}


def test_totals(report):
    assert tokens(report["totals"]) == EXPECTED["totals"]


def test_by_model(report):
    assert {row["model"]: tokens(row) for row in report["by_model"]} == EXPECTED["by_model"]


def test_by_agent(report):
    assert {row["agent"]: tokens(row) for row in report["by_agent"]} == EXPECTED["by_agent"]


def test_requests_per_session(report):
    sessions = {row["session"]: {"requests": row["requests"]} for row in report["sessions"]}
    assert sessions == EXPECTED["sessions"]


def test_skipped_lines(report):
    assert report["warnings"]["skipped_lines"] == EXPECTED["skipped_lines"]
    assert report["warnings"]["synthetic_messages"] == 2  # the two 529 API error lines


def test_requests_per_project_from_cwd(report):
    projects = {row["project"]: row["requests"] for row in report["by_project"]}
    assert projects == {
        "/home/dana/src/tilesrv": 16 + 9,
        "/home/dana/src/webshop": 5 + 11 + 7,
        "/home/dana/src/ledger-api": 9 + 3 + 4,
        "/home/dana/src/notes-cli": 4,
        "/home/dana/src/breaks-demo": 10 + 6 + 7 + 2 + 1 + 2 + 1,
        "/home/dana/src/agent-habits": 30 + 2,
    }


def test_hit_rate_is_cache_reads_over_prompt_tokens(report):
    rows = [report["totals"]]
    for section in ("by_model", "by_project", "by_agent", "by_day", "sessions"):
        rows += report[section]
    for row in rows:
        prompt = (
            row["input_tokens"]
            + row["cache_read_tokens"]
            + row["cache_write_5m_tokens"]
            + row["cache_write_1h_tokens"]
        )
        assert row["prompt_tokens"] == prompt
        assert row["hit_rate"] == pytest.approx(row["cache_read_tokens"] / prompt, abs=1e-6)
    assert report["totals"]["hit_rate"] == pytest.approx(3_034_857 / 3_961_510, abs=1e-6)


@pytest.mark.parametrize("model", sorted(PRICES))
def test_cost_of_each_model_is_tokens_times_its_prices(report, model):
    row = next(row for row in report["by_model"] if row["model"] == model)
    expected = EXPECTED["by_model"][model]
    counts = [expected[key] for key in TOKEN_KEYS[1:]]
    cost = sum(n * price for n, price in zip(counts, PRICES[model], strict=True)) / 1e6
    assert row["cost_usd"] == pytest.approx(cost, abs=1e-6)
    input_price, output_price = PRICES[model][0], PRICES[model][4]
    uncached = (sum(counts[:4]) * input_price + counts[4] * output_price) / 1e6
    assert row["savings_usd"] == pytest.approx(uncached - cost, abs=1e-6)


def test_total_cost_is_the_sum_of_the_models(report):
    total = sum(row["cost_usd"] for row in report["by_model"])
    assert report["totals"]["cost_usd"] == pytest.approx(total, abs=1e-5)
    assert report["totals"]["unpriced_requests"] == 0
    assert report["warnings"]["unpriced_models"] == []


def test_parsing_on_several_cores_gives_the_same_responses(monkeypatch):
    """The worker-process path (used above 16 MB of logs) must not change any number."""
    files = expand([SAMPLES])
    alone = map_files(parse_source, files, workers=1)
    monkeypatch.setattr("sniff.ingest.parallel.PARALLEL_MIN_BYTES", 0)
    spread = map_files(parse_source, files, workers=3)
    assert spread == alone
