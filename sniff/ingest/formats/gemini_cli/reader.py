"""Provides the parser of Gemini CLI's chat sessions (`~/.gemini/tmp/<project>/chats/`).

Two layouts (`gemini_wire`): the current `session-*.jsonl`, an append-only log (a metadata
line, message records, `$set` metadata updates, `$rewindTo` truncations), and the legacy
`session-*.json`, one document holding the conversation.

One request per `gemini` record that carries `tokens`, counted once:
- the log appends a message again on every update (its text, then its tokens, then its tool
  calls): the last copy of an id holding tokens is the one kept;
- resuming a legacy session copies every message into a new `.jsonl` beside the `.json` it
  leaves in place: a request's key is its session and message id, the same in both files, so
  the merge keeps one (the `.jsonl`'s: the legacy copy ranks as `EMBEDDED`);
- a `$rewindTo` takes the messages from the one it names out of the conversation; their calls
  were made and billed, so they still count, but the conversation the next call continues is
  the one left (`previous`, which lets cache breaks follow a rewind).
A `gemini` record with no tokens or only zeros (a call still streaming, or cancelled) is none.

Sub-agents write `chats/<parent session>/<session>.jsonl` with `kind: "subagent"`: their calls
belong to the parent's session as a sub-agent's. The project is the folder the CLI names after
it (the hash of its root path, or its short name): the records name no path.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import msgspec
import orjson

from sniff.ingest.activity import ActivityLog
from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files.lines import BOM, decode_record, handle_lines
from sniff.ingest.formats.gemini_cli import activity as gemini_activity
from sniff.ingest.gemini_wire import (
    DOCUMENT_DECODER,
    LINE_DECODER,
    MESSAGE_DECODER,
    GeminiLine,
    GeminiMessage,
    MetadataUpdate,
)
from sniff.ingest.plausible import SURELY_DATED, Implausible, check_date
from sniff.ingest.record import EMBEDDED, TOP_LEVEL, FileResult, Prompts, Response, epoch
from sniff.model import UNDATED, Agent, Harness, LineIssue

SOURCE = "gemini-cli"
PROVIDER = "google"
UNKNOWN_MODEL = "(unknown)"


class Conversation:
    """What one session file says so far: its metadata, and the last copy of each message."""

    def __init__(self, path: str, project_hint: str, rank: int) -> None:
        self.path = path
        self.rank = rank
        self.issues: list[LineIssue] = []
        parts = PurePath(path).parts
        chats = max((i for i, part in enumerate(parts[:-1]) if part == "chats"), default=-1)
        self.project = parts[chats - 1] if chats > 0 else project_hint
        # a sub-agent's file sits in a folder named after its parent session
        self.parent = parts[-2] if chats == len(parts) - 3 else None
        self.harness = Harness.QWEN_CODE if ".qwen" in parts else Harness.GEMINI_CLI
        self.session_id = PurePath(path).stem
        self.subagent = False
        self.model = UNKNOWN_MODEL
        self.order: list[str] = []
        """Message ids, in the order they first appeared."""
        self.last: dict[str, GeminiMessage] = {}
        self.counted: dict[str, tuple[int, GeminiMessage, str]] = {}
        """id → (line, last copy holding tokens, its model)."""
        self.follows: dict[str, str | None] = {}
        """id → the message it came after in the conversation, when it first appeared."""
        self.live: list[str] = []
        """The conversation as it stands: rewinds take messages out of it."""

    def meta(self, session_id: str | None, kind: str | None) -> None:
        """The session's metadata (the first line, a `$set`, the legacy document's)."""
        self.session_id = session_id or self.session_id
        if kind is not None:
            self.subagent = kind == "subagent"

    def line(self, number: int, line: GeminiLine) -> None:
        """One line of a `.jsonl` session."""
        if line.rewind_to is not None:
            self.rewind(line.rewind_to)
        elif line.set is not None:
            self.update(number, line.set)
        elif line.id is not None:
            self.message(number, line)
        elif line.sessionId is not None:
            self.meta(line.sessionId, line.kind)

    def update(self, number: int, update: MetadataUpdate) -> None:
        """A `$set`: metadata, or the whole conversation rewritten (copies of its messages)."""
        self.meta(update.sessionId, update.kind)
        if update.messages is None:
            return
        for message in update.messages:
            if message.id is not None and message.id not in self.counted:
                self.message(number, message)
        self.live = [message.id for message in update.messages if message.id is not None]

    def rewind(self, target: str) -> None:
        """A `$rewindTo`: the message named and all after it leave the conversation (all of
        it when the id is unknown, as the CLI's loader does)."""
        at = self.live.index(target) if target in self.live else 0
        del self.live[at:]

    def message(self, number: int, message: GeminiMessage) -> None:
        """A message record (a copy of one seen before replaces it)."""
        timestamp = message.timestamp
        if timestamp and not SURELY_DATED[0] <= timestamp < SURELY_DATED[1]:
            check_date(timestamp)  # first: a line dated off the calendar changes nothing
        ident = message.id or f"line {number}"
        if message.type == "gemini" and message.model:
            self.model = message.model
        if ident not in self.last:
            self.order.append(ident)
            self.follows[ident] = self.live[-1] if self.live else None
            self.live.append(ident)
        self.last[ident] = message
        if message.type == "gemini" and message.tokens is not None:
            self.counted[ident] = (number, message, message.model or self.model)

    def result(self) -> FileResult:
        """The requests and activity of the messages read."""
        session = self.parent or self.session_id
        agent = Agent.SUBAGENT if self.subagent else Agent.MAIN
        agent_id = self.session_id if self.subagent else Agent.MAIN.value
        prefix = f"{SOURCE}:{self.session_id}:"
        log = ActivityLog()
        responses: dict[str, Response] = {}
        for ident in self.order:
            message = self.last[ident]
            response = self._response(ident, prefix, session, agent, agent_id, responses)
            if response is not None:
                responses[ident] = response
            if message.type == "gemini":
                key = response.key if response is not None else ""
                gemini_activity.tool_calls(log, message, key, session, prefix)
            elif message.type == "user" and not self.subagent:
                gemini_activity.user_request(log, message, session, prefix + ident)
            elif message.type == "error":
                gemini_activity.api_error(log, message, session, prefix + ident)
        activity = log.freeze(self.project)
        return FileResult(list(responses.values()), self.issues, 0, SOURCE, activity)

    def _response(
        self,
        ident: str,
        prefix: str,
        session: str,
        agent: Agent,
        agent_id: str,
        earlier: dict[str, Response],
    ) -> Response | None:
        if ident not in self.counted:
            return None
        number, message, model = self.counted[ident]
        tokens = message.tokens.disjoint() if message.tokens is not None else None
        if tokens is None or not any(tokens):
            return None
        ended = epoch(message.timestamp)
        if ended is None and message.timestamp:
            self.issues.append(LineIssue(self.path, number, UNDATED, True))
        before = self.follows.get(ident)
        started = self._input_time(before)
        previous = before
        while previous is not None and previous not in earlier:
            previous = self.follows.get(previous)
        return Response(
            SOURCE,
            prefix + ident,
            self.rank,
            tokens,
            False,
            model,
            PROVIDER,
            session,
            agent,
            agent_id,
            self.project,
            None,
            ended,
            started if started is not None and ended is not None and started <= ended else None,
            None,
            self.path,
            number,
            previous=earlier[previous].key if previous is not None else None,
            opens_turn=before is not None and self.last[before].type == "user",
            thinks=tokens.reasoning > 0,
            harness=self.harness,
            reasoning_apart=True,
        )

    def _input_time(self, before: str | None) -> float | None:
        """When the request went out, about: when the input it answers was written (the user's
        message, or the last result of the tool calls before it)."""
        if before is None:
            return None
        message = self.last[before]
        times = [epoch(message.timestamp)]
        times += [epoch(call.timestamp) for call in message.toolCalls or ()]
        known = [moment for moment in times if moment is not None]
        return max(known) if known else None


def parse(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Read a session of either layout (its prompts are not read: the records hold no request
    body): a legacy document is written indented, so its first line is no object of its own."""
    data = data.removeprefix(BOM)
    start = data.lstrip()
    first = start[: start.find(b"\n")] if b"\n" in start else start
    try:
        head = orjson.loads(first)
    except orjson.JSONDecodeError:
        head = None
    if isinstance(head, dict) and not isinstance(head.get("messages"), list):
        return parse_lines(path, data, project_hint)
    return parse_document(path, data, project_hint)


def parse_lines(path: str, data: bytes, project_hint: str) -> FileResult:
    """Read a `.jsonl` session."""
    conversation = Conversation(path, project_hint, TOP_LEVEL)
    handle_lines(path, data, GeminiLine, LINE_DECODER, conversation.issues, conversation.line)
    return conversation.result()


def parse_document(path: str, data: bytes, project_hint: str) -> FileResult:
    """Read a legacy `.json` session; `line` is a message's place in it (1-based)."""
    try:
        document = DOCUMENT_DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
        problem = LineIssue(path, 0, f"not a readable Gemini CLI session: {error}")
        return FileResult([], [problem], 0, SOURCE)
    conversation = Conversation(path, project_hint, EMBEDDED)
    conversation.meta(document.sessionId, document.kind)
    for index, raw in enumerate(document.messages, start=1):
        found = decode_record(
            path, index, bytes(raw), GeminiMessage, MESSAGE_DECODER, conversation.issues
        )
        if found is None:
            continue
        try:
            conversation.message(index, found)
        except Implausible as error:
            conversation.issues.append(LineIssue(path, index, str(error)))
    return conversation.result()


def claims_line(record: dict[str, Any]) -> bool:
    """A `.jsonl` session's metadata line, a `$set` or `$rewindTo`, or a `gemini` message."""
    return (
        (isinstance(record.get("projectHash"), str) and isinstance(record.get("sessionId"), str))
        or isinstance(record.get("$set"), dict)
        or isinstance(record.get("$rewindTo"), str)
        or (record.get("type") == "gemini" and isinstance(record.get("id"), str))
    )


def claims_document(value: Any) -> bool:
    """A legacy session: its id, its project's hash and its list of messages."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("projectHash"), str)
        and isinstance(value.get("messages"), list)
    )


FORMATS = (
    AgentFormat(SOURCE, Layout.LINES, claims_line, parse),
    AgentFormat(SOURCE, Layout.DOCUMENT, claims_document, parse),
)
