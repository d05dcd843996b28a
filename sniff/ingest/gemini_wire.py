"""Provides the wire shapes of Gemini CLI's chat records and Google's usage counts, which Qwen
Code (a Gemini CLI fork) logs too, and their tokens in sniff's disjoint classes.

Google counts cached tokens inside the prompt (`cachedContentTokenCount` ⊂ `promptTokenCount`)
and bills tool-use prompts (`toolUsePromptTokenCount`) and thoughts (`thoughtsTokenCount`)
beside them: `totalTokenCount` = prompt + candidates + thoughts + tool use. A total that equals
that sum plus the cached count says the cached tokens were counted apart; a cached count above
the prompt can only be apart. Qwen Code's OpenAI-compatible path writes the same names, but its
`candidatesTokenCount` is OpenAI's `completion_tokens`, thoughts included (its total is then
prompt + candidates): those thoughts are taken out of the output once.
"""

from __future__ import annotations

import msgspec

from sniff.ingest.plausible import Count, UsageFields, counted
from sniff.ingest.record import Tokens

# The structs are untracked by the cyclic collector, as Claude Code's are (`claude_code_wire`):
# a decoded line is a tree, never a cycle.


def google_tokens(
    prompt: int,
    cached: int,
    candidates: int,
    thoughts: int,
    tool: int,
    total: int,
    *,
    thoughts_may_be_inside: bool = False,
) -> Tokens:
    """A call's counts (Google's names) as disjoint tokens: uncached input (tool-use prompts
    included), cache read, output without thoughts, and the thoughts as reasoning.

    `thoughts_may_be_inside`: the writer may have counted thoughts inside the candidates (Qwen
    Code's OpenAI path), which its total then shows (or, with no total, is assumed).
    """
    inside = (
        thoughts_may_be_inside
        and 0 < thoughts <= candidates
        and (
            not total or total in (prompt + candidates + tool, prompt + cached + candidates + tool)
        )
    )
    generated = candidates if inside else candidates + thoughts
    apart = cached > prompt or (cached > 0 and total == prompt + cached + generated + tool)
    uncached = prompt if apart else prompt - cached
    output = candidates - thoughts if inside else candidates
    return Tokens(uncached + tool, cached, 0, 0, output, thoughts)


class GeminiTokens(UsageFields, gc=False):
    """A `gemini` record's `tokens` (gemini-cli `TokensSummary`)."""

    input: Count = None
    """promptTokenCount: cached tokens included."""
    output: Count = None
    cached: Count = None
    thoughts: Count = None
    tool: Count = None
    total: Count = None

    def disjoint(self) -> Tokens:
        """The counts in sniff's classes (see the module docstring)."""
        return google_tokens(
            counted(self.input),
            counted(self.cached),
            counted(self.output),
            counted(self.thoughts),
            counted(self.tool),
            counted(self.total),
        )


class UsageMetadata(UsageFields, gc=False):
    """Google's `usageMetadata` of one response, as Qwen Code stores it on assistant rows."""

    promptTokenCount: Count = None
    candidatesTokenCount: Count = None
    thoughtsTokenCount: Count = None
    cachedContentTokenCount: Count = None
    toolUsePromptTokenCount: Count = None
    totalTokenCount: Count = None

    def disjoint(self) -> Tokens:
        """The counts in sniff's classes, thoughts taken out of the output where the total says
        they were inside it."""
        return google_tokens(
            counted(self.promptTokenCount),
            counted(self.cachedContentTokenCount),
            counted(self.candidatesTokenCount),
            counted(self.thoughtsTokenCount),
            counted(self.toolUsePromptTokenCount),
            counted(self.totalTokenCount),
            thoughts_may_be_inside=True,
        )


class GeminiToolCall(msgspec.Struct, gc=False):
    """One entry of a `gemini` record's `toolCalls` (gemini-cli `ToolCallRecord`)."""

    id: str | None = None
    name: str | None = None
    status: str | None = None
    """`success`, `error` or `cancelled`."""
    timestamp: str | None = None
    result: msgspec.Raw = msgspec.Raw(b"")
    """The function responses sent back: decoded only for a failed call."""
    resultDisplay: msgspec.Raw = msgspec.Raw(b"")


class GeminiMessage(msgspec.Struct, gc=False):
    """A message record: `user`, `gemini` (a model response), `info`, `error` or `warning`."""

    id: str | None = None
    timestamp: str | None = None
    type: str | None = None
    model: str | None = None
    tokens: GeminiTokens | None = None
    toolCalls: list[GeminiToolCall] | None = None
    content: msgspec.Raw = msgspec.Raw(b"")
    """A string or a list of parts: decoded only for user requests and errors."""
    displayContent: msgspec.Raw = msgspec.Raw(b"")
    """What the user typed, where it differs from what was sent."""
    thoughts: msgspec.Raw = msgspec.Raw(b"")


class MetadataUpdate(msgspec.Struct, gc=False):
    """A `$set` record's object: the session's metadata fields it changes."""

    sessionId: str | None = None
    kind: str | None = None
    messages: list[GeminiMessage] | None = None
    """The whole conversation, written when Gemini CLI rewrites its history (a compression)."""


class GeminiLine(GeminiMessage, gc=False):
    """Any line of a `.jsonl` session: the metadata line, a message, `$set` or `$rewindTo`."""

    sessionId: str | None = None
    projectHash: str | None = None
    startTime: str | None = None
    kind: str | None = None
    """`main` or `subagent`."""
    set: MetadataUpdate | None = msgspec.field(default=None, name="$set")
    rewind_to: str | None = msgspec.field(default=None, name="$rewindTo")


class LegacyConversation(msgspec.Struct, gc=False):
    """A legacy `session-*.json` document (gemini-cli `ConversationRecord`); its messages are
    decoded one by one, so a bad one is skipped alone."""

    sessionId: str | None = None
    projectHash: str | None = None
    startTime: str | None = None
    kind: str | None = None
    messages: list[msgspec.Raw] = msgspec.field(default_factory=list)


LINE_DECODER = msgspec.json.Decoder(GeminiLine)
MESSAGE_DECODER = msgspec.json.Decoder(GeminiMessage)
DOCUMENT_DECODER = msgspec.json.Decoder(LegacyConversation)
