"""Provides the msgspec schema of an Amp thread (`T-*.json`) and the reading of its parts.

The thread is decoded with its messages and ledger rows kept raw, then each is decoded on its
own: one message that does not fit (a count that is no count) is listed by its index, and the
others still count. Tool blocks are read in the shapes peers describe (Anthropic's `tool_use`,
a `tool_result` naming `toolUseID` or `tool_use_id`), unverified against Amp itself.
"""

# ruff: noqa: N815 (fields keep the log's camelCase names)

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from sniff.ingest.activity import EXCERPT
from sniff.ingest.plausible import (
    IMPLAUSIBLE_USAGE,
    Count,
    Implausible,
    UsageFields,
    check_depth,
    epoch,
)
from sniff.model import Activity, LineIssue, ToolCall, ToolResult

AROUND_PART = 2
"""The objects around a message or ledger row: the thread and its list."""


class Tree(msgspec.Struct, gc=False):
    uri: str | None = None


class Initial(msgspec.Struct, gc=False):
    trees: list[Tree] = []


class Env(msgspec.Struct, gc=False):
    initial: Initial | None = None


class Ledgers(msgspec.Struct, gc=False):
    events: list[msgspec.Raw] = []


class Thread(msgspec.Struct, gc=False):
    id: str | None = None
    env: Env | None = None
    messages: list[msgspec.Raw] = []
    usageLedger: Ledgers | None = None


class Usage(UsageFields, gc=False):
    model: str | None = None
    timestamp: str | None = None
    inputTokens: Count = None
    outputTokens: Count = None
    cacheCreationInputTokens: Count = None
    cacheReadInputTokens: Count = None
    totalTokens: Count = None
    credits: float | None = None


class Block(msgspec.Struct, gc=False):
    type: str = ""
    id: str | None = None
    name: str | None = None
    toolUseID: str | None = None
    tool_use_id: str | None = None
    is_error: bool | None = None
    run: Any = None


class ThreadMessage(msgspec.Struct, gc=False):
    role: str | None = None
    messageId: int | str | None = None
    content: list[Block] | str | None = None
    usage: Usage | None = None


class LedgerTokens(UsageFields, gc=False):
    input: Count = None
    output: Count = None
    total: Count = None


class Ledger(msgspec.Struct, gc=False):
    id: str | None = None
    timestamp: str | None = None
    model: str | None = None
    tokens: LedgerTokens | None = None
    credits: float | None = None
    toMessageId: int | str | None = None


Part = TypeVar("Part", bound=msgspec.Struct)


def decode_thread(data: bytes) -> Thread:
    """The thread, its messages and ledger rows raw.

    Raises:
        Implausible: it is no JSON object of a thread's shape.
    """
    try:
        return msgspec.json.decode(data, type=Thread)  # its parts' depth: checked one by one
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
        raise Implausible(f"not an Amp thread: {error}") from None


def _parts(
    path: str, raws: list[msgspec.Raw], schema: type[Part], issues: list[LineIssue]
) -> list[tuple[int, Part]]:
    decoder = msgspec.json.Decoder(schema)
    parts = []
    for index, raw in enumerate(raws, start=1):
        try:
            check_depth(raw, AROUND_PART)
            parts.append((index, decoder.decode(raw)))
        except Implausible as error:
            issues.append(LineIssue(path, index, str(error)))
        except msgspec.ValidationError as error:
            issues.append(LineIssue(path, index, f"{IMPLAUSIBLE_USAGE}: {error}"))
    return parts


def messages(path: str, thread: Thread, issues: list[LineIssue]) -> list[tuple[int, ThreadMessage]]:
    """(1-based index, message) of each readable message; the others go to `issues`."""
    return _parts(path, thread.messages, ThreadMessage, issues)


def ledger(path: str, thread: Thread, issues: list[LineIssue]) -> list[tuple[int, Ledger]]:
    """(1-based index, row) of each readable ledger row; the others go to `issues`."""
    events = thread.usageLedger.events if thread.usageLedger else []
    return _parts(path, events, Ledger, issues)


def activity(found: list[tuple[int, ThreadMessage]], session: str, project: str) -> Activity:
    """The tool calls the thread's messages asked for, and their outcomes."""
    calls, results = [], []
    for _, message in found:
        at = epoch(message.usage.timestamp) if message.usage else None
        key = f"amp:{session}:{message.messageId}" if message.messageId is not None else ""
        for block in message.content if isinstance(message.content, list) else ():
            if block.type == "tool_use" and block.id:
                calls.append(
                    ToolCall(block.id, block.name or "(unnamed)", key, session, project, at)
                )
            elif block.type == "tool_result" and (block.toolUseID or block.tool_use_id):
                status = block.run.get("status") if isinstance(block.run, dict) else None
                failed = bool(block.is_error) or status in ("error", "failed")
                error = f"tool {status or 'failed'}"[:EXCERPT] if failed else None
                results.append(
                    ToolResult(block.toolUseID or block.tool_use_id or "", session, at, error)
                )
    return Activity(calls=tuple(calls), results=tuple(results))
