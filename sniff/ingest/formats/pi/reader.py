"""Provides the parser of pi's session files, which OpenClaw writes too: format `pi`.

pi keeps `~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl` (or under `$PI_AGENT_DIR`),
OpenClaw `~/.openclaw/agents/<agent>/sessions/<uuid>.jsonl`. Each counted request is an
assistant message with usage (`pi_wire`). What the guide (`docs/agent-formats/pi-agent.md`)
warns of, and how it is met:

- A branched or forked session copies its parent's history, usage included, and a v1 session
  has no ids. A call is keyed by what its copies keep verbatim: the message's creation time (ms)
  and its model and token counts; the merge then counts each call once.
- An aborted or failed attempt is an assistant message with all-zero usage: no request. One
  that used tokens before it stopped was billed, and counts (as a success: pi logged its cost).
- `compaction` entries hold no usage of the summarising call (pi does not log it); the call
  after one is marked `compacted`.
- OpenClaw renames a deleted or reset session `<uuid>.jsonl.deleted.<time>` /
  `.jsonl.reset.<time>`: its own trash, not counted (folders never yield them, as their names
  do not end in `.jsonl`; named on the command line, they yield only why).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import PurePath
from typing import Any

from sniff.ingest.activity import EXCERPT
from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files.lines import decode_lines
from sniff.ingest.formats.pi.wire import DECODER, Block, Entry, Message, tokens_of
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, epoch
from sniff.model import (
    NO_TOKENS,
    Activity,
    Agent,
    AgentEvent,
    Harness,
    LineIssue,
    ToolCall,
    ToolResult,
)

SOURCE = "pi"
TRASH = re.compile(r"\.jsonl\.(?:deleted|reset)\.[^/\\]*$")
TRASHED = "OpenClaw's trash (a deleted or reset session): not counted"
OPENCLAW_HOMES = (".openclaw", ".clawdbot", ".moltbot", ".moldbot")
"""OpenClaw's data folders, under its current and former names (`OPENCLAW_DIR` aside)."""
PI_ENTRY_TYPES = frozenset(
    {"message", "model_change", "thinking_level_change", "compaction", "branch_summary",
     "custom", "custom_message", "label", "session_info"}
)  # fmt: skip
ANTHROPIC_APIS = frozenset({"anthropic-messages"})


def claims(record: dict[str, Any]) -> bool:
    """A pi session header (`type: session` with its `id` and `cwd`), or an assistant message
    in pi's shape (its `api` or its usage's `cacheRead`): words no other format uses."""
    if "uuid" in record or "sessionId" in record or "payload" in record:
        return False
    kind = record.get("type")
    if kind == "session":
        return isinstance(record.get("id"), str) and isinstance(record.get("cwd"), str)
    message = record.get("message")
    if kind not in PI_ENTRY_TYPES or not isinstance(message, dict):
        return False
    usage = message.get("usage")
    return isinstance(message.get("api"), str) or (
        isinstance(usage, dict) and ("cacheRead" in usage or "cacheWrite" in usage)
    )


def parse(path: str, data: bytes, project_hint: str, with_prompts: Prompts) -> FileResult:
    """Read one session file (`with_prompts` is moot: pi's prompts are not read)."""
    del with_prompts
    if TRASH.search(path):
        return FileResult([], [LineIssue(path, 0, TRASHED)], 0, SOURCE)
    issues: list[LineIssue] = []
    session = _Session(path, project_hint)
    for number, entry in decode_lines(path, data, Entry, DECODER, issues):
        session.add(number, entry)
    if session.tokenless and not session.calls:  # calls made, none said what it used
        issues.append(LineIssue(path, 0, NO_TOKENS, kept=True))
    return FileResult(session.responses(), issues, 0, SOURCE, session.activity())


