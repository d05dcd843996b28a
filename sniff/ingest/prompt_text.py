"""Provides `read_body`: a request body as blocks that keep their text and place, and `Sent`.

What `Prompts.TEXT` reads, for checking a prompt's text (lint): each block says where it sits
in the request (`system[0]`, `messages[3].content[0]`) and what the model reads of it, and the
body's settings that change the cached prefix come with it. The API is told from the body's
shape alone, so that a body reads alike in a log and in a prompt file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import msgspec

from sniff.ingest.anthropic_api import API as ANTHROPIC
from sniff.ingest.openai_api import CHAT, RESPONSES
from sniff.ingest.prompt_blocks import cache_mark, make_block
from sniff.model import Block, Sent

PARAMS = (
    "tool_choice",
    "thinking",
    "reasoning",
    "prompt_cache_key",
    "parallel_tool_calls",
    "service_tier",
    "speed",
)


def read_body(body: dict[str, Any], label: str | None = None) -> tuple[tuple[Block, ...], Sent]:
    """A request body's blocks, in cache order, and what else it says (`label`: the call's
    id in its log)."""
    api = detect_api(body, None)
    if api == RESPONSES:
        blocks = _responses_blocks(body)
    elif api == CHAT and "system" not in body:
        blocks = _chat_blocks(body)
    else:
        api, blocks = ANTHROPIC, _anthropic_blocks(body)
    model = body.get("model") if isinstance(body.get("model"), str) else None
    params = {name: body[name] for name in PARAMS if name in body}
    return tuple(blocks), Sent(api, model, params, label)


def detect_api(request: dict[str, Any], response: Any) -> str:
    """Which API a call was made to, from its bodies."""
    body = response if isinstance(response, dict) else {}
    kind = body.get("object") or body.get("type")
    usage = body.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    if kind == "response" or "input" in request or "instructions" in request:
        return RESPONSES
    if kind in ("chat.completion", "chat.completion.chunk") or "prompt_tokens" in usage:
        return CHAT
    if kind == "message" or "cache_read_input_tokens" in usage or "system" in request:
        return ANTHROPIC
    if isinstance(response, str):
        if "message_start" in response:
            return ANTHROPIC
        if "response.completed" in response or "response.created" in response:
            return RESPONSES
        return CHAT
    return ANTHROPIC if "anthropic" in str(request.get("model", "")) else CHAT


def text_block(path: str, kind: str, role: str, text: str, raw: Any, mark: str | None) -> Block:
    """A block of `raw` content (sized) with the text and place lint reads."""
    sized = make_block(kind, role, raw, count_tokens=False)
    return msgspec.structs.replace(sized, text=text, path=path, cache_control=mark)


def _anthropic_blocks(body: dict[str, Any]) -> list[Block]:
    blocks = [_tool_block(f"tools[{i}]", tool) for i, tool in enumerate(_list(body.get("tools")))]
    system = body.get("system")
    if isinstance(system, str):
        blocks.append(text_block("system", "text", "system", system, system, None))
    for index, part in enumerate(_list(system)):
        blocks.append(_part(f"system[{index}]", "system", part))
    blocks.extend(_messages(body.get("messages"), "messages"))
    return blocks


def _chat_blocks(body: dict[str, Any]) -> list[Block]:
    blocks = [_tool_block(f"tools[{i}]", tool) for i, tool in enumerate(_list(body.get("tools")))]
    blocks.extend(_messages(body.get("messages"), "messages"))
    return blocks


def _responses_blocks(body: dict[str, Any]) -> list[Block]:
    blocks: list[Block] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        blocks.append(
            text_block("instructions", "text", "system", instructions, instructions, None)
        )
    blocks.extend(
        _tool_block(f"tools[{i}]", tool) for i, tool in enumerate(_list(body.get("tools")))
    )
    items = body.get("input")
    if isinstance(items, str):
        blocks.append(text_block("input", "text", "user", items, items, None))
    else:
        blocks.extend(_messages(items, "input"))
    return blocks


def _messages(messages: Any, name: str) -> Iterator[Block]:
    for index, message in enumerate(_list(messages)):
        if not isinstance(message, dict):
            continue
        role = str(message.get("role") or ("assistant" if "call_id" in message else "user"))
        role = "system" if role in ("system", "developer") else role
        content = message.get("content", message)
        if role == "tool" or message.get("tool_calls"):
            yield _chat_tool_block(f"{name}[{index}]", role, message)
        elif isinstance(content, str):
            yield text_block(f"{name}[{index}]", "text", role, content, content, None)
        elif isinstance(content, list):
            for part_index, part in enumerate(content):
                yield _part(f"{name}[{index}].content[{part_index}]", role, part)
        else:
            yield _part(f"{name}[{index}]", role, message)


def _chat_tool_block(path: str, role: str, message: dict[str, Any]) -> Block:
    """An OpenAI Chat tool call (assistant) or tool result (`tool` role): history, written once
    and repeated as it was, like Anthropic's tool_use and tool_result blocks; their call ids
    and outputs are no volatile prefix content."""
    content = message.get("content")
    if role == "tool":
        text = content if isinstance(content, str) else json.dumps(content)
        return text_block(path, "tool_result", role, text, message, None)
    return text_block(path, "tool_use", role, json.dumps(message), message, None)


def _part(path: str, role: str, part: Any) -> Block:
    if isinstance(part, dict):
        kind = str(part.get("type") or "text")
        text = part.get("text")
        if not isinstance(text, str):
            text = json.dumps({k: v for k, v in part.items() if k != "cache_control"})
        return text_block(path, kind, role, text, part, cache_mark(part.get("cache_control")))
    return text_block(path, "text", role, str(part), part, None)


def _tool_block(path: str, tool: Any) -> Block:
    """A tool definition; its text is its JSON as written (lint compares the key order)."""
    content = (
        {k: v for k, v in tool.items() if k != "cache_control"} if isinstance(tool, dict) else tool
    )
    mark = cache_mark(tool.get("cache_control")) if isinstance(tool, dict) else None
    return text_block(path, "tool", "tools", json.dumps(content), tool, mark)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
