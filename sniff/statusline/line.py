"""Provides `compose`: the status line's text from its parts, coloured or plain.

Parts, in the order `--parts` names them: `model`, `session` (its cost, and Claude Code's own
where it differs), `today` (every Claude Code session's cost today), `block` (the active 5-hour
block's cost, time left and burn over the last 30 minutes), `limits` (Claude Code's own usage
limits), `hit` (the session's cache hit rate), `cache` (Claude Code's prompt cache: time left,
or cold and why) and `break` (its last cache break: `⚠ rebuilt 4m ago: ttl_expired $0.41`).
`today` and `block` come from the kept numbers (`statusline.archive`); `limits` and `cache`
from the input (`statusline.told_text`). A part with nothing to show is left out; an unpriced
cost says so, never $0. Each part's text keeps to one line, its control characters shown as
stand-ins (`shown.one_line`): the model's name and a miss's cause come from the input, a
break's cause from the logs, and a status bar obeys escape sequences.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sniff.shown import one_line
from sniff.statusline.archive import Kept
from sniff.statusline.session import SessionNumbers
from sniff.statusline.stdin import StatusInput
from sniff.statusline.told_text import ago, cache_text, limits_text, usd

SEPARATOR = " · "
CENT = 0.01 + 1e-9
"""Two session costs closer than this are the same to the cent (the float's own error aside)."""
_COLOURS = {
    "model": "36",
    "session": "32",
    "today": "32",
    "block": "35",
    "limits": "35",
    "hit": "34",
    "cache": "33",
    "break": "33",
}


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


def session_text(numbers: SessionNumbers | None, claude_usd: float | None) -> str:
    """The `session` part: sniff's cost of the session, and Claude Code's own beside it where
    they differ by more than a cent (Claude Code's alone when sniff has no numbers)."""
    if numbers is None:
        return "" if claude_usd is None else f"session {usd(claude_usd)} (Claude Code)"
    cost: float | None = None
    if numbers.unpriced_requests == numbers.requests:
        own = "session unpriced"
    else:
        cost = numbers.cost_usd
        unpriced = f" (+{numbers.unpriced_requests} unpriced)" if numbers.unpriced_requests else ""
        own = f"session {usd(cost)}{unpriced}"
    if claude_usd is None or (cost is not None and abs(cost - claude_usd) <= CENT):
        return own
    return f"{own} (Claude Code {usd(claude_usd)})"


def break_text(numbers: SessionNumbers | None, now: datetime) -> str:
    """The `break` part: the session's last cache break, its cause and what it cost."""
    last = None if numbers is None else numbers.last_break
    if last is None:
        return ""
    cost = "unpriced" if last.cost_usd is None else usd(last.cost_usd)
    age = ago((now - last.when.astimezone(UTC)).total_seconds())
    return f"⚠ rebuilt {age} ago: {last.cause} {cost}"


def part_text(
    part: str, given: StatusInput, numbers: SessionNumbers | None, kept: Kept | None, now: datetime
) -> str:
    """One part's text ("" when it has nothing to show)."""
    if part == "model":
        return given.model or ""
    if part in ("today", "block"):
        return archive_text(part, kept, now)
    if part == "session":
        return session_text(numbers, given.claude_cost_usd)
    if part == "limits":
        return limits_text(given.limits, now.timestamp())
    if part == "cache":
        return cache_text(given.cache, given.model_id, now)
    if part == "hit":
        return "" if numbers is None or numbers.hit_rate is None else f"hit {numbers.hit_rate:.0%}"
    return break_text(numbers, now) if part == "break" else ""


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
