"""Provides `ActivityLog`: tool calls, tool results and user requests, read with the usage.

Why in the same pass: agent analytics (which tools ran, which failed and why, what each user
request led to) need the same lines a scan already decodes; reading them again would double
the cost. Only small facts are kept: ids, names, times, and short excerpts of user requests
and failures (full tool outputs are never decoded).

What counts as a user request: a `user` line of the main conversation whose text is not a
tool result, not an interruption marker and not written by the harness: not `isMeta` (a
command's expanded prompt, a caveat), not `isCompactSummary`, and not a text `INJECTED` lists
(a background task's notification, local command output, reminders). A slash command counts
as one request, named (`/review`); the prompt it expands to is injected (`isMeta`) and does
not. Model calls that follow an injected text belong to the request before it: a task's
notification wakes the agent to go on with what the user asked.
"""

from __future__ import annotations

import re
import sys

import msgspec
import orjson
from msgspec import Raw

from sniff.ingest.claude_code_wire import ContentBlock, EmbeddedLine, WireLine, WireMessage
from sniff.ingest.plausible import epoch
from sniff.ingest.tool_detail import (
    DETAILED,
    SHELL_TOOLS,
    SUBAGENT_TOOLS,
    detail,
    head,
    keeps_output,
)
from sniff.model import Activity, AgentEvent, ToolCall, ToolResult

EXCERPT = 240
"""Characters kept of a user request or a failure's text."""
INTERRUPTED = "[Request interrupted by user"
COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
ARGUMENTS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
ERROR_TAG = re.compile(r"</?tool_use_error>")
INJECTED: tuple[tuple[str, str], ...] = (
    ("<task-notification>", "a background task or subagent ended (Claude Code 2.1; queued first)"),
    ("<local-command-stdout>", "the output of a local command (/model, /cost), after its line"),
    ("<local-command-stderr>", "the same, its error output"),
    ("<local-command-caveat>", "the caveat written before a local command's lines"),
    ("Caveat: The messages below", "the same caveat, untagged (Claude Code 2.0)"),
    ("<bash-stdout>", "the output of a shell command the user ran with `!`"),
    ("<bash-stderr>", "the same, its error output"),
    ("<user-prompt-submit-hook>", "the output of a UserPromptSubmit hook"),
    ("This session is being continued from a previous conversation", "a compaction summary"),
)
"""Texts the harness writes as a user turn, by how they start, and what each is. Seen in the
samples: local command output and caveats (a 2.0 transcript, the sample logs), compaction
summaries. Named by the log format notes: task notifications (which `queue-operation` lines
carry first), compaction summaries. The others are Claude Code's own tags for harness output."""
REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
"""Reminders the harness adds to a turn (seen in the text blocks of user turns of a claude-trace
capture, and in tool results): never typed, removed from a request's text."""


