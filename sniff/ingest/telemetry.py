"""Provides `join_telemetry`: each call an agent's own telemetry reports, counted once with its
transcript's copy, the agent's times and cost in it.

A call seen in OpenTelemetry arrives in halves: an event (tokens, cost, duration) and, where
enabled, a span (start, end, time to first token), both keyed by the request id (the `otel`
reader's `Response`s). The halves are combined; the call is then found in its transcript:
- by the request id, where both carry the same one;
- else by the same model and four token counts, started within `JOIN_SECONDS` of each other
  (the nearest such call; each transcript call joins at most one telemetry call).
A joined call keeps everything its transcript says (prompt, chain, project, the cache writes'
TTL) and takes the telemetry's times and the agent's cost; sniff's own estimates of its times
stay beside them (`FirstHand`). A call found in telemetry alone counts as one of its own.
"""

from __future__ import annotations

from collections.abc import Iterable

from sniff.first_hand import FirstHand, JoinRule
from sniff.ingest.record import Response

TELEMETRY = "otel"
"""The source of telemetry's calls (the `otel` reader's `SOURCE`)."""
PROXY = "proxy"
"""The source of the calls `sniff proxy` recorded (the request log's lines it wrote)."""
FIRST_HAND_SOURCES = frozenset({TELEMETRY, PROXY})
"""Sources whose calls join copies of other keys or replace a transcript's times."""
JOIN_SECONDS = 2.0
"""How far apart the starts of a telemetry call and its transcript's copy may be."""


def join_telemetry(responses: Iterable[Response]) -> list[Response]:
    """`responses` with telemetry's calls combined and joined to their transcripts' copies."""
    logged: list[Response] = []
    halves: dict[str, list[Response]] = {}
    for response in responses:
        if response.source == TELEMETRY:
            halves.setdefault(response.key, []).append(response)
        else:
            logged.append(response)
    logged = join_recorded(logged)
    if not halves:
        return logged
    calls = [_combined(parts) for parts in halves.values()]
    joined: dict[str, tuple[Response, JoinRule]] = {}  # transcript key → (telemetry, rule)
    alone = []
    by_request = _by_request_id(logged)
    candidates = _best_copies(logged)
    for call in calls:
        key = by_request.get(call.request_id or "")
        rule = JoinRule.REQUEST_ID
        if key is None or key in joined:
            key, rule = _matching(call, candidates, joined), JoinRule.TOKENS_AND_TIME
        if key is None:
            alone.append(call._replace(first_hand=FirstHand(None, call.first_at is not None)))
        else:
            joined[key] = (call, rule)
    return [_enriched(r, *joined[r.key]) if r.key in joined else r for r in logged] + alone


def join_recorded(logged: list[Response]) -> list[Response]:
    """`logged` with each call `sniff proxy` recorded and a transcript also holds counted once:
    the transcript's copies (its chain, project, agent) take the proxy's exact times, and the
    prompt where they hold none; the proxy's copy goes. Joined on the response id, the key both
    give the call."""
    recorded: dict[str, Response] = {}
    for response in logged:
        if response.source == PROXY and response.total >= _total(recorded.get(response.key)):
            recorded[response.key] = response
    if not recorded:
        return logged
    held = {response.key for response in logged if response.source != PROXY}
    joined = held & recorded.keys()
    return [
        _measured(response, recorded[response.key])
        if response.source != PROXY and response.key in joined
        else response
        for response in logged
        if response.source != PROXY or response.key not in held
    ]


def _total(response: Response | None) -> int:
    return -1 if response is None else response.total


def _measured(copy: Response, record: Response) -> Response:
    """A transcript's copy of a call with the proxy's times, and its prompt where it has none."""
    first_hand = FirstHand(
        JoinRule.RESPONSE_ID, record.first_at is not None, copy.started_at, copy.first_at,
        copy.last_at,
    )  # fmt: skip
    return copy._replace(
        started_at=record.started_at or copy.started_at,
        first_at=record.first_at or copy.first_at,
        last_at=record.last_at or copy.last_at,
        visible_at=record.visible_at or copy.visible_at,
        blocks=copy.blocks or record.blocks,
        sent=copy.sent or record.sent,
        cache_diagnosis=copy.cache_diagnosis or record.cache_diagnosis,
        first_hand=first_hand,
    )


def _combined(parts: list[Response]) -> Response:
    """One call from its event and its span: the span's times where it has them (its start
    and end are the call's own; an event's start is its time less the duration), the
    event's model name, cost and part of the agent."""
    spans = [part for part in parts if part.first_at is not None]
    events = [part for part in parts if part.first_at is None] or parts
    timed = spans[0] if spans else events[0]
    told = events[0]
    cost = next((p.reported_cost_usd for p in parts if p.reported_cost_usd is not None), None)
    # an attempt that failed before the one that succeeded: the call succeeded
    error = None if any(not part.error for part in parts) else parts[0].error
    return told._replace(
        usage=max((part.usage for part in parts), key=sum),
        started_at=timed.started_at, first_at=timed.first_at, last_at=timed.last_at,
        reported_cost_usd=cost, error=error,
    )  # fmt: skip


def _by_request_id(logged: list[Response]) -> dict[str, str]:
    """Transcript keys by the request id their calls name."""
    return {r.request_id: r.key for r in logged if r.request_id}


def _best_copies(logged: list[Response]) -> dict[str, Response]:
    """The fullest copy of each transcript call (the one the merge keeps counts its tokens)."""
    best: dict[str, Response] = {}
    for response in logged:
        kept = best.get(response.key)
        if kept is None or response.total > kept.total:
            best[response.key] = response
    return best


def _matching(
    call: Response, candidates: dict[str, Response], joined: dict[str, tuple[Response, JoinRule]]
) -> str | None:
    """The key of the transcript call with `call`'s model and four token counts whose start is
    nearest `call`'s, within `JOIN_SECONDS`; None when there is none."""
    if call.started_at is None:
        return None
    found, nearest = None, JOIN_SECONDS
    for key, copy in candidates.items():
        if key in joined or copy.started_at is None or not _same_call(call, copy):
            continue
        apart = abs(copy.started_at - call.started_at)
        if apart <= nearest:
            found, nearest = key, apart
    return found


def _same_call(call: Response, copy: Response) -> bool:
    """The same model and the same four counts: input, cache reads, cache writes, output."""
    mine, theirs = call.usage, copy.usage
    writes = mine.cache_write_5m + mine.cache_write_1h
    return (
        call.model == copy.model
        and (mine.input, mine.cache_read, writes, mine.output)
        == (theirs.input, theirs.cache_read, theirs.cache_write_5m + theirs.cache_write_1h,
            theirs.output)
    )  # fmt: skip


def _enriched(copy: Response, call: Response, rule: JoinRule) -> Response:
    """A transcript's copy of a call with the telemetry's times and the agent's cost."""
    first_hand = FirstHand(
        rule, call.first_at is not None, copy.started_at, copy.first_at, copy.last_at
    )
    return copy._replace(
        started_at=call.started_at if call.started_at is not None else copy.started_at,
        first_at=call.first_at if call.first_at is not None else copy.first_at,
        last_at=call.last_at if call.last_at is not None else copy.last_at,
        reported_cost_usd=call.reported_cost_usd
        if call.reported_cost_usd is not None
        else copy.reported_cost_usd,
        request_id=copy.request_id or call.request_id,
        first_hand=first_hand,
    )
