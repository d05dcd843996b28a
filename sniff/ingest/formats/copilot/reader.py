"""Provides the parser of GitHub Copilot CLI's session logs (`~/.copilot/session-state/<id>/
events.jsonl`, and the flat `*.jsonl` of the older `history-session-state`).

Copilot writes usage per session *segment*, not per call: each `session.shutdown` rolls up the
segment it ends (from the start or the last shutdown), per model, as `modelMetrics[model]` =
`{requests, usage}`, or in an older shape as `{requests}` beside one session-level
`tokenDetails`. A resumed session appends segments to the same file; each counts. So:

- A segment that persisted per-call `assistant.usage` events (some versions do; they are
  ephemeral in others) is read call by call: those are what its shutdown rolls up.
- Else a segment with a shutdown gives, per model, one rollup (`Response.rollup`) of its
  tokens that stands for as many calls as the shutdown counts (`Response.calls`): the log
  splits the total over no call. Session-level `tokenDetails` belong to the one
  model the shutdown names; shared by several, to none (`unknown`, unpriced).
- A segment with no shutdown (the session was killed, or is running) holds only each
  `assistant.message`'s `outputTokens`: each response with output is one request of output
  only. Messages of a segment that has a shutdown are not counted again.

Copilot's `inputTokens` is taken to include its cache reads and writes, as OpenAI's do (the
field guide's reading, unverified against Copilot itself): they are subtracted once, unless the
input is smaller than them, which only a disjoint count can be. `totalNanoAiu` is Copilot's
billing unit, not dollars: it is kept as `reported_units` on the segment's first request.
The log names no provider: the model's family does (`vendor`), else `github-copilot`.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, NamedTuple

import msgspec

from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files.lines import decode_lines
from sniff.ingest.formats.copilot import activity as copilot_activity
from sniff.ingest.formats.copilot.wire import (
    CallUsage,
    Event,
    Message,
    ModelChange,
    ModelMetric,
    ModelUsage,
    Requests,
    Shutdown,
    Start,
    TokenCount,
    TokenDetails,
    TurnStart,
    data_of,
)
from sniff.ingest.plausible import IMPLAUSIBLE_USAGE, Implausible, check_date, counted
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, Tokens, epoch
from sniff.ingest.vendor import is_anthropic, vendor_of
from sniff.model import UNDATED, Agent, Harness, LineIssue

SOURCE = "copilot"
PROVIDER = "github-copilot"
NANO_AIU = "nano-AIU"
UNKNOWN_MODEL = "unknown"
MAX_CALLS = 100_000
"""Requests one shutdown may count for one model: more is no count a segment can hold."""

EVENT_FAMILIES = ("session.", "assistant.", "user.", "tool.execution_", "hook.", "subagent.")
"""How Copilot's event types begin (`session.start`, `assistant.message`, ...): no other log
sniff reads has dotted types beside a `data` object."""

DECODER = msgspec.json.Decoder(Event)


class Call(NamedTuple):
    """A call whose usage an event holds: `assistant.usage`, or an `assistant.message`."""

    line: int
    name: str
    """Its identity within the session (call id, message id, event id, line)."""
    model: str
    tokens: Tokens
    at: float | None
    parent: str | None
    """The tool call of the sub-agent that made it; None for the main agent."""


class Rollup(NamedTuple):
    """A shutdown: one segment's usage, per model."""

    line: int
    name: str
    shutdown: Shutdown
    at: float | None


