"""Provides `compose`: the status line's text from its parts, coloured or plain.

Parts, in the order `--parts` names them: `model`, `session` (its cost), `today` (every Claude
Code session's cost today), `block` (the active 5-hour block's cost, time left and burn over
the last 30 minutes), `hit` (the session's cache hit rate) and `break` (its last cache break:
`⚠ rebuilt 4m ago: ttl_expired $0.41`). `today` and `block` come from the kept numbers
(`statusline.archive`). A part with
nothing to show is left out; an unpriced cost says so, never $0. Each part's text keeps to
one line, its control characters shown as stand-ins (`shown.one_line`): the model's name comes
from the input, a break's cause from the logs, and a status bar obeys escape sequences.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sniff.shown import one_line
from sniff.statusline.archive import Kept
from sniff.statusline.session import SessionNumbers
from sniff.statusline.stdin import StatusInput

SEPARATOR = " · "
_COLOURS = {
    "model": "36",
    "session": "32",
    "today": "32",
    "block": "35",
    "hit": "34",
    "break": "33",
}


def usd(value: float) -> str:
    """Dollars as the status line shows them."""
    return f"${value:,.2f}"


def ago(seconds: float) -> str:
    """A short age: `45s`, `4m`, `2h13m`, `3d`."""
    seconds = max(seconds, 0.0)
    if seconds < 60:
        return f"{int(seconds)}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        hours, minutes = divmod(int(seconds // 60), 60)
        return f"{hours}h{minutes:02d}m"
    return f"{int(seconds // 86400)}d"


def archive_text(part: str, kept: Kept | None, now: datetime) -> str:
    """The `today` or `block` part's text ("" when not kept, or no block is active)."""
    if kept is None:
        return ""
    if part == "today":
        if not kept.day_start <= now.timestamp() < kept.day_end:
            return ""
        return (
            "today unpriced"
            if kept.today_usd is None and kept.today_requests
            else (f"today {usd(kept.today_usd or 0.0)}")
        )
    if kept.block_end is None or kept.block_end <= now.timestamp():
        return ""
    cost = "unpriced" if kept.block_usd is None else usd(kept.block_usd)
    rate = kept.block_usd_per_hour
    burning = f" ({usd(rate)}/h)" if rate is not None and kept.block_usd is not None else ""
    return f"block {cost} {ago(kept.block_end - now.timestamp())} left{burning}"


def part_text(
    part: str, given: StatusInput, numbers: SessionNumbers | None, kept: Kept | None, now: datetime
) -> str:
    """One part's text ("" when it has nothing to show)."""
    if part == "model":
        return given.model or ""
    if part in ("today", "block"):
        return archive_text(part, kept, now)
    if numbers is None:
        return ""
    if part == "session":
        if numbers.unpriced_requests == numbers.requests:
            return "session unpriced"
        unpriced = f" (+{numbers.unpriced_requests} unpriced)" if numbers.unpriced_requests else ""
        return f"session {usd(numbers.cost_usd)}{unpriced}"
    if part == "hit":
        return "" if numbers.hit_rate is None else f"hit {numbers.hit_rate:.0%}"
    last = numbers.last_break
    if part != "break" or last is None:
        return ""
    cost = "unpriced" if last.cost_usd is None else usd(last.cost_usd)
    age = ago((now - last.when.astimezone(UTC)).total_seconds())
    return f"⚠ rebuilt {age} ago: {last.cause} {cost}"


def compose(
    parts: Sequence[str],
    given: StatusInput,
    numbers: SessionNumbers | None,
    kept: Kept | None = None,
    *,
    colour: bool,
    now: datetime | None = None,
) -> str:
    """The line: the parts that have something to show, joined."""
    moment = now or datetime.now(UTC)
    shown = [(part, one_line(part_text(part, given, numbers, kept, moment))) for part in parts]
    return SEPARATOR.join(
        f"\x1b[{_COLOURS[part]}m{text}\x1b[0m" if colour else text for part, text in shown if text
    )
