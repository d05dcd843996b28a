"""Provides the events of `sniff watch`: what a step of following the logs found, as it happened.

A new response (its tokens and cost), a cache break among the new requests (judged by the
breaks analysis on the whole session, so a new request's predecessor is known), a compaction
(the first call after the log marks the conversation compacted), a failed tool call, and a
session started (one seen for the first time after the first step); `watch_idle` adds a
session ended (idle) or resumed. A line skipped (unreadable or implausible, the `LineIssue` a
scan lists) is an event too, with its file and line: no line leaves the numbers unsaid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo
from functools import partial

from sniff.analyses.cache.breaks import Break, find_breaks
from sniff.analyses.cost.blocks import Block, active_block, build_blocks
from sniff.analyses.cost.summary import LocalDays, Totals
from sniff.analyses.latency.timing import timing
from sniff.analyses.live.breaks import LiveBreaks
from sniff.ingest.files.follow import Growth
from sniff.model import LineIssue, Request
from sniff.pricing import PriceBook

KINDS = (
    "session_started", "session_resumed", "compaction", "response", "cache_break", "tool_failed",
    "session_ended", "line_skipped",
)  # fmt: skip
"""The kinds of event, in the order of events at the same time."""


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, with what a script or a person needs to act on it."""

    kind: str
    """One of `KINDS`."""
    at: datetime
    session_id: str
    project: str
    model: str = ""
    agent: str = ""
    """The request's agent: main, subagent, compaction or other."""
    harness: str = ""
    """The agent whose logs it is in: claude-code, codex, ..."""
    tokens: dict[str, int] | None = None
    """The request's tokens by class (responses, compactions, breaks)."""
    cost_usd: float | None = None
    """The request's cost, or for a break what the rebuild cost more than a read (None:
    unpriced)."""
    cause: str = ""
    """A break's cause; a failed tool call's tool."""
    detail: str = ""
    reason: str = ""
    """Why a session counts as ended: "idle" (the logs mark no end); why a line was skipped
    (`LineIssue.reason`)."""
    idle_minutes: float | None = None
    """For an ended session, the idle time it was judged by (`--idle`)."""
    file: str = ""
    """A skipped line's file."""
    line: int | None = None
    """A skipped line's number (1-based)."""
    ttft_s: float | None = None
    """A response's time to first token, where its log times it."""
    tpot_s: float | None = None
    """A response's time per output token after the first, where its log times both ends."""
    exact: bool | None = None
    """Whether those come from exact timestamps (a proxy's record, telemetry, claude-trace)."""


def tokens_of(request: Request) -> dict[str, int]:
    """A request's tokens by class."""
    usage = request.usage
    return {
        "input": usage.input_tokens,
        "cache_read": usage.cache_read_tokens,
        "cache_write_5m": usage.cache_write_5m_tokens,
        "cache_write_1h": usage.cache_write_1h_tokens,
        "output": usage.output_tokens,
    }


def events_of(
    growth: Growth,
    session_requests: Callable[[str], Sequence[Request]],
    prices: PriceBook,
    *,
    known_sessions: set[str],
    keep: Callable[[Request], bool] = lambda _request: True,
    live: LiveBreaks | None = None,
) -> list[Event]:
    """The events of one step, in time order; `known_sessions` is updated with the sessions
    seen (pass an empty set on the first step only to report every session as started).
    `live`: what each session's requests so far keep for judging breaks (without it, each
    touched session is judged whole)."""
    events: list[Event] = []
    new_keys = {request.key for request in growth.requests if keep(request)}
    for request in growth.requests:
        if request.key not in new_keys:
            continue
        if request.session_id not in known_sessions:
            known_sessions.add(request.session_id)
            events.append(_of(request, "session_started", tokens=None, cost=None))
        if request.compacted:
            events.append(_of(request, "compaction", tokens=None, cost=None))
        cost = request.cost.total_usd if request.cost is not None else None
        events.append(
            _timed(_of(request, "response", tokens=tokens_of(request), cost=cost), request)
        )
    for found in _breaks(growth, session_requests, prices, live):
        if found.request.key in new_keys:
            events.append(_break(found))
    events.extend(_failures(growth))
    events.sort(key=lambda event: (event.at, KINDS.index(event.kind)))
    return events