class _Session:
    """What one file says, entry by entry, in the tree its entries form."""

    def __init__(self, path: str, project_hint: str) -> None:
        self.path = path
        self.session_id = _session_of_name(path)
        self.project = project_hint
        self.openclaw = _openclaw_path(path)
        self.calls: list[tuple[int, Entry, Message, str, str | None, bool, bool]] = []
        """(line, entry, message, key, previous key, opens a turn, first after a compaction)."""
        self.nodes: dict[str, tuple[str | None, str, bool]] = {}
        """entry id → (key of the last call on its branch, role of the entry, compaction
        pending). v1 entries, which have no id, are their line's `#N` and follow the line
        before."""
        self.last_node: str | None = None
        self.tokenless = 0
        """Assistant messages that are model calls but record no usage at all."""
        self.tool_calls: list[ToolCall] = []
        self.tool_results: list[ToolResult] = []
        self.events: list[AgentEvent] = []

    def add(self, number: int, entry: Entry) -> None:
        if entry.type == "session":
            self.session_id = entry.id or self.session_id
            self.project = entry.cwd or self.project
            return
        node = entry.id or f"#{number}"
        parent = entry.parent_id if entry.id else self.last_node
        last_call, parent_role, pending = self.nodes.get(parent or "", (None, "", False))
        self.last_node = node
        message = entry.message
        if entry.type == "compaction":
            self.nodes[node] = (last_call, "", True)
            return
        if (entry.custom_type or "").startswith(("openclaw", "model-snapshot")):
            self.openclaw = True
        if entry.type != "message" or message is None:
            self.nodes[node] = (last_call, parent_role, pending)
            return
        role = message.role
        if role == "assistant" and _used_tokens(message):
            key = _key(message, entry)
            self.calls.append(
                (number, entry, message, key, last_call, parent_role == "user", pending)
            )
            self._asked(message, key, entry)
            last_call, pending = key, False
        elif role == "assistant" and message.provider == "openclaw":
            self.openclaw = True  # the gateway's own message: no call
        elif role == "assistant" and message.usage is None:
            self.tokenless += 1
        elif role == "toolResult" and message.tool_call_id:
            self._answered(message, entry)
        elif role == "user":
            self._instruction(message, entry)
        self.nodes[node] = (last_call, role, pending)

    def _asked(self, message: Message, key: str, entry: Entry) -> None:
        for block in _blocks(message):
            if block.type == "toolCall" and block.id:
                at = epoch(entry.timestamp)
                name = block.name or "(unnamed)"
                self.tool_calls.append(
                    ToolCall(block.id, name, key, self.session_id, self.project, at)
                )

    def _answered(self, message: Message, entry: Entry) -> None:
        error = None
        if message.is_error:
            error = _text(message)[:EXCERPT] or "error"
        call_id = message.tool_call_id or ""
        self.tool_results.append(
            ToolResult(call_id, self.session_id, epoch(entry.timestamp), error)
        )

    def _instruction(self, message: Message, entry: Entry) -> None:
        text = _text(message).strip()
        if not text:
            return
        stamp = message.timestamp if message.timestamp is not None else entry.timestamp
        # a branch copies the message with its creation time: the same request
        identity = hashlib.blake2b(f"{stamp}\n{text}".encode(), digest_size=8).hexdigest()
        command = text.split(maxsplit=1)[0] if text.startswith("/") else None
        at = epoch(entry.timestamp)
        self.events.append(
            AgentEvent(
                "instruction",
                self.session_id,
                self.project,
                at,
                text[:EXCERPT],
                command,
                f"{SOURCE}:{identity}",
            )  # fmt: skip
        )

    def responses(self) -> list[Response]:
        harness = Harness.OPENCLAW if self.openclaw else Harness.PI
        return [_response(self, harness, *call) for call in self.calls]

    def activity(self) -> Activity:
        return Activity(tuple(self.tool_calls), tuple(self.tool_results), tuple(self.events))


def _response(
    session: _Session,
    harness: Harness,
    number: int,
    entry: Entry,
    message: Message,
    key: str,
    previous: str | None,
    opens_turn: bool,
    compacted: bool,
) -> Response:
    usage = message.usage
    assert usage is not None  # only messages with usage are calls
    anthropic = message.api in ANTHROPIC_APIS or message.provider == "anthropic"
    tokens, assumed = tokens_of(usage, anthropic)
    cost = usage.cost.total if usage.cost is not None else None
    return Response(
        SOURCE,
        key,
        TOP_LEVEL,
        tokens,
        assumed,
        message.model or "(unknown)",
        message.provider or _provider_of_api(message.api),
        session.session_id,
        Agent.MAIN,
        Agent.MAIN.value,
        session.project,
        None,
        epoch(entry.timestamp),
        epoch(message.timestamp),
        None,
        session.path,
        number,
        previous=previous,
        opens_turn=opens_turn,
        thinks=any(block.type == "thinking" for block in _blocks(message)),
        compacted=compacted,
        harness=harness,
        reported_cost_usd=cost if cost is not None and cost >= 0 else None,
    )


def _used_tokens(message: Message) -> bool:
    """Whether an assistant message counts as a request: aborted and failed attempts, the
    gateway's own messages, are written with all-zero usage."""
    return message.usage is not None and any(message.usage.tokens())


def _key(message: Message, entry: Entry) -> str:
    """What every copy of the call keeps verbatim: a branch copies the message whole, and a
    v1 session, whose entries have no id, is rewritten with new ids when pi migrates it."""
    usage = message.usage
    counts = ":".join(map(str, usage.tokens())) if usage is not None else ""
    stamp = message.timestamp if message.timestamp is not None else entry.timestamp
    return f"{SOURCE}:{stamp}:{message.model}:{counts}"


def _provider_of_api(api: str | None) -> str:
    """The provider an API name implies, for a message that names no provider."""
    if api is None:
        return "unknown"
    return api.split("-", 1)[0]


def _blocks(message: Message) -> list[Block]:
    return message.content if isinstance(message.content, list) else []


def _text(message: Message) -> str:
    if isinstance(message.content, str):
        return message.content
    return "\n".join(block.text for block in _blocks(message) if block.text)


def _session_of_name(path: str) -> str:
    """The session a file's name gives: pi names files `<time>_<uuid>.jsonl`."""
    stem = PurePath(path).name.split(".jsonl", 1)[0]
    return stem.rsplit("_", 1)[-1] or stem


def _openclaw_path(path: str) -> bool:
    """Whether a file lies where OpenClaw keeps sessions: under one of its homes, or in its
    `agents/<agent>/sessions/` layout (pi's is `agent/sessions/`)."""
    parts = PurePath(path).parts
    if any(part.startswith(OPENCLAW_HOMES) for part in parts):
        return True
    return len(parts) >= 4 and parts[-2] == "sessions" and parts[-4] == "agents"


FORMATS: tuple[AgentFormat, ...] = (AgentFormat(SOURCE, Layout.LINES, claims, parse),)
