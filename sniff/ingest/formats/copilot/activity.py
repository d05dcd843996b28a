"""Provides `Collector`: the tool calls, their outcomes and the user requests of a Copilot CLI
session, read in the parser's pass over its events.

- A tool call: an entry of an `assistant.message`'s `toolRequests`, by its `toolCallId`, asked
  by that message.
- Its outcome: the `tool.execution_complete` event of the same id; `success: false` is a
  failure, its `result.content` the excerpt.
- A user request: a `user.message` of the main agent (a sub-agent's task comes from its
  parent, `parentAgentTaskId`); an interruption: an `abort` event; a failed call the harness
  logged: a `session.error`.
"""

from __future__ import annotations

from sniff.ingest.activity import EXCERPT
from sniff.ingest.formats.copilot.wire import (
    Event,
    SessionError,
    ToolComplete,
    ToolRequest,
    UserMessage,
    data_of,
)
from sniff.model import Activity, AgentEvent, ToolCall, ToolResult


class Collector:
    """The activity of one session so far."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, str, float | None]] = {}
        """toolCallId → (tool name, key of the asking response, time)."""
        self.results: dict[str, tuple[float | None, str | None]] = {}
        """toolCallId → (time, failure excerpt or None)."""
        self.events: list[tuple[str, float | None, str, str]] = []
        """(kind, time, text, event id) of requests, interruptions and errors."""

    def asked(self, requests: list[ToolRequest], key: str, at: float | None) -> None:
        """The tool calls one response asked for."""
        for request in requests:
            if request.toolCallId and request.toolCallId not in self.calls:
                self.calls[request.toolCallId] = (request.name or "(unnamed)", key, at)

    def read(self, event: Event, at: float | None) -> None:
        """An event that is no usage: a tool's outcome, a user request, an abort, an error."""
        kind = event.type
        if kind == "tool.execution_complete":
            done = data_of(event, ToolComplete)
            if done.toolCallId and done.success is not None:
                failure = None
                if not done.success:
                    text = (done.result.content if done.result else None) or "failed"
                    failure = text[:EXCERPT]
                self.results.setdefault(done.toolCallId, (at, failure))
        elif kind == "user.message":
            message = data_of(event, UserMessage)
            text = (message.content or "").strip()
            if text and not message.parentAgentTaskId:
                self.events.append(("instruction", at, text[:EXCERPT], event.id or ""))
        elif kind == "abort":
            self.events.append(("interrupt", at, "", event.id or ""))
        elif kind == "session.error":
            error = data_of(event, SessionError)
            text = error.message or f"HTTP {error.statusCode}"
            self.events.append(("api_error", at, text[:EXCERPT], event.id or ""))

    def freeze(self, session: str, project: str) -> Activity:
        """The activity as records of `session`."""
        return Activity(
            calls=tuple(
                ToolCall(call_id, name, key, session, project, at)
                for call_id, (name, key, at) in self.calls.items()
            ),
            results=tuple(
                ToolResult(call_id, session, at, failure)
                for call_id, (at, failure) in self.results.items()
            ),
            events=tuple(
                AgentEvent(kind, session, project, at, text, None, _identity(session, name))
                for kind, at, text, name in self.events
            ),
        )


def _identity(session: str, name: str) -> str:
    """An event's identity across copies of the file; "" (compared by content) when unnamed."""
    return f"copilot:{session}:{name}" if name else ""
