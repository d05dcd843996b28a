"""Provides the share of a response's output tokens that were thinking, estimated from the text
of its blocks: a claude-trace stream's deltas, or a JSON body's content.

Why an estimate: Anthropic reports one output count for thinking, text and tool calls together.
Where the log holds what was generated, the thinking text, the visible text and the tool calls'
input are each counted with sniff's tokenizer (`sniff.tokens`: o200k_base, the closest public
one to Anthropic's, else four bytes a token); the share is thinking's part of their sum, so the
tokenizer's bias mostly cancels. Only responses that hold thinking pay for the count.
Redacted thinking holds no text: then no share is given.
"""

from __future__ import annotations

import json
from typing import Any

from sniff.ingest.providers.anthropic import sse_events

DELTAS = {"thinking_delta": "thinking", "text_delta": "text", "input_json_delta": "partial_json"}
"""Delta type → the field holding its text."""
BLOCKS = {"thinking": "thinking", "text": "text", "tool_use": "input"}
"""Content block type → the field holding what was generated."""


def streamed_share(text: str) -> float | None:
    """Thinking's share of the output of an SSE stream, from its content deltas' text."""
    thinking: list[str] = []
    shown: list[str] = []
    for event in sse_events(text, ("_delta",)):
        delta = event.get("delta")
        if event.get("type") != "content_block_delta" or not isinstance(delta, dict):
            continue
        field = DELTAS.get(str(delta.get("type")))
        piece = delta.get(field) if field else None
        if isinstance(piece, str):
            (thinking if field == "thinking" else shown).append(piece)
    return _share(thinking, shown)


def message_share(content: Any) -> float | None:
    """Thinking's share of the output of a JSON message's content blocks."""
    if not isinstance(content, list):
        return None
    thinking: list[str] = []
    shown: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        value = block.get(BLOCKS.get(str(kind), ""))
        if kind == "tool_use" and value is not None:
            value = json.dumps(value, ensure_ascii=False)
        if isinstance(value, str):
            (thinking if kind == "thinking" else shown).append(value)
    return _share(thinking, shown)


def _share(thinking: list[str], shown: list[str]) -> float | None:
    if not any(thinking):
        return None
    from sniff.tokens import count

    thought = count("".join(thinking))
    total = thought + count("".join(shown))
    return thought / total if total else None
