"""Provides `ClaudeCodeActivity`: the `ActivityLog` of a Claude Code transcript, filled from its
lines as the usage is read.

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

from sniff.ingest.activity import EXCERPT, ActivityLog, typed_text
from sniff.ingest.formats.claude_code.wire import ContentBlock, EmbeddedLine, WireLine, WireMessage
from sniff.ingest.tool_detail import (
    DETAILED,
    SHELL_TOOLS,
    SUBAGENT_TOOLS,
    detail,
    head,
    keeps_output,
)

INTERRUPTED = "[Request interrupted by user"
COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
ARGUMENTS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
ERROR_TAG = re.compile(r"</?tool_use_error>")


class ClaudeCodeActivity(ActivityLog, gc=False):
    """The activity of one Claude Code file so far (a struct: kept with its reader between runs)."""

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