class Segment:
    """The events of one segment that bear on usage."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.usages: list[Call] = []
        self.rollup: Rollup | None = None
        self.started: float | None = None


class Session:
    """What a file says about its session, read in order."""

    def __init__(self, path: str, project_hint: str) -> None:
        folder = PurePath(path)
        self.path = path
        self.id = folder.parent.name if folder.name == "events.jsonl" else folder.stem
        self.project = project_hint
        self.placed = False
        """Whether the log named the session's folder."""
        self.version: str | None = None
        self.model = UNKNOWN_MODEL
        self.segments = [Segment()]
        self.activity = copilot_activity.Collector()
        self.undated: list[int] = []

    def read(self, line: int, event: Event) -> None:
        """Take one event."""
        check_date(event.timestamp)
        kind, at, segment = event.type, epoch(event.timestamp), self.segments[-1]
        if segment.started is None:
            segment.started = at
        if kind in ("session.start", "session.resume"):
            self._start(data_of(event, Start), kind == "session.start")
        elif kind == "session.model_change":
            self.model = data_of(event, ModelChange).newModel or self.model
        elif kind == "assistant.turn_start":
            self.model = data_of(event, TurnStart).model or self.model
        elif kind == "assistant.message":
            self._message(line, event, data_of(event, Message), at)
        elif kind == "assistant.usage":
            segment.usages.append(self._usage(line, event, data_of(event, CallUsage), at))
        elif kind == "session.shutdown":
            shutdown = data_of(event, Shutdown)
            segment.rollup = Rollup(line, event.id or f"line-{line}", shutdown, at)
            self.segments.append(Segment())
        else:
            self.activity.read(event, at)

    def _start(self, start: Start, first: bool) -> None:
        if first and start.sessionId:
            self.id = start.sessionId
        if start.context and start.context.cwd and (first or not self.placed):
            self.project, self.placed = start.context.cwd, True
        self.version = start.copilotVersion or self.version
        self.model = start.selectedModel or self.model

    def _message(self, line: int, event: Event, message: Message, at: float | None) -> None:
        name = message.messageId or event.id or f"line-{line}"
        self.activity.asked(message.toolRequests, f"{SOURCE}:{self.id}:{name}", at)
        output = counted(message.outputTokens)
        if output:  # a message of no output carries no usage: no request
            tokens = Tokens(0, 0, 0, 0, output, 0)
            model = message.model or self.model
            self.segments[-1].calls.append(
                Call(line, name, model, tokens, at, message.parentToolCallId)
            )

    def _usage(self, line: int, event: Event, usage: CallUsage, at: float | None) -> Call:
        model = usage.model or self.model
        tokens = usage_tokens(usage)
        name = usage.apiCallId or event.id or f"line-{line}"
        return Call(line, name, model, tokens, at, usage.parentToolCallId)


def disjoint(inclusive: int, read: int, write: int, output: int, reasoning: int) -> Tokens:
    """Copilot's counts in sniff's classes: the cache taken out of input once."""
    uncached = inclusive - read - write if inclusive >= read + write else inclusive
    return Tokens(uncached, read, write, 0, output, reasoning)


def usage_tokens(usage: CallUsage | ModelUsage) -> Tokens:
    """A call's or a model's usage (the same fields) in sniff's classes."""
    return disjoint(
        counted(usage.inputTokens),
        counted(usage.cacheReadTokens),
        counted(usage.cacheWriteTokens),
        counted(usage.outputTokens),
        counted(usage.reasoningTokens),
    )