class ActivityLog(msgspec.Struct, gc=False):
    """The activity of one file so far (a struct: kept with its reader between runs)."""

    calls: dict[str, tuple[str, str, str, str | None]] = msgspec.field(default_factory=dict)
    """tool_use id → (name, response key, session, timestamp)."""
    results: dict[str, tuple[str, str | None, str | None]] = msgspec.field(default_factory=dict)
    """tool_use id → (session, timestamp, failure excerpt)."""
    events: list[tuple[str, str, str | None, str, str | None, str]] = msgspec.field(
        default_factory=list
    )
    """(kind, session, timestamp, text, command, uuid)."""
    details: dict[str, str] = msgspec.field(default_factory=dict)
    """tool_use id → what it was for (`tool_detail.detail`), for the tools that say."""
    heads: dict[str, str] = msgspec.field(default_factory=dict)
    """tool_use id → the start of a shell call's output."""
    launched: dict[str, str] = msgspec.field(default_factory=dict)
    """tool_use id → the subagent run a launch's result names (`toolUseResult.agentId`)."""
    awaited: dict[str, bool] = msgspec.field(default_factory=dict)
    """tool_use id → whether it is a shell call (else a subagent launch), for the calls whose
    result is read (`heads`, `launched`): one lookup per result tells the others apart."""

    def assistant(self, message: WireMessage, key: str, session: str, timestamp: str) -> None:
        """The tool uses of one line of a response."""
        content = message.content
        if not isinstance(content, list):
            return
        for block in content:
            if block.type == "tool_use" and block.id and block.id not in self.calls:
                name = sys.intern(block.name) if block.name else "(unnamed)"
                self.calls[block.id] = (name, key, session, timestamp or None)
                if name not in DETAILED:  # most tools: their input is not read
                    continue
                purpose = detail(name, bytes(block.input))
                if purpose:
                    self.details[block.id] = purpose
                if name in SUBAGENT_TOOLS or (name in SHELL_TOOLS and keeps_output(purpose)):
                    self.awaited[block.id] = name in SHELL_TOOLS

    def api_error(self, message: WireMessage | None, session: str, timestamp: str) -> None:
        """A harness line standing for a failed API call (`isApiErrorMessage`)."""
        text = _texts(message.content) if message is not None else ""
        self.events.append(("api_error", session, timestamp or None, text[:EXCERPT], None, ""))

    def user(self, line: WireLine | EmbeddedLine, session: str, main: bool) -> None:
        """Tool results, and on the main conversation a user's request or interruption."""
        message = line.message
        if message is None:
            return
        content = message.content
        timestamp = line.timestamp or None
        # what a user typed: only the main conversation's own lines (texts are decoded only here)
        typed = main and isinstance(line, WireLine) and not (line.isMeta or line.isCompactSummary)
        said: list[str] = []
        if isinstance(content, str):
            said.append(content)
        elif isinstance(content, list):
            for block in content:
                if block.type == "tool_result" and block.tool_use_id:
                    self._result(block, session, timestamp)
                    if block.tool_use_id in self.awaited:
                        self._output(block.tool_use_id, block, line)
                elif not typed:
                    continue
                elif block.type == "text":
                    said.append(_raw_text(block.text))
                elif block.type == "image":
                    said.append("[image]")
        if not said or not typed or not isinstance(line, WireLine):
            return
        text = "\n".join(typed_text(part) for part in said).strip()
        if text.startswith(INTERRUPTED):
            self.events.append(("interrupt", session, timestamp, text[:EXCERPT], None, ""))
            return
        if not text:
            return
        found = COMMAND.search(text)
        command = None
        if found is not None:
            command = found.group(1) if found.group(1).startswith("/") else "/" + found.group(1)
            arguments = ARGUMENTS.search(text)
            text = f"{command} {arguments.group(1).strip() if arguments else ''}".strip()
        elif text.startswith("<command-message>"):
            return  # the second half of a command's own lines
        uuid = line.uuid or ""
        self.events.append(("instruction", session, timestamp, text[:EXCERPT], command, uuid))

    def _result(self, block: ContentBlock, session: str, timestamp: str | None) -> None:
        tool_use_id = block.tool_use_id or ""
        if tool_use_id in self.results:
            return
        error = None
        if block.is_error:
            error = ERROR_TAG.sub("", _raw_text(block.content)).strip()[:EXCERPT] or "(no text)"
        elif _head(block.content).lstrip(b'"[{ ').startswith(b"[Request interrupted by user"):
            error = INTERRUPTED + " for tool use]"
        self.results[tool_use_id] = (session, timestamp, error)

    def _output(self, tool_use_id: str, block: ContentBlock, line: WireLine | EmbeddedLine) -> None:
        """The start of a shell call's output, and the run a subagent launch's result names
        (an awaited call: one whose result holds neither is awaited in later lines still)."""
        if self.awaited[tool_use_id]:
            printed = head(_raw_text(block.content))
            if printed:
                self.heads[tool_use_id] = printed
                del self.awaited[tool_use_id]
        elif isinstance(line, WireLine) and line.toolUseResult:
            try:
                run = _LAUNCH.decode(line.toolUseResult).agentId
            except (msgspec.DecodeError, msgspec.ValidationError):
                run = None
            if run:
                self.launched[tool_use_id] = run
                del self.awaited[tool_use_id]

    def freeze(self, project: str) -> Activity:
        """The activity as records (`project`: the file's, known once its lines are read)."""
        return Activity(
            calls=tuple(
                ToolCall(tool_id, name, key, session, project, epoch(at), self.details.get(tool_id))
                for tool_id, (name, key, session, at) in self.calls.items()
            ),
            results=tuple(
                ToolResult(
                    tool_id,
                    session,
                    epoch(at),
                    error,
                    self.heads.get(tool_id),
                    self.launched.get(tool_id),
                )  # fmt: skip
                for tool_id, (session, at, error) in self.results.items()
            ),
            events=tuple(
                AgentEvent(kind, session, project, epoch(at), text, command, uuid)
                for kind, session, at, text, command, uuid in self.events
            ),
        )


def typed_text(text: str) -> str:
    """What of a user turn's text (a string, or one text block) the user typed: "" for a text
    the harness injected (`INJECTED`), and no reminders (`REMINDER`)."""
    if "<system-reminder>" in text:
        text = REMINDER.sub("", text)
    text = text.strip()
    return "" if text.startswith(_INJECTED_STARTS) else text


_INJECTED_STARTS = tuple(start for start, _ in INJECTED)


class _Launch(msgspec.Struct, gc=False):
    """A subagent launch's `toolUseResult`: the run it names (Claude Code ≥ 2.0)."""

    agentId: str | None = None  # noqa: N815 - the log's own field name


_LAUNCH = msgspec.json.Decoder(_Launch)


def _head(raw: Raw, size: int = 64) -> bytes:
    """The first bytes of a raw value, without copying the rest (tool outputs can be large)."""
    return bytes(memoryview(raw)[:size])


def _raw_text(raw: Raw) -> str:
    """A block's text or content, decoded only now: a string, or a list of text blocks."""
    data = bytes(raw)
    if not data:
        return ""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            str(item.get("text", "")) for item in value if isinstance(item, dict)
        ).strip()
    return ""


def _texts(content: list[ContentBlock] | str | None) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_raw_text(block.text) for block in content if block.type == "text")
    return ""
