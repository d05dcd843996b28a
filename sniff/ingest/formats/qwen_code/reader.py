"""Provides the parser of Qwen Code's sessions (`~/.qwen/projects/<project>/chats/*.jsonl`).

Qwen Code writes Claude Code's envelope (`uuid`, `parentUuid`, `sessionId`, `type` user |
assistant | tool_result | system) around Gemini's content (`message.parts`) and usage
(`usageMetadata`, in Google's names: `gemini_wire`). One request per assistant row with usage:
- a `system` row of subtype `ui_telemetry` (`qwen-code.api_response`) describes the same call
  again: its tokens are never counted, but its duration dates when the call went out, and its
  `auth_type` names the provider;
- a streamed turn can be written twice under one `uuid` (a thought-only part first, without
  usage): the last copy with usage is the one kept; `/branch` copies rows verbatim, uuids
  included, into a new session, so a request's key is its `uuid` and copies count once;
- a row with no usage, or only zeros, is none;
- a rewind abandons a branch, but the calls on it were billed: they count. `previous` follows
  `parentUuid` to the call before it on the row's own branch, which lets cache breaks work.
Rows of a sub-agent (`isSidechain`) are its calls; `cwd` names each row's project.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, NamedTuple

import msgspec

from sniff.ingest.activity import EXCERPT, ActivityLog, typed_text
from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files.lines import handle_lines
from sniff.ingest.gemini_wire import UsageMetadata
from sniff.ingest.plausible import SURELY_DATED, check_date
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, epoch
from sniff.model import UNDATED, Agent, Harness, LineIssue

SOURCE = "qwen-code"
API_RESPONSE = "qwen-code.api_response"
API_ERROR = "qwen-code.api_error"
DEFAULT_PROVIDER = "qwen"
"""The provider of a call no telemetry row names: Qwen Code's own service is its default."""
PROVIDERS = {
    "qwen-oauth": "qwen",
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini-api-key": "google",
    "oauth-personal": "google",
    "vertex-ai": "google",
    "cloud-shell": "google",
}
"""Qwen Code's `auth_type` → the provider it calls."""
INJECTED = "<qwen:"
"""How the context Qwen Code adds to a user's message starts (a text part of its own)."""
ROW_TYPES = frozenset({"user", "assistant", "tool_result", "system"})


class FunctionCall(msgspec.Struct, gc=False):
    id: str | None = None
    name: str | None = None


class FunctionResponse(msgspec.Struct, gc=False):
    id: str | None = None


class Part(msgspec.Struct, gc=False):
    text: str | None = None
    thought: bool | None = None
    functionCall: FunctionCall | None = None
    functionResponse: FunctionResponse | None = None


class Content(msgspec.Struct, gc=False):
    role: str | None = None
    parts: list[Part] | None = None


class UiEvent(msgspec.Struct, gc=False):
    name: str | None = msgspec.field(default=None, name="event.name")
    timestamp: str | None = msgspec.field(default=None, name="event.timestamp")
    duration_ms: float | None = None
    auth_type: str | None = None
    error_message: str | None = None
    error: str | None = None


class SystemPayload(msgspec.Struct, gc=False):
    uiEvent: UiEvent | None = None
    displayText: str | None = None
    """What the user typed, on a user row whose message holds injected context too."""


class ToolCallResult(msgspec.Struct, gc=False):
    callId: str | None = None
    status: str | None = None
    resultDisplay: msgspec.Raw = msgspec.Raw(b"")


class QwenRow(msgspec.Struct, gc=False):
    uuid: str | None = None
    parentUuid: str | None = None
    sessionId: str | None = None
    timestamp: str | None = None
    type: str | None = None
    subtype: str | None = None
    cwd: str | None = None
    version: str | None = None
    gitBranch: str | None = None
    model: str | None = None
    isSidechain: bool | None = None
    agentId: str | None = None
    message: Content | None = None
    usageMetadata: UsageMetadata | None = None
    systemPayload: SystemPayload | None = None
    toolCallResult: ToolCallResult | None = None


