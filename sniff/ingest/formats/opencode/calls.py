"""Provides the model calls and the activity of OpenCode's messages and parts, however stored.

One request is one `step-finish` part: OpenCode writes one per model call of an assistant
message, with that call's tokens and cost. The message's own `tokens` are overwritten by each
step (they are the last step's) while its `cost` is their sum, so a message is counted from its
message row only when it has no step part (a compaction's summary, a legacy file without its
parts), and never as well as its steps.

Keys: the last step of a message is keyed by the message (`opencode:<message id>`), the earlier
ones by message and part. A message read from its row alone (its `tokens` are the last step's)
is then the same call as its last step, so a message found both in the database and in the
legacy JSON tree, with or without its parts, counts once, the database's copy kept.

Roles: an assistant message marked `summary: true` (mode or agent `compaction`) is the
compaction's call; a session with a parent session is a sub-agent's (the `task` tool), counted
under its root session. Rows whose every token class is 0 (aborted, failed) are no requests; a
failed message is kept as an event (an interruption or an API error).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from sniff.ingest.activity import EXCERPT
from sniff.ingest.formats.opencode.wire import MessageData, PartData, dollars, text_of
from sniff.ingest.plausible import Implausible, in_range
from sniff.ingest.record import Response
from sniff.model import Activity, Agent, AgentEvent, Harness, LineIssue, ToolCall, ToolResult

SOURCE = "opencode"
COMPACTION = "compaction"
ABORTED = "MessageAbortedError"
MOST_PARENTS = 32
"""Sub-agent sessions nest (a task spawning tasks); a loop of parents stops here."""


class Message(NamedTuple):
    """A message as stored: where, and what it says."""

    id: str
    session_id: str
    file: str
    line: int
    created: float | None
    """Epoch seconds its row was written (a database column); None in legacy files."""
    updated: float | None
    data: MessageData


class Part(NamedTuple):
    id: str
    file: str
    line: int
    created: float | None
    """Epoch seconds its row was written (a database column); None in legacy files."""
    data: PartData


class Session(NamedTuple):
    parent: str | None
    directory: str | None
    version: str | None


class Store(NamedTuple):
    """What one database (or one legacy message with its parts) holds."""

    harness: Harness
    project_hint: str
    rank: int
    """TOP_LEVEL for the database, EMBEDDED for the legacy copies it was migrated from."""
    sessions: dict[str, Session]
    messages: list[Message]
    parts: dict[str, list[Part]]
    """Message id → its parts, in id order (OpenCode's ids ascend: the order written)."""


class Owner(NamedTuple):
    session_id: str
    agent: Agent
    agent_id: str
    project: str
    version: str | None


def ms(value: float | None) -> float | None:
    """OpenCode's epoch milliseconds as epoch seconds; None when absent or out of range."""
    if value is None:
        return None
    seconds = value / 1000
    return seconds if in_range(seconds) else None


def collect(store: Store, issues: list[LineIssue]) -> tuple[list[Response], Activity]:
    """The requests and activity of a store's messages; rows that cannot count go to `issues`."""
    responses: list[Response] = []
    tracker = _Activity()
    previous: dict[str, Response] = {}
    compacted: set[str] = set()
    for message in sorted(store.messages, key=_order):
        owner = _owner(store, message)
        parts = store.parts.get(message.id, [])
        if message.data.role == "user":
            tracker.user(message, parts, owner)
            continue
        if message.data.role != "assistant":
            continue
        tracker.failure(message, owner)
        for response in _calls(store, message, parts, owner, issues):
            before = previous.get(message.session_id)
            if before is not None:
                response = response._replace(previous=before.key)
            if message.session_id in compacted and response.agent != Agent.COMPACTION:
                compacted.discard(message.session_id)
                response = response._replace(compacted=True)
            if response.agent == Agent.COMPACTION:
                compacted.add(message.session_id)
            previous[message.session_id] = response
            responses.append(response)
        tracker.tools(message, parts, owner)
    return responses, tracker.freeze()


def _order(message: Message) -> tuple[str, float, str]:
    time = message.data.time
    created = ms(time.created) if time is not None else None
    return (message.session_id, created or message.created or 0.0, message.id)


def _owner(store: Store, message: Message) -> Owner:
    """Whose call it is: the root session, the part of the harness, the project."""
    session = store.sessions.get(message.session_id)
    root, seen = message.session_id, {message.session_id}
    while (found := store.sessions.get(root)) and found.parent and found.parent not in seen:
        root = found.parent
        seen.add(root)
        if len(seen) > MOST_PARENTS:
            break
    data = message.data
    if bytes(data.summary) == b"true" or COMPACTION in (data.mode, data.agent):
        agent, agent_id = Agent.COMPACTION, COMPACTION
    elif root != message.session_id:
        agent, agent_id = Agent.SUBAGENT, message.session_id
    else:
        agent, agent_id = Agent.MAIN, Agent.MAIN.value
    where = data.path
    project = (
        (session.directory if session else None)
        or (where.cwd if where else None)
        or (where.root if where else None)
        or store.project_hint
    )
    return Owner(root, agent, agent_id, project, session.version if session else None)


def _calls(
    store: Store, message: Message, parts: list[Part], owner: Owner, issues: list[LineIssue]
) -> Iterator[Response]:
    """The message's calls: its steps, or the message itself when it has none."""
    steps = [part for part in parts if part.data.type == "step-finish"]
    data, key = message.data, f"{SOURCE}:{message.id}"
    if not steps:
        time = data.time
        started = ms(time.created) if time else None
        ended = (ms(time.completed) if time else None) or message.updated
        yield from _call(store, message, owner, key, data, message, started, ended, issues)
        return
    opened = ms(data.time.created) if data.time else message.created
    for index, (step, started) in enumerate(_steps(parts, opened)):
        last = index == len(steps) - 1
        step_key = key if last else f"{key}:{step.id}"
        time = step.data.time
        if time is not None and time.start is not None and time.end is not None:
            started, ended = ms(time.start), ms(time.end)  # the writer's own times of the call
        else:
            ended = step.created or (ms(data.time.completed) if last and data.time else None)
        yield from _call(store, message, owner, step_key, step.data, step, started, ended, issues)


def _steps(parts: list[Part], opened: float | None) -> Iterator[tuple[Part, float | None]]:
    """Each `step-finish` part, with when its call went out: its `step-start` part's row."""
    started = opened
    for part in parts:
        if part.data.type == "step-start":
            started = part.created or started
        elif part.data.type == "step-finish":
            yield part, started
            started = part.created


def _call(
    store: Store,
    message: Message,
    owner: Owner,
    key: str,
    counted: MessageData | PartData,
    row: Message | Part,
    started: float | None,
    ended: float | None,
    issues: list[LineIssue],
) -> Iterator[Response]:
    """One call, from the row (`counted`) holding its tokens and cost; none when its every
    class is 0 (an aborted or failed call) or its cost is implausible (listed)."""
    try:
        cost = dollars(counted.cost)
    except Implausible as error:
        issues.append(LineIssue(row.file, row.line, str(error)))
        return
    if counted.tokens is None:
        return
    tokens = counted.tokens.as_tokens()
    if not any(tokens):
        return
    data = message.data
    model, provider = data.modelID or "(unknown)", data.providerID or ""
    anthropic = provider == "anthropic" or "claude" in model.lower()
    yield Response(
        SOURCE,
        key,
        store.rank,
        tokens,
        anthropic and tokens.cache_write_5m > 0,
        model,
        provider,
        owner.session_id,
        owner.agent,
        owner.agent_id,
        owner.project,
        None,
        ended,
        started if started is None or ended is None or started <= ended else None,
        owner.version,
        row.file,
        row.line,
        harness=store.harness,
        reasoning_apart=True,  # OpenCode logs `tokens.reasoning` beside the output
        reported_cost_usd=cost,
    )


class _Activity:
    """Tool calls, their results, user requests and failures, as records are met."""

    def __init__(self) -> None:
        self.calls: dict[str, ToolCall] = {}
        self.results: dict[str, ToolResult] = {}
        self.events: list[AgentEvent] = []

    def tools(self, message: Message, parts: list[Part], owner: Owner) -> None:
        """The message's tool parts; each was asked for by the step that ends after it."""
        asking = f"{SOURCE}:{message.id}"
        steps = [part for part in parts if part.data.type == "step-finish"]
        for part in parts:
            data = part.data
            if data.type == "step-finish":
                steps.pop(0)
            if data.type != "tool" or not data.callID or data.state is None:
                continue
            key = f"{asking}:{steps[0].id}" if len(steps) > 1 else asking
            state, session = data.state, owner.session_id
            at = (ms(state.time.start) if state.time else None) or part.created
            name = data.tool or "(unnamed)"
            self.calls[data.callID] = ToolCall(data.callID, name, key, session, owner.project, at)
            if state.status in ("completed", "error"):
                ended = ms(state.time.end) if state.time else None
                error = (state.error or "error")[:EXCERPT] if state.status == "error" else None
                self.results[data.callID] = ToolResult(data.callID, session, ended, error)

    def user(self, message: Message, parts: list[Part], owner: Owner) -> None:
        """A user's request: a main session's user message with text the user typed."""
        if owner.agent != Agent.MAIN or any(p.data.type == COMPACTION for p in parts):
            return
        typed = (
            text_of(part.data.text).strip()
            for part in parts
            if part.data.type == "text" and not part.data.synthetic and not part.data.ignored
        )
        text = next((text for text in typed if text), "")
        if text:
            self.events.append(self._event("instruction", message, owner, text))

    def failure(self, message: Message, owner: Owner) -> None:
        """A message that ended in an error: the user's interruption, or a failed call."""
        error = message.data.error
        if error is None:
            return
        if error.name == ABORTED:
            self.events.append(self._event("interrupt", message, owner, ""))
        else:
            text = (error.data.message if error.data else None) or error.name or "error"
            self.events.append(self._event("api_error", message, owner, text))

    @staticmethod
    def _event(kind: str, message: Message, owner: Owner, text: str) -> AgentEvent:
        """An event of the message; its identity lets the merge keep one of its copies."""
        time = message.data.time
        at = (ms(time.created) if time else None) or message.created
        uuid = f"{SOURCE}:{message.id}"
        return AgentEvent(kind, owner.session_id, owner.project, at, text[:EXCERPT], None, uuid)

    def freeze(self) -> Activity:
        return Activity(
            tuple(self.calls.values()), tuple(self.results.values()), tuple(self.events)
        )
