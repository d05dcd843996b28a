"""Provides the shape of a Claude Code transcript line: only the fields sniff reads.

Why a schema: decoding into these structs lets the JSON decoder skip everything else (message
contents, tool results, thinking) without building Python objects for it, which is most of a
transcript's bytes. Every field is optional; a line whose fields have unexpected types is
decoded leniently instead (`lines.lenient`), field by field, so nothing readable is lost, except
that a line whose token counts are no plausible counts (`plausible.Count`) is skipped.
The structs are untracked by the cyclic garbage collector (`gc=False`): a decoded line is a
tree, never a cycle, and a scan decodes hundreds of thousands of them.
"""

from __future__ import annotations

import msgspec

from sniff.ingest.plausible import Count, UsageFields, counted
from sniff.ingest.record import Tokens


class CacheCreation(UsageFields, gc=False):
    """`usage.cache_creation`: cache writes split by TTL (Claude Code ≥ 1.0.98)."""

    ephemeral_5m_input_tokens: Count = None
    ephemeral_1h_input_tokens: Count = None


class OutputDetails(UsageFields, gc=False):
    """`usage.output_tokens_details` (Claude Code ≥ 2.1.258)."""

    thinking_tokens: Count = None


class WireUsage(UsageFields, gc=False):
    """`message.usage` as Anthropic reports it: input excludes cache reads and writes."""

    input_tokens: Count = None
    cache_creation_input_tokens: Count = None
    cache_read_input_tokens: Count = None
    output_tokens: Count = None
    cache_creation: CacheCreation | None = None
    output_tokens_details: OutputDetails | None = None

    def tokens(self) -> tuple[Tokens, bool]:
        """(input, read, 5m write, 1h write, output, reasoning), and whether the TTL split
        is assumed (no `cache_creation`: all writes count as 5-minute ones)."""
        written = counted(self.cache_creation_input_tokens)
        split = self.cache_creation
        if split is not None:
            one_hour = counted(split.ephemeral_1h_input_tokens)
            if self.cache_creation_input_tokens is None:
                written = one_hour + counted(split.ephemeral_5m_input_tokens)
            one_hour = min(one_hour, written)
            ttl_assumed = False
        else:
            one_hour = 0
            ttl_assumed = written > 0
        details = self.output_tokens_details
        reasoning = counted(details.thinking_tokens) if details is not None else 0
        return Tokens(
            counted(self.input_tokens),
            counted(self.cache_read_input_tokens),
            written - one_hour,
            one_hour,
            counted(self.output_tokens),
            reasoning,
        ), ttl_assumed


class ContentBlock(msgspec.Struct, gc=False):
    """One block of `message.content`: only what agent analytics read.

    Texts stay raw JSON (`msgspec.Raw`): most are never looked at, and decoding the large ones
    (tool outputs, file contents) would cost more than the rest of the line.
    """

    type: str | None = None
    id: str | None = None
    name: str | None = None
    tool_use_id: str | None = None
    is_error: bool | None = None
    text: msgspec.Raw = msgspec.Raw(b"")
    content: msgspec.Raw = msgspec.Raw(b"")
    input: msgspec.Raw = msgspec.Raw(b"")
    """A tool use's input, decoded only for the tools whose purpose is kept (`ToolCall.detail`)."""


class WireMessage(msgspec.Struct, gc=False):
    """`message` of a line: for assistant lines, one content block of an API response."""

    id: str | None = None
    model: str | None = None
    usage: WireUsage | None = None
    content: list[ContentBlock] | str | None = None
    """Blocks, or a user's plain-text message."""
    diagnostics: msgspec.Raw = msgspec.Raw(b"")
    """The provider's word on the request's cache (decoded only where present)."""


class EmbeddedLine(msgspec.Struct, gc=False):
    """A subagent's transcript line repeated inside a parent's `progress` line."""

    type: str | None = None
    message: WireMessage | None = None
    timestamp: str | None = None
    uuid: str | None = None
    parentUuid: str | None = None  # noqa: N815 - the log's own field name
    requestId: str | None = None  # noqa: N815
    sessionId: str | None = None  # noqa: N815
    version: str | None = None
    isApiErrorMessage: bool | None = None  # noqa: N815
    gitBranch: str | None = None  # noqa: N815


class ProgressData(msgspec.Struct, gc=False):
    """`data` of a `progress` line."""

    type: str | None = None
    agentId: str | None = None  # noqa: N815
    message: EmbeddedLine | None = None


class WireLine(msgspec.Struct, gc=False):
    """One transcript line, any entry type."""

    type: str | None = None
    subtype: str | None = None
    """Of `system` lines: `compact_boundary`, `turn_duration`, ..."""
    uuid: str | None = None
    parentUuid: str | None = None  # noqa: N815
    timestamp: str | None = None
    sessionId: str | None = None  # noqa: N815
    isSidechain: bool | None = None  # noqa: N815
    agentId: str | None = None  # noqa: N815
    version: str | None = None
    cwd: str | None = None
    gitBranch: str | None = None  # noqa: N815
    """The branch checked out when the line was written: absent in 1.0.x, often empty."""
    requestId: str | None = None  # noqa: N815
    isApiErrorMessage: bool | None = None  # noqa: N815
    isMeta: bool | None = None  # noqa: N815
    isCompactSummary: bool | None = None  # noqa: N815
    message: WireMessage | None = None
    data: ProgressData | None = None
    toolUseResult: msgspec.Raw = msgspec.Raw(b"")  # noqa: N815
    """What the harness made of a tool result: read only for a subagent launch's `agentId`."""


DECODER = msgspec.json.Decoder(WireLine)
