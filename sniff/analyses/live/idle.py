"""Provides `Idleness`: when `sniff watch` infers that a session ended, and when it resumed.

Why an inference: Claude Code's logs mark no end of a session, so a session counts as ended
once no new request of it arrived for the idle time (`--idle`, 30 minutes by default), judged
on the watch loop's clock, which ticks even when no file changes. A session's last activity is
when the watch saw its last new request arrive (a copied or replayed line with an old
timestamp is activity now), or for what the logs held at the start, its last request's time:
a session already idle then is not live, and makes no event. An ended session that gets a new
request again is `session_resumed` (the same session id, picked up again), and can end again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from sniff.analyses.live.events import Event
from sniff.model import Request

IDLE_MINUTES = 30.0
"""The default idle time: longer than the pauses of a working session (reading a diff, a long
test run, the 5-minute cache TTL), the usual inactivity timeout of session analytics."""


@dataclass(slots=True)
class Idleness:
    """The live sessions' last activity, and the sessions this watch reported ended."""

    idle: timedelta
    live: dict[str, tuple[datetime, Request]] = field(default_factory=dict)
    """Session id → (its last activity, its last request)."""
    ended: set[str] = field(default_factory=set)
    """Sessions reported ended and not resumed since."""

    def start(self, requests: Iterable[Request], now: datetime) -> None:
        """What the logs hold at the start: the sessions active within the idle time are live."""
        for request in requests:
            seen = self.live.get(request.session_id)
            if seen is None or request.ended_at >= seen[0]:
                self.live[request.session_id] = (request.ended_at, request)
        for session_id in [s for s, (last, _) in self.live.items() if now - last >= self.idle]:
            del self.live[session_id]

    def saw(self, requests: Iterable[Request], now: datetime) -> list[Event]:
        """New requests arrived at `now`: a `session_resumed` event for each ended session
        among them (before its response: same time, earlier kind)."""
        resumed: list[Event] = []
        for request in requests:
            if request.session_id in self.ended:
                self.ended.discard(request.session_id)
                resumed.append(_session_event(request, "session_resumed", request.when))
            self.live[request.session_id] = (now, request)
        return resumed

    def due(self, now: datetime) -> list[Event]:
        """A `session_ended` event, once, for each live session idle for the idle time."""
        gone = sorted(
            (last, session_id) for session_id, (last, _) in self.live.items()
            if now - last >= self.idle
        )  # fmt: skip
        events = []
        minutes = self.idle.total_seconds() / 60
        for last, session_id in gone:
            request = self.live.pop(session_id)[1]
            self.ended.add(session_id)
            event = _session_event(request, "session_ended", now, reason="idle", idle=minutes)
            events.append(replace(event, detail=f"{event.detail} since {last.isoformat()}"))
        return events


def _session_event(
    request: Request, kind: str, at: datetime, *, reason: str = "", idle: float | None = None
) -> Event:
    detail = f"no new request for {idle:g} min" if idle is not None else ""
    return Event(
        kind, at, request.session_id, request.project, request.model, request.agent.value,
        request.harness.value, detail=detail, reason=reason, idle_minutes=idle,
    )  # fmt: skip
