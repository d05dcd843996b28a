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

    # The zone and format a plain `sniff scan` reads with (a parser is imported only for lines
    # not read yet): the files' index rows and the part of their unit are then those a scan
    # of their folder kept, so the first status line after a scan analyses nothing again,
    # and a scan after a status line reads what it already extended
    files = [str(path) for path in session_files(transcript)]
    workspace = Workspace(files)
    workspace.prices = CachedPrices()
    numbers = workspace.scan()
    sessions = numbers.summary.sessions
    if not any(row.session_id == session_id for row in sessions):
        session_id = None  # not among them: the files' sessions, all of them
    totals = [row.totals for row in sessions if session_id in (None, row.session_id)]
    if not totals:
        return None
    prompt = sum(total.prompt_tokens for total in totals)
    last = numbers.breaks.latest
    if last is not None and session_id not in (None, last.request.session_id):
        # the files' last break is another session's: find this one's among all of them
        breaks = workspace.break_report().breaks
        mine = (found for found in breaks if found.request.session_id == session_id)
        last = max(mine, key=lambda found: found.request.ended_at, default=None)
    return SessionNumbers(
        cost_usd=sum(total.cost_usd for total in totals),
        unpriced_requests=sum(total.unpriced_requests for total in totals),
        requests=sum(total.requests for total in totals),
        hit_rate=sum(total.cache_read_tokens for total in totals) / prompt if prompt else None,
        last_break=None
        if last is None
        else LastBreak(last.request.ended_at, last.cause, last.cost_usd),
    )