DECODER = msgspec.json.Decoder(QwenRow)


class Link(NamedTuple):
    """What a row tells the calls after it on its branch."""

    parent: str | None
    kind: str
    """Its `type`, or its `subtype` for a system row."""
    sent: tuple[float, str | None] | None
    """From a telemetry row of a response: (when the call went out, the provider)."""


class Reader:
    """The rows of one session file read so far."""

    def __init__(self, path: str, project_hint: str) -> None:
        self.path = path
        self.project = project_hint
        self.issues: list[LineIssue] = []
        self.session_id = PurePath(path).stem
        self.links: dict[str, Link] = {}
        self.counted: dict[str, tuple[int, QwenRow]] = {}
        """uuid → (line, last assistant row with usage)."""
        self.activity = ActivityLog()
        self.tool_ids: dict[str, str] = {}
        """A call's id → its id in the activity (see `_assistant`)."""

    def row(self, number: int, row: QwenRow) -> None:
        timestamp = row.timestamp
        if timestamp and not SURELY_DATED[0] <= timestamp < SURELY_DATED[1]:
            check_date(timestamp)  # first: a row dated off the calendar changes nothing
        session = row.sessionId or self.session_id
        ident = row.uuid or f"{self.path}:{number}"
        event = row.systemPayload.uiEvent if row.systemPayload is not None else None
        kind = (row.subtype or "system") if row.type == "system" else (row.type or "")
        self.links[ident] = Link(row.parentUuid, kind, _sent(event))
        if row.type == "assistant":
            self._assistant(number, ident, row, session)
        elif row.type == "tool_result":
            self._result(row, session)
        elif row.type == "user" and not row.isSidechain:
            self._request(row, session, ident)
        elif event is not None and event.name == API_ERROR:
            text = (event.error_message or event.error or "")[:EXCERPT]
            self.activity.events.append(("api_error", session, timestamp, text, None, ident))

    def _assistant(self, number: int, ident: str, row: QwenRow, session: str) -> None:
        if row.usageMetadata is not None and any(row.usageMetadata.disjoint()):
            self.counted[ident] = (number, row)
        key = f"{SOURCE}:{ident}"
        for part in row.message.parts or () if row.message is not None else ():
            call = part.functionCall
            if call is None or not call.id:
                continue
            # named by the row asking for it: a branch's copy of the call is the same call
            tool_id = self.tool_ids.setdefault(call.id, f"{key}:{call.id}")
            if tool_id not in self.activity.calls:
                name = call.name or "(unnamed)"
                self.activity.calls[tool_id] = (name, key, session, row.timestamp)

    def _result(self, row: QwenRow, session: str) -> None:
        outcome = row.toolCallResult
        call_id = outcome.callId if outcome is not None else None
        for part in row.message.parts or () if row.message is not None else ():
            if part.functionResponse is not None:
                call_id = call_id or part.functionResponse.id
        if not call_id:
            return
        error = None
        if outcome is not None and outcome.status in ("error", "cancelled"):
            error = _shown(outcome.resultDisplay) or outcome.status
        tool_id = self.tool_ids.get(call_id, f"{SOURCE}:{session}:{call_id}")
        self.activity.results[tool_id] = (session, row.timestamp, error)

    def _request(self, row: QwenRow, session: str, ident: str) -> None:
        payload = row.systemPayload
        text = payload.displayText if payload is not None and payload.displayText else None
        if text is None and row.message is not None:
            texts = (part.text for part in row.message.parts or () if not part.thought)
            text = "\n".join(t for t in texts if t and not t.startswith(INJECTED))
        text = typed_text(text or "")
        if text:
            entry = ("instruction", session, row.timestamp, text[:EXCERPT], None, ident)
            self.activity.events.append(entry)

    def result(self) -> FileResult:
        """The requests and activity of the rows read."""
        responses = [
            self._response(ident, number, row) for ident, (number, row) in self.counted.items()
        ]
        return FileResult(responses, self.issues, 0, SOURCE, self.activity.freeze(self.project))

    def _response(self, ident: str, number: int, row: QwenRow) -> Response:
        assert row.usageMetadata is not None  # only rows with usage are counted
        previous, opens, compacted, sent = self._branch(row.parentUuid)
        ended = epoch(row.timestamp)
        if ended is None and row.timestamp:
            self.issues.append(LineIssue(self.path, number, UNDATED, True))
        started, provider = sent or (None, None)
        sidechain = bool(row.isSidechain)
        return Response(
            SOURCE,
            f"{SOURCE}:{ident}",
            TOP_LEVEL,
            row.usageMetadata.disjoint(),
            False,
            row.model or "(unknown)",
            provider or DEFAULT_PROVIDER,
            row.sessionId or self.session_id,
            Agent.SUBAGENT if sidechain else Agent.MAIN,
            (row.agentId or "subagent") if sidechain else Agent.MAIN.value,
            row.cwd or self.project,
            None,
            ended,
            started if started is not None and ended is not None and started <= ended else None,
            row.version,
            self.path,
            number,
            previous=f"{SOURCE}:{previous}" if previous is not None else None,
            opens_turn=opens,
            thinks=any(part.thought for part in row.message.parts or ()) if row.message else False,
            compacted=compacted,
            harness=Harness.QWEN_CODE,
            reasoning_apart=True,
            git_branch=row.gitBranch or None,
        )

    def _branch(
        self, parent: str | None
    ) -> tuple[str | None, bool, bool, tuple[float, str | None] | None]:
        """Up the row's branch to the call before it: (that call's uuid, whether new user
        content came since, whether a compression did, when this call went out)."""
        opens = compacted = False
        sent = None
        turn_known = False
        seen: set[str] = set()
        while parent is not None and parent in self.links and parent not in seen:
            seen.add(parent)
            link = self.links[parent]
            if link.kind == "assistant" and parent in self.counted:
                return parent, opens, compacted, sent
            if link.kind in ("user", "tool_result") and not turn_known:
                opens, turn_known = link.kind == "user", True
            compacted = compacted or link.kind == "chat_compression"
            sent = sent or link.sent
            parent = link.parent
        return None, opens, compacted, sent


