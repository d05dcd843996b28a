"""Provides the shape of a pi (or OpenClaw) session line: only the fields sniff reads.

pi writes one JSON entry a line: a `session` header, then `message`, `model_change`,
`compaction`, `custom`, ... entries; from session format v2 on every entry has an `id` and the
`parentId` of the entry it follows (the session is a tree), v1 entries have neither. A message's
`usage` holds disjoint classes as pi normalised them per provider (`input` is uncached input,
`cacheRead` and `cacheWrite` beside it) and the dollars pi computed (`cost.total`). Every field
is optional, as in `claude_code_wire`: a line of unexpected types is decoded leniently.
"""

from __future__ import annotations

import msgspec

from sniff.ingest.plausible import Count, UsageFields, counted
from sniff.ingest.record import Tokens


class Cost(msgspec.Struct, gc=False):
    """`usage.cost`: dollars per class and in all, as pi priced the call."""

    total: float | None = None


class Usage(UsageFields, rename="camel", gc=False):
    """`message.usage`: disjoint classes (pi subtracts OpenAI's and Gemini's cached input)."""

    input: Count = None
    output: Count = None
    cache_read: Count = None
    cache_write: Count = None
    cost: Cost | None = None

    def tokens(self) -> tuple[int, int, int, int]:
        """(uncached input, cache read, cache write, output)."""
        return (
            counted(self.input),
            counted(self.cache_read),
            counted(self.cache_write),
            counted(self.output),
        )


class Block(msgspec.Struct, gc=False):
    """A content block: `text`, `thinking`, `toolCall` (with its `id` and `name`), `image`."""

    type: str = ""
    id: str | None = None
    name: str | None = None
    text: str | None = None


class Message(msgspec.Struct, rename="camel", gc=False):
    """`message`: a `user`, `assistant` or `toolResult` message (or a harness's own role)."""

    role: str = ""
    content: list[Block] | str | None = None
    api: str | None = None
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    stop_reason: str | None = None
    timestamp: int | float | None = None
    """Epoch milliseconds the message was created: for a response, about when it was asked."""
    tool_call_id: str | None = None
    is_error: bool | None = None


class Entry(msgspec.Struct, rename="camel", gc=False):
    """One line of a session file."""

    type: str = ""
    id: str | None = None
    parent_id: str | None = None
    timestamp: str | None = None
    """ISO-8601: when the line was written (for a response, when it was complete)."""
    message: Message | None = None
    cwd: str | None = None
    """The session's folder (header)."""
    custom_type: str | None = None
    provider: str | None = None


DECODER = msgspec.json.Decoder(Entry)


def tokens_of(usage: Usage, anthropic: bool) -> tuple[Tokens, bool]:
    """A response's tokens in sniff's classes, and whether the cache writes' TTL is assumed
    (pi does not log it: Anthropic's writes count as 5-minute ones; other providers' caches
    have no TTL to choose)."""
    uncached, read, written, output = usage.tokens()
    return Tokens(uncached, read, written, 0, output, 0), anthropic and written > 0
