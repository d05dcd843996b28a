"""Builds a planted drift archive from a bundled Claude Code sample session: copies of it spread
over three weeks, their usage and `version` rewritten, so the true hit rates are known."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SAMPLE = (
    Path(__file__).resolve().parents[1]
    / "sample_logs/claude-code/projects/-home-dana-src-agent-habits"
    / "894af375-a52f-4d5a-a92d-9d9c279b1489.jsonl"
)
START = datetime(2026, 3, 1, tzinfo=UTC)
DAYS = 21
CHANGE_DAY = 10
"""Sessions from START + CHANGE_DAY days on run the new version."""
HOURS = (9, 13, 17)
OLD, NEW = "2.1.38", "2.1.39"
PROMPT = 10_000
WRITE = 100
"""Cache writes per request: below the breaks' tolerance, so no request is a break."""


def usage(hit: float) -> dict[str, Any]:
    """A prompt of PROMPT tokens reading `hit` of itself from the cache, the rest uncached
    input but for WRITE tokens written."""
    read = round(PROMPT * hit)
    write = WRITE
    return {
        "input_tokens": PROMPT - read - write,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": write,
        "cache_creation": {"ephemeral_5m_input_tokens": write, "ephemeral_1h_input_tokens": 0},
        "output_tokens": 120,
    }


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _copy(lines: list[dict[str, Any]], tag: str, start: datetime, version: str, hit: float) -> str:
    first = min(_when(line["timestamp"]) for line in lines if "timestamp" in line)

    def rewritten(value: Any) -> Any:  # subagents' lines nest whole messages: every level
        if isinstance(value, list):
            return [rewritten(item) for item in value]
        if not isinstance(value, dict):
            return value
        out = {key: rewritten(item) for key, item in value.items()}
        for key in ("uuid", "parentUuid", "requestId", "sessionId", "agentId"):
            if isinstance(out.get(key), str):
                out[key] = f"{out[key]}-{tag}"
        if isinstance(out.get("id"), str) and out["id"].startswith("msg_"):
            out["id"] = f"{out['id']}-{tag}"
        if isinstance(out.get("timestamp"), str):
            out["timestamp"] = _stamp(start + (_when(out["timestamp"]) - first))
        if "version" in out:
            out["version"] = version
        if isinstance(out.get("usage"), dict) and "input_tokens" in out["usage"]:
            out["usage"] = usage(hit)
        return out

    return "".join(json.dumps(rewritten(line)) + "\n" for line in lines)


def plant(folder: Path, *, before: float = 0.95, after: float = 0.70) -> Path:
    """The archive under `folder/projects`: 3 sessions a day for DAYS days, reading `before`
    of their prompt from cache on version OLD, then `after` on NEW from day CHANGE_DAY."""
    lines = [json.loads(text) for text in SAMPLE.read_text(encoding="utf-8").splitlines()]
    project = folder / "projects" / "-home-dana-src-agent-habits"
    project.mkdir(parents=True)
    for day in range(DAYS):
        new = day >= CHANGE_DAY
        for hour in HOURS:
            tag = f"d{day:02d}h{hour:02d}"
            start = START + timedelta(days=day, hours=hour)
            text = _copy(lines, tag, start, NEW if new else OLD, after if new else before)
            (project / f"session-{tag}.jsonl").write_text(text, encoding="utf-8")
    return folder / "projects"
