"""Provides the msgspec schemas of Cline's logs: the SDK session store's messages file and
manifest, and the classic task store's `ui_messages.json` rows (Cline, Roo Code, Kilo Code).

Why schemas: each message or row is decoded straight into typed fields, in C, its counts
checked as they decode (`plausible.Count`); a message that does not fit is skipped and listed
while the others still count. Field names are the agents' own (camelCase), as they write them.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from sniff.ingest.plausible import Count, UsageFields

Dollars = Annotated[float, msgspec.Meta(ge=0)] | None
"""A cost the agent logged: a non-negative number of dollars, or absent."""


# --- the SDK session store: <id>.messages.json and its manifest <id>.json -----------------------


class MessagesFile(msgspec.Struct, gc=False):
    """`<sessionId>.messages.json`: the conversation, rewritten whole at every save."""

    sessionId: str
    """The root session's id: a sub-agent's or teammate's file names its lead's session."""
    messages: list[msgspec.Raw]
    """Each decoded on its own, so one bad message costs only itself."""
    agent: str | None = None
    """`lead`, `subagent` or `teammate`."""
    updated_at: str | None = None


class Metrics(UsageFields):
    """An assistant message's usage: the change of the agent's running totals over the turn
    that wrote it. `inputTokens` is the whole prompt, cache reads and writes included."""

    inputTokens: Count = None
    outputTokens: Count = None
    cacheReadTokens: Count = None
    cacheWriteTokens: Count = None
    reasoningTokenCount: Count = None
    cost: Dollars = None


class ModelInfo(msgspec.Struct, gc=False):
    id: str | None = None
    provider: str | None = None


class Block(msgspec.Struct, gc=False):
    """A content block: text, tool_use, tool_result, file, image, thinking, ..."""

    type: str = ""
    text: str | None = None
    id: str | None = None
    name: str | None = None
    tool_use_id: str | None = None
    is_error: bool | None = None
    content: msgspec.Raw = msgspec.Raw()
    """A tool result's output: decoded only when it may tell a failure."""


class Message(msgspec.Struct, gc=False):
    role: str = ""
    id: str | None = None
    ts: int | float | None = None
    """Epoch milliseconds."""
    content: list[Block] | str | None = None
    modelInfo: ModelInfo | None = None
    metrics: Metrics | None = None


class Fork(msgspec.Struct, gc=False):
    forkedFromSessionId: str | None = None
    forkedAt: str | None = None


class ManifestMetadata(msgspec.Struct, gc=False):
    fork: Fork | None = None


class Manifest(msgspec.Struct, gc=False):
    """`<sessionId>.json`: the session's settings as they are now. Its `provider` and `model`
    are not read: they are the setting now, not what answered each call."""

    cwd: str | None = None
    workspace_root: str | None = None
    metadata: ManifestMetadata | None = None


# --- the classic task store: tasks/<taskId>/ui_messages.json ------------------------------------


class UiMessage(msgspec.Struct, gc=False):
    """One row of `ui_messages.json` (Roo's `ClineMessage`)."""

    ts: int | float | None = None
    type: str = ""
    say: str | None = None
    text: str | None = None
    modelInfo: TaskModelInfo | None = None
    """Newer Cline only: the model that answered."""


class TaskModelInfo(msgspec.Struct, gc=False):
    modelId: str | None = None
    providerId: str | None = None


class ApiRequest(UsageFields):
    """The JSON inside an `api_req_started` row's `text` (Roo's `ParsedApiReqStartedTextType`),
    rewritten in place when the request's stream ends."""

    tokensIn: Count = None
    tokensOut: Count = None
    cacheWrites: Count = None
    cacheReads: Count = None
    cost: Dollars = None
    apiProtocol: str | None = None
    """`anthropic` or `openai` (Roo and Kilo only): which convention `tokensIn` follows."""
    cancelReason: str | None = None
    streamingFailedMessage: str | None = None
