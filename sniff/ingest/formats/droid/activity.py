"""Provides what a Droid session `.jsonl` or a `droid exec` stream-json capture says the agent
did: its tool calls, their outcomes and the user's requests (Droid logs no usage there).

- A session file: `message` records whose `message.content` holds Anthropic-style blocks:
  `tool_use` (a call), `tool_result` (its outcome, `is_error` a failure), the user's `text`.
- A stream capture: `tool_call` and `tool_result` records by `toolCallId` (a failure:
  `isError`, or a non-zero `value.exitCode`), and the user's `message` records.
Neither names the call that asked for a tool: Droid keeps no per-call records.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import msgspec

from sniff.ingest.activity import EXCERPT
from sniff.ingest.files.lines import decode_lines
from sniff.ingest.plausible import epoch
from sniff.model import Activity, AgentEvent, LineIssue, ToolCall, ToolResult

# ruff: noqa: N815 (fields keep the log's camelCase names)


class Block(msgspec.Struct, gc=False):
    type: str = ""
    id: str | None = None
    name: str | None = None
    tool_use_id: str | None = None
    is_error: bool | None = None
    text: str | None = None


class Content(msgspec.Struct, gc=False):
    role: str | None = None
    content: list[Block] | str | None = None


class Line(msgspec.Struct, gc=False):
    type: str = ""
    id: str | None = None
    timestamp: str | None = None
    session_id: str | None = None
    cwd: str | None = None
    role: str | None = None
    text: str | None = None
    toolCallId: str | None = None
    toolName: str | None = None
    isError: bool | None = None
    value: Any = None
    """A tool's outcome (`{stdout, exitCode}`), or its text."""
    message: Content | None = None


DECODER = msgspec.json.Decoder(Line)


class Reader:
    """The activity of one file, read line by line."""

    def __init__(self, path: str, project_hint: str) -> None:
        self.session, self.project = PurePath(path).stem, folder_project(project_hint)
        self.calls: list[tuple[str, str, float | None]] = []
        self.results: list[tuple[str, float | None, str | None]] = []
        self.asked: list[tuple[float | None, str, str]] = []

    def line(self, line: Line) -> None:
        at = epoch(line.timestamp)
        if line.type == "session_start" and line.id:
            self.session = line.id
        elif line.session_id:
            self.session = line.session_id
        if line.cwd:
            self.project = line.cwd
        if line.type == "tool_call" and line.toolCallId:
            self.calls.append((line.toolCallId, line.toolName or "(unnamed)", at))
        elif line.type == "tool_result" and line.toolCallId:
            code = line.value.get("exitCode") if isinstance(line.value, dict) else None
            failed = bool(line.isError) or (type(code) is int and code != 0)
            self.results.append((line.toolCallId, at, f"Exit code {code}" if failed else None))
        elif line.type == "message" and line.role == "user" and line.text:
            self.asked.append((at, line.text.strip()[:EXCERPT], line.id or ""))
        elif line.type == "message" and line.message is not None:
            self._blocks(line.message, line, at)

    def _blocks(self, message: Content, line: Line, at: float | None) -> None:
        if isinstance(message.content, str):
            if message.role == "user" and message.content.strip():
                self.asked.append((at, message.content.strip()[:EXCERPT], line.id or ""))
            return
        for block in message.content or ():
            if block.type == "tool_use" and block.id:
                self.calls.append((block.id, block.name or "(unnamed)", at))
            elif block.type == "tool_result" and block.tool_use_id:
                failure = "failed" if block.is_error else None
                self.results.append((block.tool_use_id, at, failure))
            elif block.type == "text" and message.role == "user" and (block.text or "").strip():
                self.asked.append((at, (block.text or "").strip()[:EXCERPT], line.id or ""))

    def freeze(self) -> Activity:
        session, project = self.session, self.project
        return Activity(
            calls=tuple(ToolCall(i, name, "", session, project, at) for i, name, at in self.calls),
            results=tuple(ToolResult(i, session, at, error) for i, at, error in self.results),
            events=tuple(
                AgentEvent("instruction", session, project, at, text, None, _uuid(session, name))
                for at, text, name in self.asked
            ),
        )


def _uuid(session: str, name: str) -> str:
    return f"droid:{session}:{name}" if name else ""


ARCHIVE = "archive"
"""The folder Droid keeps copies of sessions in, under its sessions folder."""
DROID_FOLDERS = frozenset({"sessions", ARCHIVE})
"""Droid's own folders (`~/.factory/sessions/archive/`): no project's name."""
UNKNOWN_PROJECT = "(unknown)"


def folder_project(hint: str) -> str:
    """The project a Droid log's folder names, for a log that names no `cwd`: Droid's own
    folders (`sessions`, `archive`) name none, and a project called `sessions` reads as a bug,
    so such a log's project is `(unknown)`, as a model no log names is."""
    return UNKNOWN_PROJECT if hint in DROID_FOLDERS else hint


def read(path: str, data: bytes, project_hint: str, issues: list[LineIssue]) -> Activity:
    """The activity of a session file or stream capture; bad lines go to `issues`."""
    reader = Reader(path, project_hint)
    for _, line in decode_lines(path, data, Line, DECODER, issues):
        reader.line(line)
    return reader.freeze()
