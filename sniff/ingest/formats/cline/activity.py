"""Provides the tool calls, their outcomes and the user requests of a Cline SDK messages file.

What counts, each once:
- A tool call: a `tool_use` block of an assistant message, by its id (a fork's copy is the same
  call: the merge keeps one), asked by that message's call.
- Its outcome: the `tool_result` block answering it. It failed when it says `is_error`, or when
  its output is Cline's own result record saying `"success": false` (its `error` the text).
- A user request: a user message of the lead's file with text and no tool result, unless the
  text is one Cline writes itself (`INJECTED`). A sub-agent's or teammate's user messages come
  from the lead, so none of them is a user request.
"""

from __future__ import annotations

import re
import sys

import orjson

from sniff.ingest.activity import EXCERPT
from sniff.ingest.formats.cline.wire import Block, Message
from sniff.ingest.plausible import epoch
from sniff.model import Activity, AgentEvent, ToolCall, ToolResult

INJECTED: tuple[tuple[str, str], ...] = (
    ("Context summary:", "the summary agentic compaction puts in place of the history"),
    ("<SYSTEM_NOTICE", "a notice Cline adds to a turn (basic compaction's)"),
)
"""Texts Cline writes as a user turn, by how they start, and what each is (both seen in the
compaction fixtures of Cline's own repository)."""
HEAD, TAIL = 4096, 512
"""Bytes of a raw output searched for its `success` flag: a record's flag comes last."""
_INJECTED_STARTS = tuple(start for start, _ in INJECTED)
_FAILED = re.compile(rb'success\\?"\s*:\s*false')
"""Cline's result record saying it failed, in a raw output (which may hold it as a string)."""


def sdk_activity(
    messages: list[tuple[int, Message, str]], session_id: str, project: str, *, lead: bool
) -> Activity:
    """The activity of one file's messages, each with its call's key."""
    calls: dict[str, ToolCall] = {}
    results: dict[str, ToolResult] = {}
    events: list[AgentEvent] = []
    for _, message, key in messages:
        at = epoch(message.ts)
        blocks = message.content if isinstance(message.content, list) else []
        if message.role == "assistant":
            for block in blocks:
                if block.type == "tool_use" and block.id and block.id not in calls:
                    name = sys.intern(block.name) if block.name else "(unnamed)"
                    calls[block.id] = ToolCall(block.id, name, key, session_id, project, at)
            continue
        for block in blocks:
            if block.type == "tool_result" and block.tool_use_id:
                results.setdefault(
                    block.tool_use_id,
                    ToolResult(block.tool_use_id, session_id, at, _failure(block)),
                )
        text = instruction_text(message) if lead else ""
        if text:
            uuid = f"cline:{message.id}" if message.id else ""
            events.append(
                AgentEvent("instruction", session_id, project, at, text[:EXCERPT], None, uuid)
            )
    return Activity(tuple(calls.values()), tuple(results.values()), tuple(events))


def instruction_text(message: Message) -> str:
    """What the user typed in a user message; "" when it holds a tool result, or only text
    Cline wrote."""
    content = message.content
    if isinstance(content, str):
        return _typed(content)
    if not isinstance(content, list) or any(block.type == "tool_result" for block in content):
        return ""
    return "\n".join(filter(None, (_typed(b.text or "") for b in content if b.type == "text")))


def is_instruction(message: Message) -> bool:
    """Whether a message is a user request (`instruction_text`)."""
    return message.role == "user" and bool(instruction_text(message))


def thinks(message: Message) -> bool:
    """Whether an assistant message holds thinking blocks."""
    content = message.content
    return isinstance(content, list) and any(
        block.type in ("thinking", "reasoning") for block in content
    )


def _typed(text: str) -> str:
    text = text.strip()
    return "" if text.startswith(_INJECTED_STARTS) else text


def _failure(block: Block) -> str | None:
    """Why a tool result failed (an excerpt); None when it did not say it failed."""
    raw = bytes(block.content)
    if not block.is_error and not (_FAILED.search(raw[:HEAD]) or _FAILED.search(raw[-TAIL:])):
        return None
    value = _loads(raw)
    if isinstance(value, str) and value.lstrip().startswith("{"):  # a record held as a string
        value = _loads(value) or value
    if isinstance(value, dict):
        value = value.get("error") or value.get("result") or ""
    text = value if isinstance(value, str) else orjson.dumps(value).decode() if value else ""
    return text.strip()[:EXCERPT] or "(no text)"


def _loads(data: bytes | str) -> object:
    try:
        return orjson.loads(data) if data else None
    except orjson.JSONDecodeError:
        return None
