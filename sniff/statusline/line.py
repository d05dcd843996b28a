"""Provides `compose`: the status line's text from its parts, coloured or plain.

Parts, in the order `--parts` names them: `model`, `session` (its cost), `hit` (its cache hit
rate) and `break` (its last cache break: `⚠ rebuilt 4m ago: ttl_expired $0.41`). A part with
nothing to show is left out; an unpriced cost says so, never $0.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sniff.statusline.session import SessionNumbers
from sniff.statusline.stdin import StatusInput

PARTS = ("model", "session", "hit", "break")
SEPARATOR = " · "
_COLOURS = {"model": "36", "session": "32", "hit": "34", "break": "33"}


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


def part_text(part: str, given: StatusInput, numbers: SessionNumbers | None, now: datetime) -> str:
    """One part's text ("" when it has nothing to show)."""
    if part == "model":
        return given.model or ""
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
    *,
    colour: bool,
    now: datetime | None = None,
) -> str:
    """The line: the parts that have something to show, joined."""
    moment = now or datetime.now(UTC)
    shown = [(part, part_text(part, given, numbers, moment)) for part in parts]
    return SEPARATOR.join(
        f"\x1b[{_COLOURS[part]}m{text}\x1b[0m" if colour else text for part, text in shown if text
    )
