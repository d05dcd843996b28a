"""Grow a Claude Code transcript the way a session goes on: its last lines again, as a new turn.

A continuation takes the file's last `count` lines and appends them again with fresh record
uuids, message, request and tool ids, the same `sessionId`, every timestamp moved past the
file's last one, and every `parentUuid` that points outside the appended lines set to the
file's last `uuid` (the new turn continues the last line). A continuation can hold a
compaction (a `compact_boundary` system line and its summary, as Claude Code writes them),
and a new subagent file can appear beside the session, as a Task call makes one.

Usage (from another bench script): `continue_session(path, 40, serial)`.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

UUID_RE = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ID_RE = re.compile(rb"\b(?:msg|req|toolu)_[0-9A-Za-z]+")
TIME_RE = re.compile(rb'"timestamp":"([^"]+)"')
TAIL = 4 * 1024 * 1024
"""How far back from the end a continuation reads for its lines (a few MB hold 40 lines)."""


def _last_lines(path: Path, count: int) -> list[bytes]:
    with path.open("rb") as handle:
        size = handle.seek(0, 2)
        handle.seek(max(0, size - TAIL))
        lines = handle.read().splitlines(keepends=True)
    return lines[-count:]


def _when(stamp: bytes) -> datetime:
    return datetime.fromisoformat(stamp.decode().replace("Z", "+00:00"))


def continuation(path: Path, count: int, serial: int, *, compaction: bool = False) -> bytes:
    """The bytes of a new turn: the last `count` lines of `path` with fresh ids and times."""
    lines = _last_lines(path, count)
    session = json.loads(lines[-1])["sessionId"]
    last_uuid = next(json.loads(line)["uuid"] for line in reversed(lines) if b'"uuid"' in line)
    stamps = [_when(m.group(1)) for line in lines for m in TIME_RE.finditer(line)]
    shift = max(stamps) - min(stamps) + timedelta(seconds=1)
    inside = {m.group() for line in lines for m in UUID_RE.finditer(line)}
    fresh = {
        old: str(uuid.uuid5(uuid.NAMESPACE_OID, f"{old!r}{serial}")).encode() for old in inside
    }
    fresh[session.encode()] = session.encode()
    originals = {json.loads(line).get("uuid") for line in lines}
    out = []
    for line in lines:
        record: dict[str, Any] = json.loads(line)
        parent = record.get("parentUuid")
        text = UUID_RE.sub(lambda m: fresh[m.group()], line)
        text = ID_RE.sub(lambda m: m.group() + b"n%06d" % serial, text)
        text = TIME_RE.sub(lambda m: b'"timestamp":"%s"' % _moved(m.group(1), shift), text)
        moved: dict[str, Any] = json.loads(text)
        if parent and parent not in originals:  # the new turn continues the file's last line
            moved["parentUuid"] = last_uuid
        out.append(json.dumps(moved, separators=(",", ":")).encode() + b"\n")
    if compaction:
        out[len(out) // 2 : len(out) // 2] = _compaction(json.loads(out[len(out) // 2 - 1]))
    return b"".join(out)


def _moved(stamp: bytes, shift: timedelta) -> bytes:
    moved = (_when(stamp) + shift).isoformat(timespec="milliseconds")
    return moved.replace("+00:00", "Z").encode()


def _compaction(before: dict[str, Any]) -> list[bytes]:
    """A compact boundary and the summary that follows it, after the record `before`."""
    boundary_id, summary_id = str(uuid.uuid4()), str(uuid.uuid4())
    common = {"sessionId": before["sessionId"], "timestamp": before["timestamp"],
              "cwd": before.get("cwd"), "version": before.get("version")}  # fmt: skip
    boundary = {
        **common, "type": "system", "subtype": "compact_boundary", "uuid": boundary_id,
        "parentUuid": None, "logicalParentUuid": before["uuid"],
        "content": "Conversation compacted", "compactMetadata": {"trigger": "auto"},
    }  # fmt: skip
    summary = {
        **common, "type": "user", "uuid": summary_id, "parentUuid": boundary_id,
        "isCompactSummary": True,
        "message": {"role": "user", "content": "This session is being continued..."},
    }  # fmt: skip
    return [
        json.dumps(item, separators=(",", ":")).encode() + b"\n" for item in (boundary, summary)
    ]


def continue_session(path: Path, count: int, serial: int, *, compaction: bool = False) -> int:
    """Append a continuation to `path`; the number of bytes appended."""
    added = continuation(path, count, serial, compaction=compaction)
    with path.open("ab") as handle:
        handle.write(added)
    return len(added)


def new_subagent(path: Path, count: int, serial: int) -> Path:
    """Write a new subagent transcript beside the session, as a Task call makes one: a
    continuation's lines as the subagent's (`isSidechain`, its `agentId`), in
    `<session>/subagents/agent-<id>.jsonl`; its path."""
    agent = uuid.uuid5(uuid.NAMESPACE_OID, f"agent{serial}").hex[:17]
    lines = []
    for line in continuation(path, count, serial).splitlines():
        record = json.loads(line)
        record.update(isSidechain=True, agentId=agent)
        lines.append(json.dumps(record, separators=(",", ":")).encode() + b"\n")
    target = path.with_suffix("") / "subagents" / f"agent-{agent}.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"".join(lines))
    return target
