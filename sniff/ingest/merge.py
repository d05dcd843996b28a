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

import msgspec

from sniff.ingest.plausible import in_range
from sniff.ingest.record import HARNESS_OF, Response
from sniff.ingest.telemetry import join_telemetry
from sniff.model import (
    Activity,
    AgentEvent,
    Cost,
    Harness,
    Reported,
    Request,
    ToolCall,
    ToolResult,
    Usage,
)

FREE = Cost(0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
"""The cost of a call that failed: nothing was billed."""

Pricer = Callable[[str, datetime, Usage, str | None], Cost | None]
"""(model, when, usage, provider) → cost, or None when the model is unpriced."""


def _unpriced(_model: str, _when: datetime, _usage: Usage, _provider: str | None) -> Cost | None:
    return None


def merge(responses: Iterable[Response], cost_of: Pricer = _unpriced) -> list[Request]:
    """One `Request` per distinct response key, priced by `cost_of`, ordered by time; a call the
    agent's telemetry reports joined to its transcript's copy (`telemetry`)."""
    best: dict[str, Response] = {}
    copies: dict[str, list[Response]] = {}
    session_ends: dict[str, float] = {}
    for response in join_telemetry(responses):
        last = response.last_at or 0.0
        if last > session_ends.get(response.session_id, 0.0):
            session_ends[response.session_id] = last
        kept = best.get(response.key)
        if kept is None:
            best[response.key] = response
        else:
            copies.setdefault(response.key, [kept]).append(response)
    for key, candidates in copies.items():
        chosen = min(candidates, key=lambda r: _preference(r, session_ends))
        if not chosen.blocks:  # a transcript's copy, the prompt in another (an API body's)
            holding = next((copy for copy in candidates if copy.blocks), None)
            if holding is not None:
                chosen = chosen._replace(blocks=holding.blocks, sent=chosen.sent or holding.sent)
        best[key] = chosen
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
    billed = usage
    if response.reasoning_apart and usage.reasoning_tokens:  # thinking billed as output
        billed = msgspec.structs.replace(
            usage, output_tokens=usage.output_tokens + usage.reasoning_tokens
        )
    return Request(
        source=response.source,
        key=response.key,
        project=response.project,
        session_id=response.session_id,
        agent=response.agent,
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
        cost=FREE
        if response.error
        else cost_of(response.model, started or ended, billed, response.provider),
        blocks=response.blocks,
        error=response.error,
        previous=response.previous,
        opens_turn=response.opens_turn,
        thinks=response.thinks,
        compacted=response.compacted,
        sent=response.sent,
        harness=response.harness or HARNESS_OF.get(response.source, Harness.API),
        reported_cost_usd=response.reported_cost_usd,
        reported_units=Reported(*response.reported_units) if response.reported_units else None,
        rollup=response.rollup,
        reasoning_apart=response.reasoning_apart,
        calls=response.calls,
        git_branch=response.git_branch,
        repository=response.repository,
        visible_at=_time(response.visible_at),
        thinking_share=response.thinking_share,
        first_hand=response.first_hand,
        cache_diagnosis=response.cache_diagnosis,
    )


def _time(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def _file_time(path: str) -> datetime:
    """When nothing in a file dates a response, the file's modification time does (the epoch
    when it cannot be read, or is no date logs can hold)."""
    try:
        moment = os.stat(path).st_mtime
    except OSError:
        moment = 0.0
    return datetime.fromtimestamp(moment if in_range(moment) else 0.0, tz=UTC)


def merge_activity(activities: Iterable[Activity | None], requests: list[Request]) -> Activity:
    """Each tool call, tool result and user request once across files.

    A copy found in several files (a subagent's calls embedded in its parent, a resumed
    session's replay) is kept where the merge keeps the calls: with the session that ended
    first, as the original.
    """
    ends: dict[str, float] = {}
    for request in requests:
        moment = request.ended_at.timestamp()
        if moment > ends.get(request.session_id, 0.0):
            ends[request.session_id] = moment
    first = max(ends.values(), default=0.0) + 1.0

    def rank(session_id: str) -> tuple[float, str]:
        return (ends.get(session_id, first), session_id)

    calls: dict[str, ToolCall] = {}
    results: dict[str, ToolResult] = {}
    events: dict[tuple[str | float | None, ...], AgentEvent] = {}
    for activity in activities:
        if activity is None:
            continue
        for call in activity.calls:
            kept = calls.get(call.id)
            if kept is None or rank(call.session_id) < rank(kept.session_id):
                calls[call.id] = call
        for result in activity.results:
            had = results.get(result.tool_use_id)
            if had is None or rank(result.session_id) < rank(had.session_id):
                results[result.tool_use_id] = result
        for event in activity.events:
            key = (
                (event.kind, event.uuid)
                if event.uuid
                else (event.kind, event.session_id, event.at, event.text)
            )
            old = events.get(key)
            if old is None or rank(event.session_id) < rank(old.session_id):
                events[key] = event
    # in time order, the undated first (valid times are all after 0.0: `plausible.EARLIEST`)
    return Activity(
        calls=tuple(sorted(calls.values(), key=lambda c: (c.at or 0.0, c.id))),
        results=tuple(sorted(results.values(), key=lambda r: (r.at or 0.0, r.tool_use_id))),
        events=tuple(sorted(events.values(), key=lambda e: (e.at or 0.0, e.kind, e.uuid))),
    )
