"""Golden totals of the bundled request logs, Codex rollouts and claude-trace log.

`request_logs_expected.json` was counted independently of sniff (two scripts that agree), in
sniff's disjoint token classes; failed calls count as requests with no tokens.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.record import Prompts

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
EXPECTED: dict[str, Any] = json.loads(
    (ROOT / "tests" / "golden" / "request_logs_expected.json").read_text()
)
CLASSES = (
    "input_tokens",
    "cache_read_tokens",
    "cache_write_5m_tokens",
    "cache_write_1h_tokens",
    "output_tokens",
    "reasoning_tokens",
)


def scan(path: Path) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--tz", "UTC", str(path)])
    assert result.exit_code == 0, result.output
    report: dict[str, Any] = json.loads(result.stdout)
    return report


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_totals_per_file(name):
    expected = EXPECTED[name]
    report = scan(SAMPLES / name)
    totals = report["totals"]
    assert totals["requests"] == expected["requests"]
    assert {key: totals[key] for key in CLASSES} == {key: expected[key] for key in CLASSES}
    assert report["warnings"]["failed_requests"] == expected["failed"]
    assert report["warnings"]["skipped_lines"] == 0


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_totals_per_model(name):
    report = scan(SAMPLES / name)
    found = {row["model"]: {key: row[key] for key in CLASSES} for row in report["by_model"]}
    expected = {
        model: {key: row[key] for key in CLASSES}
        for model, row in EXPECTED[name]["by_model"].items()
    }
    assert found == expected


@pytest.mark.parametrize(
    ("folder", "log_format"),
    [
        ("claude-trace", "claude-trace"),
        ("request-logs", "request-log"),
        ("codex", "codex"),
        ("claude-code", "claude-code"),
    ],
)
def test_each_folder_is_read_as_its_format(folder, log_format):
    report = scan(SAMPLES / folder)
    assert list(report["source"]["formats"]) == [log_format]
    assert report["warnings"]["unknown_format_files"] == []


def test_the_tool_list_change_rebuilds_the_whole_cache():
    """The claude-trace sample adds an MCP tool mid-session: that call reads nothing cached."""
    from sniff.logs import load

    [log] = (SAMPLES / "claude-trace").rglob("*.jsonl")
    requests = [r for r in load([log], with_prompts=Prompts.COUNTED).requests if r.error is None]
    main = [r for r in requests if r.agent.value == "main"]
    changed = [
        later
        for earlier, later in zip(main, main[1:], strict=False)
        if [b.content_hash for b in earlier.blocks if b.kind == "tool"]
        != [b.content_hash for b in later.blocks if b.kind == "tool"]
    ]
    assert len(changed) == 1
    assert changed[0].usage.cache_read_tokens == 0
    assert changed[0].usage.cache_write_tokens > 0
