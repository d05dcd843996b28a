"""Cost by git branch on the shared Claude Code samples, against an independent count.

The count here reads the JSON lines itself: one response per `message.id` across the files
(the line with the largest total kept, as ../shared/samples/EXPECTED.md says), booked to that
line's `gitBranch`, else to the `gitBranch` of the line it answers; empty or absent: the row
"(no branch)". Costs are sniff's per-request costs, grouped by that independent booking.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from sniff.cli import app
from sniff.logs import load
from sniff.present.json.common import MONEY_DIGITS
from tests.conftest import SHARED_SAMPLES as SHARED
from tests.conftest import needs_shared
from tests.test_shared_samples import FOLDERS

pytestmark = needs_shared

USAGE = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")
PATHS = [SHARED / path for paths in FOLDERS.values() for path in paths]


def _lines(paths: list[Path]) -> list[dict[str, Any]]:
    files = sorted(f for p in paths for f in ([p] if p.is_file() else p.rglob("*.jsonl")))
    lines = []
    for file in files:
        for raw in file.read_text().splitlines():
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            if isinstance(line, dict):
                lines.append(line)
    return lines


def independent_booking(paths: list[Path]) -> dict[str, tuple[str, str, tuple[int, ...]]]:
    """message.id → (branch, session, (input, cache read, cache write, output))."""
    lines = _lines(paths)
    by_uuid = {line["uuid"]: line for line in reversed(lines) if line.get("uuid")}
    kept: dict[str, tuple[int, dict[str, Any]]] = {}
    for line in lines:
        message = line.get("message") or {}
        usage = message.get("usage")
        if line.get("type") != "assistant" or not usage or message.get("model") == "<synthetic>":
            continue
        total = sum(usage.get(name) or 0 for name in USAGE)
        if message["id"] not in kept or total > kept[message["id"]][0]:
            kept[message["id"]] = (total, line)
    booked = {}
    for key, (_total, line) in kept.items():
        answered = by_uuid.get(line.get("parentUuid") or "", {})
        branch = line.get("gitBranch") or answered.get("gitBranch") or "(no branch)"
        usage = line["message"]["usage"]
        booked[key] = (branch, line["sessionId"], tuple(usage.get(n) or 0 for n in USAGE))
    return booked


def test_cost_by_branch_equals_an_independent_sum_over_git_branch() -> None:
    booked = independent_booking(PATHS)
    expected: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"requests": 0, "tokens": [0, 0, 0, 0], "sessions": set(), "cost": 0.0}
    )
    costs = {r.key: r.cost for r in load(PATHS, use_index=False).requests}
    assert costs.keys() == booked.keys()
    for key, (branch, session, tokens) in booked.items():
        row = expected[branch]
        row["requests"] += 1
        row["tokens"] = [a + b for a, b in zip(row["tokens"], tokens, strict=True)]
        row["sessions"].add(session)
        cost = costs[key]
        assert cost is not None  # every model of these samples is priced
        row["cost"] += cost.total_usd
    arguments = ["sessions", "--by", "branch", "--json", *map(str, PATHS)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    rows = {row["branch"]: row for row in json.loads(result.stdout)["rows"]}
    assert rows.keys() == expected.keys() == {"(no branch)", "main", "claude"}
    for branch, want in expected.items():
        got = rows[branch]
        writes = got["cache_write_5m_tokens"] + got["cache_write_1h_tokens"]
        tokens = [got["input_tokens"], got["cache_read_tokens"], writes, got["output_tokens"]]
        assert (got["requests"], tokens) == (want["requests"], want["tokens"]), branch
        assert got["sessions"] == len(want["sessions"]), branch
        assert got["cost_usd"] == round(want["cost"], MONEY_DIGITS), branch
    assert rows["main"]["requests"] == 20 and rows["(no branch)"]["requests"] == 267