def parse(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Read one Copilot CLI `events.jsonl` (prompts are not read: the events hold no request
    bodies)."""
    issues: list[LineIssue] = []
    session = Session(path, project_hint)
    for number, event in decode_lines(path, data, Event, DECODER, issues):
        try:
            session.read(number, event)
        except Implausible as error:
            issues.append(LineIssue(path, number, str(error)))
    responses: list[Response] = []
    for segment in session.segments:
        try:
            responses.extend(_segment(session, segment))
        except Implausible as error:
            line = segment.rollup.line if segment.rollup else 0
            issues.append(LineIssue(path, line, str(error)))
    issues.extend(LineIssue(path, line, UNDATED, True) for line in sorted(set(session.undated)))
    activity = session.activity.freeze(session.id, session.project)
    return FileResult(responses, issues, 0, SOURCE, activity)


def _segment(session: Session, segment: Segment) -> list[Response]:
    """The requests of one segment (see the module docstring for which events give them)."""
    if segment.usages or segment.rollup is None:
        responses, previous = [], dict[str, str]()
        for call in segment.usages or segment.calls:
            agent_id = call.parent or Agent.MAIN.value
            response = _response(session, call, previous.get(agent_id))
            previous[agent_id] = response.key
            responses.append(response)
    else:
        responses = _rollups(session, segment.rollup, segment.started)
    if responses and segment.rollup and segment.rollup.shutdown.totalNanoAiu is not None:
        units = (segment.rollup.shutdown.totalNanoAiu, NANO_AIU)
        responses[0] = responses[0]._replace(reported_units=units)
    return responses


def _response(session: Session, call: Call, previous: str | None) -> Response:
    if call.at is None:
        session.undated.append(call.line)
    provider = vendor_of(call.model, PROVIDER)
    agent = Agent.SUBAGENT if call.parent else Agent.MAIN
    return Response(
        SOURCE,
        f"{SOURCE}:{session.id}:{call.name}",
        TOP_LEVEL,
        call.tokens,
        is_anthropic(provider, call.model) and call.tokens.cache_write_5m > 0,
        call.model,
        provider,
        session.id,
        agent,
        call.parent or Agent.MAIN.value,
        session.project,
        None,
        call.at,
        None,
        session.version,
        session.path,
        call.line,
        previous=previous,
        harness=Harness.COPILOT,
    )


def _rollups(session: Session, rollup: Rollup, started: float | None) -> list[Response]:
    """A shutdown's rollups: per model, its tokens, standing for its count of calls."""
    if rollup.at is None:
        session.undated.append(rollup.line)
    responses: list[Response] = []
    for model, calls, tokens in _per_model(rollup.shutdown, session.model):
        provider = vendor_of(model, PROVIDER)
        first = Response(
            SOURCE,
            f"{SOURCE}:{session.id}:{rollup.name}:{model}",
            TOP_LEVEL,
            tokens,
            is_anthropic(provider, model) and tokens.cache_write_5m > 0,
            model,
            provider,
            session.id,
            Agent.MAIN,
            Agent.MAIN.value,
            session.project,
            None,
            rollup.at,
            started,
            session.version,
            session.path,
            rollup.line,
            harness=Harness.COPILOT,
            rollup=True,
            calls=calls,
        )
        responses.append(first)
    return responses


def _per_model(shutdown: Shutdown, current: str) -> list[tuple[str, int, Tokens]]:
    """(model, requests, tokens) of a shutdown; a model of no tokens made no request."""
    found: list[tuple[str, int, Tokens]] = []
    for model, metric in shutdown.modelMetrics.items():
        if metric.usage is not None:
            found.append((model, _calls(metric), usage_tokens(metric.usage)))
    details = shutdown.tokenDetails
    if details is not None and not found:
        metrics = shutdown.modelMetrics
        tokens = _detail_tokens(details)
        if len(metrics) == 1:
            [(model, metric)] = metrics.items()
            found.append((model, _calls(metric), tokens))
        else:
            model = UNKNOWN_MODEL if metrics else shutdown.currentModel or current
            found.append((model, sum(_calls(m) for m in metrics.values()) or 1, tokens))
    return [(model, max(calls, 1), tokens) for model, calls, tokens in found if sum(tokens[:5])]


def _detail_tokens(details: TokenDetails) -> Tokens:
    def of(part: TokenCount | None) -> int:
        return counted(part.tokenCount) if part else 0

    return disjoint(
        of(details.input),
        of(details.cache_read),
        of(details.cache_write),
        of(details.output),
        of(details.reasoning),
    )


def _calls(metric: ModelMetric) -> int:
    requests = metric.requests
    calls = counted(requests.count if isinstance(requests, Requests) else requests)
    if calls > MAX_CALLS:
        raise Implausible(IMPLAUSIBLE_USAGE)
    return calls


def claims(record: dict[str, Any]) -> bool:
    """Whether a record is a Copilot CLI event: a dotted type of its families, a `data` object
    and the event's own `id`."""
    kind = record.get("type")
    return (
        isinstance(kind, str)
        and kind.startswith(EVENT_FAMILIES)
        and isinstance(record.get("data"), dict)
        and "id" in record
    )


FORMATS = (AgentFormat(SOURCE, Layout.LINES, claims, parse),)
