"""Provides the lines of a JSONL file as parsed objects, with every unreadable line accounted for.

Why: a log being written has a cut last line, an editor leaves a byte-order mark, a crash leaves
binary garbage. None of that may abort a run or silently drop the good lines around it, so each
line is decoded on its own and each failure becomes a `LineIssue` naming file, line and reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from sniff.model import LineIssue

BOM = b"\xef\xbb\xbf"


def read_bytes(path: str) -> tuple[bytes | None, LineIssue | None]:
    """The whole file, or the issue that kept it from being read."""
    try:
        with open(path, "rb") as handle:
            return handle.read(), None
    except OSError as error:
        return None, LineIssue(path, 0, f"cannot read file: {error.strerror or error}")


def json_objects(
    path: str, data: bytes, issues: list[LineIssue]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (1-based line number, object) for every line holding a JSON object.

    Blank lines are ignored; any other line that is not a JSON object is appended to `issues`.
    """
    if data.startswith(BOM):
        data = data[len(BOM) :]
    lines = data.split(b"\n")
    last = len(lines)
    for number, raw in enumerate(lines, start=1):
        if not raw or raw.isspace():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError as error:
            value = _recover(raw)
            if value is None:
                issues.append(LineIssue(path, number, _reason(raw, error, number == last)))
                continue
            issues.append(LineIssue(path, number, "invalid UTF-8 bytes replaced; line kept", True))
        if isinstance(value, dict):
            yield number, value
        else:
            issues.append(LineIssue(path, number, f"a JSON {_json_type(value)}, not an object"))


def _recover(raw: bytes) -> Any:
    """Parse a line whose only fault is invalid UTF-8, with the bad bytes replaced."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return orjson.loads(raw.decode("utf-8", errors="replace"))
        except orjson.JSONDecodeError:
            return None
    return None


def _reason(raw: bytes, error: orjson.JSONDecodeError, is_last: bool) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte {bad.start + 1}) and not valid JSON"
    if is_last:
        return "truncated last line (file still being written?)"
    return f"invalid JSON: {error.msg}"


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"
