"""Provides the one-request-per-API-call merge of responses found across many files.

Why: the same API response can be logged more than once: a resumed session replays earlier
lines under a new session id, a parent transcript embeds its subagents' responses in progress
lines, and a response's streamed lines can disagree on output tokens. Each response counts
once: the copy with the most tokens, and among equal copies the one most likely to be the
original (a transcript line over an embedded copy, the earliest, the session that ended first).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from sniff.ingest.record import Response
from sniff.model import Agent, Cost, Request, Usage

FREE = Cost(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
"""The cost of a call that failed: nothing was billed."""
AGENTS = {agent.value: agent for agent in Agent}

Pricer = Callable[[str, datetime, Usage], Cost | None]
"""(model, when, usage) → cost, or None when the model is unpriced."""


def _unpriced(_model: str, _when: datetime, _usage: Usage) -> Cost | None:
    return None


def merge(responses: Iterable[Response], cost_of: Pricer = _unpriced) -> list[Request]:
    """One `Request` per distinct response key, priced by `cost_of`, ordered by time."""
    best: dict[str, Response] = {}
    copies: dict[str, list[Response]] = {}
    session_ends: dict[str, float] = {}
    for response in responses:
        last = response.last_at or 0.0
        if last > session_ends.get(response.session_id, 0.0):
            session_ends[response.session_id] = last
        kept = best.get(response.key)
        if kept is None:
            best[response.key] = response
        else:
            copies.setdefault(response.key, [kept]).append(response)
    for key, candidates in copies.items():
        best[key] = min(candidates, key=lambda r: _preference(r, session_ends))
    requests = [_request(response, cost_of) for response in best.values()]
    requests.sort(key=lambda request: (request.ended_at, request.file, request.line))
    return requests


def _preference(response: Response, session_ends: dict[str, float]) -> tuple[object, ...]:
    return (
        -response.total,
        response.copy_rank,
        not response.blocks,  # a copy that holds the prompt tells more
        response.first_at or 0.0,
        session_ends.get(response.session_id, 0.0),
        response.file,
        response.line,
    )


def _request(response: Response, cost_of: Pricer) -> Request:
    ended = _time(response.last_at) or _file_time(response.file)
    started = _time(response.started_at)
    usage = Usage(*response.usage)
    return Request(
        source=response.source,
        key=response.key,
        project=response.project,
        session_id=response.session_id,
        agent=AGENTS[response.agent],
        agent_id=response.agent_id,
        model=response.model,
        provider=response.provider,
        ended_at=ended,
        usage=usage,
        file=response.file,
        line=response.line,
        started_at=started,
        first_token_at=_time(response.first_at),
        ttl_assumed=response.ttl_assumed,
        version=response.version,
        cost=FREE if response.error else cost_of(response.model, started or ended, usage),
        blocks=response.blocks,
        error=response.error,
        previous=response.previous,
    )


def _time(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def _file_time(path: str) -> datetime:
    """When nothing in a file dates a response, the file's modification time does."""
    try:
        return datetime.fromtimestamp(os.stat(path).st_mtime, tz=UTC)
    except OSError:
        return datetime.fromtimestamp(0, tz=UTC)
