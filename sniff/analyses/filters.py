"""Provides the filters every command shares: time window, project, model and agent."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from sniff.errors import UserError
from sniff.model import Request


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
        return not (self.agent and request.agent.value != self.agent)

    def apply(self, requests: Iterable[Request]) -> list[Request]:
        """The requests that pass."""
        return [request for request in requests if self.keep(request)]


def parse_bound(text: str, zone: tzinfo, *, end: bool) -> datetime:
    """A `--since`/`--until` value: a date (whole day, in `zone`) or an ISO date-time.

    An `--until` date includes that whole day.

    Raises:
        UserError: the text is neither.
    """
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            start = datetime.combine(day, time(), tzinfo=zone)
            return start + timedelta(days=1) if end else start
        moment = datetime.fromisoformat(text)
    except ValueError as error:
        raise UserError(f"not a date or ISO date-time: {text!r} (try 2026-01-31)") from error
    return moment if moment.tzinfo else moment.replace(tzinfo=zone)