def _sent(event: UiEvent | None) -> tuple[float, str | None] | None:
    """When a call went out, from the telemetry of its response, and its provider."""
    if event is None or event.name != API_RESPONSE:
        return None
    done = epoch(event.timestamp)
    if done is None:
        return None
    took = event.duration_ms / 1000 if event.duration_ms and event.duration_ms > 0 else 0.0
    return done - took, PROVIDERS.get(event.auth_type or "")


def _shown(raw: msgspec.Raw) -> str:
    """A failed call's display text, when it is a string."""
    try:
        value = msgspec.json.decode(raw) if raw else None
    except msgspec.DecodeError:
        return ""
    return value.strip()[:EXCERPT] if isinstance(value, str) else ""


def parse(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Read one session (its prompts are not read: the rows hold no request body)."""
    reader = Reader(path, project_hint)
    handle_lines(path, data, QwenRow, DECODER, reader.issues, reader.row)
    return reader.result()


def claims(record: dict[str, Any]) -> bool:
    """A row in Claude Code's envelope holding what only Qwen Code writes: Gemini's parts,
    usage or a system payload."""
    if record.get("type") not in ROW_TYPES or not isinstance(record.get("uuid"), str):
        return False
    message = record.get("message")
    return (
        "usageMetadata" in record
        or "systemPayload" in record
        or (isinstance(message, dict) and isinstance(message.get("parts"), list))
    )


FORMATS = (AgentFormat(SOURCE, Layout.LINES, claims, parse),)
