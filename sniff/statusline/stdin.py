"""Provides `read_input`: Claude Code's status-line JSON from stdin, read with a timeout.

Claude Code pipes an object with `session_id`, `transcript_path`, `model` (`id`,
`display_name`), `workspace` (`current_dir`, `project_dir`), `cost` and more, and since 2.1.25x
what it knows of its limits and prompt cache (read by `statusline.told`); any field may be
absent, and absent ones are ignored. A number orjson refuses (NaN, Infinity, an integer past 64
bits) has the object read again by the standard library, that number as nothing: one odd field
never costs the rest of the line. Reading never blocks the status bar: stdin that stays silent
past the timeout, or is closed, counts as no input. A byte order mark before the object (as
Windows tools write UTF-8) is skipped.
"""

from __future__ import annotations

import codecs
import os
import select
import sys
import time
from dataclasses import dataclass
from typing import Any, BinaryIO

import orjson

from sniff.statusline.told import Limit, PromptCache, claude_cost, limits, prompt_cache

LIMIT_BYTES = 1 << 20
"""More than any status-line object; what is beyond is not read."""


@dataclass(frozen=True, slots=True)
class StatusInput:
    """The fields of Claude Code's status-line object that sniff uses."""

    session_id: str | None = None
    transcript_path: str | None = None
    model: str | None = None
    """The model's display name (else its id)."""
    current_dir: str | None = None
    model_id: str | None = None
    """The model's id, which prices are kept under."""
    limits: tuple[Limit, ...] = ()
    """Claude Code's own usage limits (`rate_limits`)."""
    cache: PromptCache | None = None
    """Claude Code's prompt cache (`prompt_cache`)."""
    claude_cost_usd: float | None = None
    """Claude Code's own cost of the session (`cost.total_cost_usd`)."""


def _loaded(raw: bytes) -> Any:
    """The JSON value in `raw`; None when there is none."""
    text = raw.removeprefix(codecs.BOM_UTF8)
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    import json  # only for what orjson refuses: rare, and not worth its import otherwise

    try:  # NaN and the infinities become null; a huge integer stays one (then dropped)
        return json.loads(text, parse_constant=lambda _: None)
    except (ValueError, RecursionError):  # not JSON (UnicodeDecodeError is a ValueError)
        return None


def parse(raw: bytes) -> StatusInput | None:
    """The fields of one status-line object; None when `raw` is not a JSON object."""
    data = _loaded(raw)
    if not isinstance(data, dict):
        return None
    model, workspace = data.get("model"), data.get("workspace")
    model_name = (
        _text(model, "display_name") or _text(model, "id") if isinstance(model, dict) else None
    )
    return StatusInput(
        session_id=_text(data, "session_id"),
        transcript_path=_text(data, "transcript_path"),
        model=model_name or (model if isinstance(model, str) and model else None),
        current_dir=_text(workspace, "current_dir") or _text(data, "cwd"),
        model_id=_text(model, "id"),
        limits=limits(data),
        cache=prompt_cache(data),
        claude_cost_usd=claude_cost(data),
    )


def _text(data: Any, key: str) -> str | None:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) and value else None


def read_input(stream: BinaryIO | None = None, timeout: float = 0.5) -> StatusInput | None:
    """The status-line object on `stream` (stdin), or None: empty, odd, closed, or silent too
    long."""
    if stream is None:
        stream = getattr(sys.stdin, "buffer", None)  # None when started with stdin closed
        if stream is None:
            return None
    try:
        return parse(_read(stream, timeout))
    except (OSError, ValueError):
        return None


def _read(stream: BinaryIO, timeout: float) -> bytes:
    """What `stream` holds until its end, or what came before `timeout` seconds passed."""
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError, AttributeError):  # an in-memory stream: never blocks
        return stream.read(LIMIT_BYTES)
    if os.isatty(descriptor):
        return b""
    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    size = 0
    while size < LIMIT_BYTES:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([descriptor], [], [], left)[0]:
            break
        chunk = os.read(descriptor, 65536)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)
