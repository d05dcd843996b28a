"""Provides `Group`: the lines of one response within one Claude Code transcript, as read so far.

Why apart from the reader (`claude_code`): the fullest line of a response is kept whole, and
the reader keeps its last groups between runs (`claude_code.Reader.__reduce__`), to be offered
the lines appended later.
"""

from __future__ import annotations

import sys
from pathlib import PurePath
from typing import TYPE_CHECKING

import msgspec

from sniff.first_hand import CacheDiagnosis
from sniff.ingest.formats.claude_code.wire import WireMessage, WireUsage
from sniff.ingest.providers.cache_diagnosis import anthropic_diagnosis
from sniff.ingest.record import Response, Tokens, epoch
from sniff.model import UNDATED, Agent, LineIssue

THINKING = frozenset({"thinking", "redacted_thinking"})
"""The content blocks of a response's thinking."""

if TYPE_CHECKING:
    from sniff.ingest.formats.claude_code.reader import Reader

SOURCE = "claude-code"
PROVIDER = "anthropic"


class Group(msgspec.Struct, array_like=True, gc=False):
    """The lines of one response within one file."""

    key: str
    copy_rank: int
    number: int
    tokens: Tokens
    ttl_assumed: bool
    model: str
    session_id: str
    agent: Agent
    agent_id: str
    first_at: str
    last_at: str
    parent: str | None
    version: str | None
    thinks: bool = False
    branch: str | None = None
    """The first `gitBranch` its lines name (empty: None)."""
    text_at: str = ""
    """The time of its first line holding a `text` block ("" while none came)."""
    tool_at: str = ""
    """The time of its first line holding a `tool_use` block."""
    request_id: str | None = None
    """The provider's request id its lines name (`requestId`)."""
    diagnosis: CacheDiagnosis | None = None
    """What the provider said of its cache, where its lines say (`message.diagnostics`)."""

    def widen(self, timestamp: str) -> None:
        """Stretch the response's time span to cover another of its lines."""
        if timestamp:
            if not self.first_at or timestamp < self.first_at:
                self.first_at = timestamp
            if timestamp > self.last_at:
                self.last_at = timestamp

    def note(self, timestamp: str, message: WireMessage) -> None:
        """Note what a line of the response holds: thinking, the provider's cache diagnosis,
        and its time if it holds the response's first text or tool call (one pass: this runs
        for every response line)."""
        if self.diagnosis is None and message.diagnostics:
            self.diagnosis = _diagnosis(bytes(message.diagnostics))
        content = message.content
        if not isinstance(content, list):
            return
        for part in content:
            kind = part.type
            if kind == "text":
                if timestamp and (not self.text_at or timestamp < self.text_at):
                    self.text_at = timestamp
            elif kind == "tool_use":
                if timestamp and (not self.tool_at or timestamp < self.tool_at):
                    self.tool_at = timestamp
            elif kind in THINKING:
                self.thinks = True

    def offer(self, number: int, usage: WireUsage, model: str | None, copy_rank: int) -> None:
        """Keep another line of the response instead, if it holds more tokens.

        One whole line is kept, never a maximum per field: a mid-stream model fallback can
        change the model and cache counts between lines of one response.
        """
        tokens, ttl_assumed = usage.tokens()
        if (sum(tokens[:5]), -copy_rank) > (sum(self.tokens[:5]), -self.copy_rank):
            self.number, self.tokens = number, tokens
            self.ttl_assumed, self.copy_rank = ttl_assumed, copy_rank
            if model:
                self.model = sys.intern(model)

    def response(self, reader: Reader, issues: list[LineIssue]) -> Response:
        """The response, as the lines read so far hold it; a time it cannot read is added to
        `issues` (and left to the merge, which dates the response by its file)."""
        agent_id = self.agent_id
        if not agent_id:
            agent_id = "sidechain-" + reader.sidechain_root(self.parent)[:8]
        started = epoch(reader.times.get(self.parent)) if self.parent else None
        previous, opens_turn, compacted = reader.previous_call(self.key, self.parent)
        first = epoch(self.first_at)
        last = first if self.last_at == self.first_at else epoch(self.last_at)
        if (first is None and self.first_at) or (last is None and self.last_at):
            issues.append(LineIssue(reader.path, self.number, UNDATED, True))
        return Response(
            SOURCE,
            self.key,
            self.copy_rank,
            self.tokens,
            self.ttl_assumed,
            self.model,
            PROVIDER,
            self.session_id or PurePath(reader.path).stem,
            self.agent,
            agent_id,
            reader.project,
            first,
            last,
            started,
            self.version,
            reader.path,
            self.number,
            previous=previous,
            opens_turn=opens_turn,
            thinks=self.thinks,
            compacted=compacted,
            git_branch=self.branch or reader.branch_of(self.parent),
            visible_at=self._visible(first, last),
            request_id=self.request_id,
            cache_diagnosis=self.diagnosis,
        )

    def _visible(self, first: float | None, last: float | None) -> float | None:
        """When the first text (else tool call) line was written: most often the response's
        first or last line, whose times are read already (a scan reads every response)."""
        shown = self.text_at or self.tool_at
        if shown == self.first_at:
            return first
        return last if shown == self.last_at else epoch(shown)


def _diagnosis(raw: bytes) -> CacheDiagnosis | None:
    """A line's `message.diagnostics`, read as Anthropic writes it (None when it says none, or
    is no JSON a provider writes)."""
    try:
        return anthropic_diagnosis(msgspec.json.decode(raw))
    except (msgspec.DecodeError, RecursionError):
        return None
