"""Real Claude Code transcripts from public repositories, against ../shared/samples/EXPECTED.md.

Those totals were counted independently of sniff (a direct count and ccusage agree); sniff must
match them to the token. The folder sits next to the repository; set SNIFF_SHARED_SAMPLES to
use another copy.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.claude_code import parse_file

SHARED = Path(
    os.environ.get("SNIFF_SHARED_SAMPLES")
    or Path(__file__).resolve().parents[1].parent / "shared" / "samples"
)

pytestmark = pytest.mark.skipif(
    not SHARED.is_dir(),
    reason=f"shared samples not found at {SHARED} (set SNIFF_SHARED_SAMPLES to their folder)",
)

# folder: responses, input, cache read, 5m write, 1h write, output, hit rate (%), TTL assumed
EXPECTED = {
    "sniffly": (90, 293, 4_302_385, 206_624, 0, 19_313, 95.41, 90),
    "claude-code-viewer": (197, 1_040, 4_075_332, 198_421, 0, 56_515, 95.33, 0),
    "agtrace": (7, 561, 93_553, 5_158, 0, 974, 94.24, 0),
}
CODEX_ROLLOUT = "agtrace/crates/agtrace-providers/tests/samples/codex_session.jsonl"


def scan(folder: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(SHARED / folder)])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.parametrize("folder", sorted(EXPECTED))
def test_totals_match_expected_md(folder):
    report = scan(folder)
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
    report = scan("sniffly")
    [row] = report["by_model"]
    assert row["model"] == "claude-sonnet-4-20250514"
    cost = (293 * 3.00 + 4_302_385 * 0.30 + 206_624 * 3.75 + 19_313 * 15.00) / 1e6
    assert report["totals"]["cost_usd"] == pytest.approx(cost, abs=1e-6)


def test_codex_rollout_yields_nothing_to_the_claude_parser():
    result = parse_file(str(SHARED / CODEX_ROLLOUT), "agtrace")
    assert result.responses == []
    assert result.issues == []
    assert result.synthetic == 0