def _breaks(
    growth: Growth,
    session_requests: Callable[[str], Sequence[Request]],
    prices: PriceBook,
    live: LiveBreaks | None,
) -> list[Break]:
    """The breaks of the sessions the step read lines of, as judged among all their requests."""
    if live is None:
        return [
            found
            for session in sorted(growth.touched)
            for found in find_breaks(session_requests(session), prices).breaks
        ]
    changed: dict[str, list[Request]] = {}
    for request in growth.changed:
        changed.setdefault(request.session_id, []).append(request)
    return [
        found
        for session in sorted(changed)
        for found in live.step(session, changed[session], partial(session_requests, session))
    ]


def _of(request: Request, kind: str, *, tokens: dict[str, int] | None, cost: float | None) -> Event:
    return Event(
        kind, request.when, request.session_id, request.project, request.model,
        request.agent.value, request.harness.value, tokens, cost,
    )  # fmt: skip


def _timed(event: Event, request: Request) -> Event:
    """A response's event with its timings, where its log gives them (a proxy's record gives
    them exactly as the call completes)."""
    measured = timing(request)
    if measured is None:
        return event
    return replace(event, ttft_s=measured.ttft, tpot_s=measured.tpot, exact=measured.exact)


def _break(found: Break) -> Event:
    request = found.request
    tokens = tokens_of(request) | {"rebuilt": found.rebuilt_tokens}
    return Event(
        "cache_break", request.when, request.session_id, request.project, request.model,
        request.agent.value, request.harness.value, tokens, found.cost_usd, found.cause,
        found.detail,
    )  # fmt: skip


def _failures(growth: Growth) -> list[Event]:
    failed: list[Event] = []
    for result in growth.results:
        if result.error is None:
            continue
        call = growth.calls.get(result.tool_use_id)
        when = datetime.fromtimestamp(result.at or 0.0, UTC)
        failed.append(
            Event(
                "tool_failed",
                when,
                result.session_id,
                call.project if call else "",
                cause=call.name if call else "",
                detail=result.error[:200],
            )  # fmt: skip
        )
    return failed


def skipped_events(skipped: Sequence[LineIssue], at: datetime) -> list[Event]:
    """A `line_skipped` event for each line skipped, at `at`: when the watch read it (a line
    that could not be read has no time, session or project of its own)."""
    return [
        Event("line_skipped", at, "", "", reason=issue.reason, file=issue.file, line=issue.line)
        for issue in skipped
    ]


@dataclass(frozen=True, slots=True)
class Glance:
    """What the live view shows besides the events: today, the active block, live sessions."""

    today: Totals
    block: Block | None
    sessions: tuple[tuple[str, str, Totals], ...]
    """(session id, project, totals) of the sessions active in the last `LIVE_SESSION`."""


LIVE_SESSION = timedelta(hours=1)


def glance(requests: Sequence[Request], zone: tzinfo, now: datetime) -> Glance:
    """Today's totals (in `zone`), the active 5-hour block and the live sessions at `now`."""
    day = LocalDays(zone)
    today_key = day(now)
    today = Totals()
    sessions: dict[str, tuple[str, Totals]] = {}
    for request in requests:
        if day(request.when) == today_key:
            today.add(request)
        if now - request.ended_at <= LIVE_SESSION:
            sessions.setdefault(request.session_id, (request.project, Totals()))[1].add(request)
    block = active_block(build_blocks(requests), now)
    live = sorted(sessions.items(), key=lambda item: -(item[1][1].last or now).timestamp())
    return Glance(today, block, tuple((sid, project, totals) for sid, (project, totals) in live))
