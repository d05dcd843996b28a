"""Provides the filters every command shares: time window, project, model and agent."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from sniff.errors import UserError
from sniff.model import Activity, Request


@dataclass(frozen=True, slots=True)
class Filters:
    """Which requests an analysis looks at. Empty fields select everything."""

    since: datetime | None = None
    """Requests at or after this moment."""
    until: datetime | None = None
    """Requests before this moment."""
    project: str | None = None
    """Case-insensitive substring of the project."""
    model: str | None = None
    """Case-insensitive substring of the model."""
    agent: str | None = None
    """`main`, `subagent` or `compaction`."""
    harness: str | None = None
    """The agent whose logs: `claude-code`, `codex`, `gemini-cli`, ... (`model.Harness`)."""

    def keep(self, request: Request) -> bool:
        """Whether `request` passes every filter."""
        when = request.when
        if self.since is not None and when < self.since:
            return False
        if self.until is not None and when >= self.until:
            return False
        if self.project and self.project.lower() not in request.project.lower():
            return False
        if self.model and self.model.lower() not in request.model.lower():
            return False
        if self.harness and request.harness.value != self.harness:
            return False
        return not (self.agent and request.agent.value != self.agent)

    def apply(self, requests: Iterable[Request]) -> list[Request]:
        """The requests that pass."""
        return [request for request in requests if self.keep(request)]


def parse_bound(text: str, zone: tzinfo, *, end: bool) -> datetime | None:
    """A `--since`/`--until` value: a date (whole day, in `zone`) or an ISO date-time.

    A date is `2026-01-31`, or `20260131` as ccusage takes it. An `--until` date includes that
    whole day. A bound at or beyond the end of the dates logs can hold (`ingest.plausible`)
    bounds nothing: `--until 9999-12-31` and `--since 0001-01-01` mean no bound (None); a
    `--since` after them or an `--until` before them is kept at that end, where no request can
    pass it.

    Raises:
        UserError: the text is neither.
    """
    from sniff.ingest.plausible import EARLIEST, LATEST

    try:
        if len(text) == 10 or (len(text) == 8 and text.isdigit()):
            moment = datetime.combine(date.fromisoformat(text), time(), tzinfo=zone)
            if end:
                moment += timedelta(days=1)
        else:
            moment = datetime.fromisoformat(text)
            moment = moment if moment.tzinfo else moment.replace(tzinfo=zone)
    except ValueError as error:
        raise UserError(f"not a date or ISO date-time: {text!r} (try 2026-01-31)") from error
    except OverflowError:  # the day after 9999-12-31
        return None
    instant = moment.timestamp()
    if (instant >= LATEST and end) or (instant < EARLIEST and not end):
        return None
    if not EARLIEST <= instant < LATEST:
        return datetime.fromtimestamp(EARLIEST if instant < EARLIEST else LATEST, UTC)
    return moment


def keep_activity(activity: Activity, filters: Filters, requests: Iterable[Request]) -> Activity:
    """The tool calls, results and user requests of the projects and times `filters` keep.

    With a model, agent or harness filter, only the activity of the requests (of all
    `requests` read) that `filters` keep stays: their tool calls (by the call's request key),
    the results of those calls, and the user requests of the sessions they belong to.
    """
    if filters.since is not None or filters.until is not None or filters.project:
        activity = _in_window(activity, filters)
    if filters.model or filters.agent or filters.harness:
        activity = _of_requests(activity, filters.apply(requests))
    return activity


def _in_window(activity: Activity, filters: Filters) -> Activity:
    """The activity logged within the time window, of the projects `filters` keep."""
    since = filters.since.timestamp() if filters.since else None
    until = filters.until.timestamp() if filters.until else None

    def kept(moment: float | None, project: str | None) -> bool:
        if since is not None and (moment is None or moment < since):
            return False
        if until is not None and (moment is None or moment >= until):
            return False
        return not (filters.project and project is not None and
                    filters.project.lower() not in project.lower())  # fmt: skip

    sessions = {c.session_id: c.project for c in activity.calls}
    sessions.update({e.session_id: e.project for e in activity.events})
    return Activity(
        calls=tuple(c for c in activity.calls if kept(c.at, c.project)),
        results=tuple(r for r in activity.results if kept(r.at, sessions.get(r.session_id))),
        events=tuple(e for e in activity.events if kept(e.at, e.project)),
    )


def _of_requests(activity: Activity, requests: list[Request]) -> Activity:
    """The tool calls `requests` asked for, their results, and the user requests of their
    sessions."""
    keys = {request.key for request in requests}
    sessions = {request.session_id for request in requests}
    calls = tuple(call for call in activity.calls if call.key in keys)
    ids = {call.id for call in calls}
    return Activity(
        calls=calls,
        results=tuple(result for result in activity.results if result.tool_use_id in ids),
        events=tuple(event for event in activity.events if event.session_id in sessions),
    )
