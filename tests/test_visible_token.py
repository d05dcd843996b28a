"""Time to first visible token on the shared agtrace Claude Code sample (a thinking model),
against an independent count of its lines: exact to the millisecond.

The count: an assistant line's response is its `message.id`; its start is the time of the line
the response's first line answers (its `parentUuid`), TTFT ends at the response's first line,
and the first visible token at its first line holding a `text` block, else its first `tool_use`
line.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from sniff.analyses.latency.timing import timing
from sniff.ingest.files.log_formats import parse_any
from sniff.ingest.merge import merge
from tests.conftest import SHARED_SAMPLES as SHARED
from tests.conftest import needs_shared
from tests.test_shared_samples import AGTRACE

pytestmark = needs_shared

FILES = ("claude_session.jsonl", "claude_agent.jsonl")


def _millis(stamp: str) -> int:
    return round(datetime.fromisoformat(stamp).timestamp() * 1000)


def independent_count(path: Path) -> dict[str, tuple[int, int]]:
    """message id → (TTFT, time to first visible token) in milliseconds, read by hand."""
    times: dict[str, str] = {}
    first: dict[str, dict[str, str]] = {}
    for text in path.read_text().splitlines():
        line = json.loads(text)
        if line.get("uuid") and line.get("timestamp"):
            times.setdefault(line["uuid"], line["timestamp"])
        if line.get("type") != "assistant":
            continue
        stamp, message = line["timestamp"], line["message"]
        seen = first.setdefault(message["id"], {"at": stamp, "parent": line["parentUuid"]})
        for block in message["content"]:
            seen.setdefault(block["type"], stamp)  # the lines are in time order here
    counted = {}
    for key, seen in first.items():
        start = _millis(times[seen["parent"]])
        visible = seen.get("text") or seen["tool_use"]
        counted[key] = (_millis(seen["at"]) - start, _millis(visible) - start)
    return counted


def test_ttft_and_visible_token_match_an_independent_count() -> None:
    expected: dict[str, tuple[int, int]] = {}
    responses = []
    for name in FILES:
        path = SHARED / AGTRACE / name
        expected |= independent_count(path)
        responses += parse_any(str(path), "agtrace", "claude-code").responses
    measured = {}
    for request in merge(responses):
        item = timing(request)
        assert item is not None and item.ttft is not None and item.visible is not None
        measured[request.key] = (round(item.ttft * 1000), round(item.visible * 1000))
    assert measured == expected
    assert len(expected) == 7
    # thinking came first in six of them: the first visible token came later than the first
    assert sum(visible > ttft for ttft, visible in expected.values()) == 6
    assert expected["msg_01RcDNkcZxwfy4UY9xdcSoX3"] == (11_633, 12_244)
