"""Provides `session_numbers`: a session's cost, hit rate and last cache break, from its files.

Why through a `Workspace` of the session's own files: it reads them through the index (only
lines appended since the last run are parsed) and gives the numbers `sniff scan --json` gives
for the same session. Prices come only from the tables kept by earlier runs (`CachedPrices`): a
model not among them is unpriced here, so the price library is never imported. Nothing
heavy is imported until numbers are worked out (`statusline.memo` may have them).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True, slots=True)
class LastBreak:
    """The session's latest cache break."""

    when: datetime
    cause: str
    cost_usd: float | None


@dataclass(frozen=True, slots=True)
class SessionNumbers:
    """What the status line shows of one session."""

    cost_usd: float
    unpriced_requests: int
    requests: int
    hit_rate: float | None
    last_break: LastBreak | None


def session_files(transcript: Path) -> list[Path]:
    """The transcript, and the folder of its subagents' transcripts where there is one."""
    folder = transcript.with_suffix("")
    return [transcript, folder] if folder.is_dir() else [transcript]


def session_numbers(transcript: Path, session_id: str | None) -> SessionNumbers | None:
    """The numbers of `session_id` (else of every session) in `transcript`'s files; None when
    they hold no request."""
    from sniff.statusline.prices import CachedPrices
    from sniff.workspace import Workspace

    workspace = Workspace([str(path) for path in session_files(transcript)])
    workspace.prices = CachedPrices()
    sessions = workspace.summary()["sessions"]
    chosen = [row for row in sessions if session_id is None or row["session"] == session_id]
    chosen = chosen or sessions
    if not chosen:
        return None
    requests = sum(int(row["requests"]) for row in chosen)
    prompt = sum(int(row["prompt_tokens"]) for row in chosen)
    read = sum(int(row["cache_read_tokens"]) for row in chosen)
    breaks = [
        found
        for found in workspace.break_report().breaks
        if session_id is None or found.request.session_id == session_id
    ]
    last = max(breaks, key=lambda found: found.request.ended_at, default=None)
    return SessionNumbers(
        cost_usd=sum(float(row["cost_usd"] or 0.0) for row in chosen),
        unpriced_requests=sum(int(row["unpriced_requests"]) for row in chosen),
        requests=requests,
        hit_rate=read / prompt if prompt else None,
        last_break=None
        if last is None
        else LastBreak(last.request.ended_at, last.cause, last.cost_usd),
    )
