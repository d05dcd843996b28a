"""Provides `read_body`: a request body (Anthropic Messages, OpenAI Chat or Responses) as the
prompt's blocks in cache order, and what else the body says (`Sent`).

The one walker of a decoded request body, whether a request log or a prompt file (lint) holds
it, and of claude-trace bodies read as text (their sized and counted blocks come from the raw
bytes, `anthropic_api.blocks_from_raw`: the same blocks, built faster). Under `Prompts.TEXT`
each block also says where it sits in the request (`system[0]`, `messages[3].content[0]`) and
what the model reads of it (what lint checks).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import msgspec

from sniff.ingest.prompt_blocks import make_block
from sniff.ingest.providers.anthropic import API as ANTHROPIC
from sniff.ingest.providers.anthropic import as_list
from sniff.ingest.providers.openai import CHAT, RESPONSES, SYSTEM_ROLES
from sniff.ingest.record import Prompts
from sniff.model import Block, Sent

ANSWERS = frozenset({"function_call", "reasoning"})
"""The Responses input items without a role that the model gave."""
PARAMS = (
    "tool_choice",
    "thinking",
    "reasoning",
    "prompt_cache_key",
    "parallel_tool_calls",
    "service_tier",
    "speed",
)


Text = str | Callable[[], str]
"""A block's text, or how to write it (JSON is written only when the text is read)."""
Make = Callable[[str, str, str, Text, Any], Block]
"""Makes a block of (path, kind, role, text, content): see `maker`."""


def read_body(
    body: dict[str, Any],
    prompts: Prompts = Prompts.TEXT,
    api: str | None = None,
    label: str | None = None,
) -> tuple[tuple[Block, ...], Sent]:
    """A request body's blocks, read as `prompts` asks, and what else it says.

    Args:
        api: the API the call was made to, where its log tells (default: told by the body's
            shape).
        label: the call's id in its log.
    """
    api = api or detect_api(body, None)
    make = maker(prompts)
    if api == RESPONSES:
        blocks = _responses_blocks(body, make)
    elif api == CHAT and "system" not in body:
        blocks = _chat_blocks(body, make)
    else:
        api, blocks = ANTHROPIC, _anthropic_blocks(body, make)
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


def maker(prompts: Prompts = Prompts.TEXT) -> Make:
    """How to make a block of some content (`prompt_blocks.make_block`) when reading as
    `prompts` asks: under `Prompts.TEXT`, with its text and place."""
    counted, with_text = prompts == Prompts.COUNTED, prompts == Prompts.TEXT

    def make(path: str, kind: str, role: str, text: Text, content: Any) -> Block:
        block = make_block(kind, role, content, counted)
        if not with_text:
            return block
        return msgspec.structs.replace(block, text=text() if callable(text) else text, path=path)

    return make


def _anthropic_blocks(body: dict[str, Any], make: Make) -> list[Block]:
    blocks = _tools(body, make)
    system = body.get("system")
    if isinstance(system, str):
        blocks.append(make("system", "text", "system", system, _typed("text", system)))
    for index, part in enumerate(as_list(system)):
        blocks.append(_part(f"system[{index}]", "system", part, make))
    blocks.extend(_messages(body.get("messages"), "messages", make))
    return blocks


def _chat_blocks(body: dict[str, Any], make: Make) -> list[Block]:
    blocks = _tools(body, make)
    blocks.extend(_messages(body.get("messages"), "messages", make))
    return blocks


def _responses_blocks(body: dict[str, Any], make: Make) -> list[Block]:
    blocks: list[Block] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str):
        blocks.append(
            make("instructions", "text", "system", instructions, _typed("input_text", instructions))
        )
    blocks.extend(_tools(body, make))
    items = body.get("input")
    if isinstance(items, str):
        blocks.append(make("input", "text", "user", items, _typed("input_text", items)))
    else:
        blocks.extend(_messages(items, "input", make))
    return blocks


def _messages(messages: Any, name: str, make: Make) -> Iterator[Block]:
    for index, message in enumerate(as_list(messages)):
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        role = str(message.get("role") or ("assistant" if kind in ANSWERS else "user"))
        role = "system" if role in SYSTEM_ROLES else role
        content = message.get("content", message)
        if role == "tool" or message.get("tool_calls"):
            yield _chat_tool_block(f"{name}[{index}]", role, message, make)
        elif isinstance(content, str):
            yield make(f"{name}[{index}]", "text", role, content, _typed("text", content))
        elif isinstance(content, list):
            for part_index, part in enumerate(content):
                yield _part(f"{name}[{index}].content[{part_index}]", role, part, make)
        else:
            yield _part(f"{name}[{index}]", role, message, make)


def _chat_tool_block(path: str, role: str, message: dict[str, Any], make: Make) -> Block:
    """An OpenAI Chat tool call (assistant) or tool result (`tool` role): history, written once
    and repeated as it was, like Anthropic's tool_use and tool_result blocks; their call ids
    and outputs are no volatile prefix content."""
    content = message.get("content")
    if role == "tool":
        text = content if isinstance(content, str) else partial(json.dumps, content)
        return make(path, "tool_result", role, text, message)
    return make(path, "tool_use", role, partial(json.dumps, message), message)


def _part(path: str, role: str, part: Any, make: Make) -> Block:
    if isinstance(part, dict):
        kind = str(part.get("type") or "text")
        text = part.get("text")
        return make(path, kind, role, text if isinstance(text, str) else partial(_json, part), part)
    return make(path, "text", role, str(part), part)


def _tools(body: dict[str, Any], make: Make) -> list[Block]:
    """The tool definitions; each one's text is its JSON as written (lint compares the key
    order)."""
    tools = enumerate(as_list(body.get("tools")))
    return [make(f"tools[{i}]", "tool", "tools", partial(_json, tool), tool) for i, tool in tools]


def _json(content: Any) -> str:
    """A block's JSON as written, but for its cache-control mark."""
    if isinstance(content, dict):
        content = {k: v for k, v in content.items() if k != "cache_control"}
    return json.dumps(content)


def _typed(kind: str, text: str) -> dict[str, str]:
    """A string the body gives for a block, as the block it stands for."""
    return {"type": kind, "text": text}
