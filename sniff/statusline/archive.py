"""Provides the kept numbers of the whole archive: today's cost and the active 5-hour block.

Why kept: summing today and the block reads every transcript (through the index), which takes
longer than a status line may. So a detached background run (`sniff statusline --refresh`,
started by a status line whose kept numbers are missing or old) works them out, warming the
index as it goes, and writes them to a small file in the cache folder; the status line shows
them while they are recent, and the time left and age from the clock. The numbers are those of
`sniff blocks` (Claude Code's requests, the peer's windows) and of the day in `--tz`
(default: the machine's zone).
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path

import msgspec

from sniff import atomic_write
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.paths import cache_folder

KEPT_FILE = "statusline.json"
LOCK_FILE = "statusline.refresh"
SHOWN_SECONDS = 600.0
"""Kept numbers older than this are not shown."""
REFRESH_SECONDS = 15.0
"""Kept numbers older than this are worked out again in the background."""
LOCK_SECONDS = 120.0
"""A refresh started less long ago is still running (or died): start no other."""


class Kept(msgspec.Struct, frozen=True):
    """The archive's numbers as a refresh found them."""

    written: float
    """When, in epoch seconds."""
    zone: str
    """The `--tz` it was worked out in ("": the machine's zone)."""
    day: str
    """The local day (ISO) `today_usd` is of."""
    day_start: float
    day_end: float
    """The local day's bounds, in epoch seconds."""
    today_usd: float | None
    """None: today's requests are all unpriced (or there are none: `today_requests`)."""
    today_requests: int
    block_end: float | None = None
    """The active block's end (epoch seconds); None without an active block."""
    block_usd: float | None = None
    block_usd_per_hour: float | None = None
    """Its burn over the last 30 minutes."""


def kept_path() -> Path | None:
    folder = cache_folder()
    return None if folder is None else folder / KEPT_FILE


def load(now: float) -> Kept | None:
    """The kept numbers when recent enough to show, else None."""
    path = kept_path()
    try:
        kept = msgspec.json.decode(read_regular(path, KEPT_FILE_BYTES), type=Kept) if path else None
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None
    return kept if kept is not None and 0 <= now - kept.written <= SHOWN_SECONDS else None


def wants_refresh(kept: Kept | None, now: float, zone: str) -> bool:
    """Whether the kept numbers are missing, old, of another day or of another zone."""
    if kept is None or kept.zone != zone or now - kept.written > REFRESH_SECONDS:
        return True
    return not kept.day_start <= now < kept.day_end


def start_refresh(zone: str) -> bool:
    """Start `sniff statusline --refresh` detached, its output discarded, unless one is running;
    whether one was started."""
    import subprocess  # only here: a status line that starts no refresh need not import it

    folder = cache_folder()
    if folder is None:
        return False
    lock = folder / LOCK_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime < LOCK_SECONDS:
            return False
        lock.touch()
        zoned = ["--tz", zone] if zone else []
        subprocess.Popen(
            [sys.executable, "-m", "sniff", "statusline", "--refresh", *zoned],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True,
        )  # fmt: skip
    except OSError:
        return False
    return True


def refresh(now: datetime | None = None, zone: str = "") -> Kept:
    """Work the numbers out from every Claude Code transcript (through the index) and keep them."""
    from sniff.analyses.cost.block_burn import burn
    from sniff.analyses.cost.blocks import active_block, build_blocks
    from sniff.analyses.cost.summary import LocalDays
    from sniff.workspace import Workspace

    moment = now or datetime.now(UTC)
    workspace = Workspace(harness="claude-code", tz=zone or None)
    requests = workspace.filters.apply(workspace.dataset("sized").requests)
    days = LocalDays(workspace.zone)
    today = days(moment)
    todays = [request for request in requests if days(request.when) == today]
    priced = [request.cost.total_usd for request in todays if request.cost is not None]
    current = active_block(build_blocks(requests, workspace.break_report().breaks), moment)
    burning = None if current is None else burn(current, moment)
    start = datetime.combine(moment.astimezone(workspace.zone).date(), dt_time(), workspace.zone)
    end = datetime.combine(start.date() + timedelta(days=1), dt_time(), workspace.zone)
    kept = Kept(
        written=moment.timestamp(),
        zone=zone,
        day=today,
        day_start=start.timestamp(),
        day_end=end.timestamp(),
        today_usd=sum(priced) if priced else None,
        today_requests=len(todays),
        block_end=None if current is None else current.end.timestamp(),
        block_usd=None if current is None else current.totals.cost,
        block_usd_per_hour=None if burning is None else burning.recent.usd_per_hour,
    )
    path = kept_path()
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write.replace(path, msgspec.json.encode(kept))
        (path.parent / LOCK_FILE).unlink(missing_ok=True)
    return kept
