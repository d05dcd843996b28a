"""Provides the Anthropic Messages API shapes: a raw request body as blocks, usage, SSE.

Anthropic reports `input_tokens` *excluding* cache reads and writes, so its usage maps onto
sniff's disjoint classes as is; the 1-hour share of writes comes from `cache_creation`.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, NamedTuple, TypeVar

import msgspec
import orjson

from sniff.ingest.plausible import check_depth, count, usage_object, usage_part
from sniff.ingest.prompt_blocks import make_block
from sniff.ingest.record import NO_TOKENS, Tokens
from sniff.model import Block
from sniff.redact_secrets import redact_secrets

API = "anthropic-messages"


class _RawMessage(msgspec.Struct):
    role: str = "user"
    content: msgspec.Raw = msgspec.Raw()


Item = TypeVar("Item")
_RAW_LIST = msgspec.json.Decoder(list[msgspec.Raw])
_RAW_MESSAGES = msgspec.json.Decoder(list[_RawMessage])
_STRING = msgspec.json.Decoder(str)
_blocks_seen: dict[tuple[str, bytes, bool], Block] = {}
_BLOCKS_SEEN_MAX = 200_000


def blocks_from_raw(
    tools: bytes, system: bytes, messages: bytes, count_tokens: bool = True, within: int = 0
) -> tuple[Block, ...]:
    """`blocks` of a body's raw JSON parts, each block built once per process.

    A conversation resends its whole history with every call, so most blocks of a log were
    already seen, byte for byte: they are looked up by their raw JSON instead of decoded,
    canonicalized and hashed again.

    Args:
        within: the arrays and objects around the body in its log line (its nesting is
            bounded: `plausible.MAX_DEPTH`).

    Raises:
        Implausible: a block nests its line too deep to read.
    """
    if len(_blocks_seen) > _BLOCKS_SEEN_MAX:
        _blocks_seen.clear()
    found: list[Block] = []
    around = within + 2  # the body and the list of tools or system blocks
    if tools.strip() not in (b"", b"null"):
        found.extend(
            _raw_block(raw, "tool", "tools", count_tokens, around)
            for raw in _items(_RAW_LIST, tools)
        )
    if system.lstrip().startswith(b'"'):
        found.append(_text_block(_STRING.decode(system), "system", count_tokens))
    elif system.strip() not in (b"", b"null"):
        found.extend(
            _raw_block(raw, None, "system", count_tokens, around)
            for raw in _items(_RAW_LIST, system)
        )
    if messages.strip() not in (b"", b"null"):
        for message in _items(_RAW_MESSAGES, messages):
            found.extend(_message_blocks(message, count_tokens, within))
    return tuple(found)


def _items(decoder: msgspec.json.Decoder[list[Item]], raw: bytes) -> list[Item]:
    """The items of a body's list (tools, system blocks, messages, a message's content); none
    when it is no list of them: a part of unexpected shape holds no blocks."""
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError:
        return []


def _message_blocks(message: _RawMessage, count_tokens: bool, within: int) -> list[Block]:
    content = bytes(message.content)
    if content.lstrip().startswith(b'"'):
        return [_text_block(_STRING.decode(content), message.role, count_tokens)]
    if content.strip() in (b"", b"null"):
        return []
    around = within + 4  # the body, its messages, the message and its content
    return [
        _raw_block(raw, None, message.role, count_tokens, around)
        for raw in _items(_RAW_LIST, content)
    ]


class Message(NamedTuple):
    """One message of a request body, as far as following a conversation needs."""

    role: str
    kinds: tuple[str, ...]
    """Its blocks' kinds: `text`, `tool_result`, `thinking`, ..."""
    digest: bytes
    """A hash of the conversation up to and including this message: its role and blocks'
    content hashes after those of every message before it (cache-control marks ignored)."""


def conversation(messages: bytes, within: int = 0) -> list[Message]:
    """The messages of a body's raw `messages`, each with the digest of the conversation so far.

    Two requests whose digests agree at message n sent the same first n messages, whatever
    cache-control marks they carried: Claude Code moves its breakpoints every turn.

    Raises:
        Implausible: a block nests its line too deep to read (see `blocks_from_raw`).
    """
    found: list[Message] = []
    if messages.strip() in (b"", b"null"):
        return found
    digest = b""
    for message in _items(_RAW_MESSAGES, messages):
        blocks = _message_blocks(message, False, within)
        hasher = hashlib.blake2b(digest, digest_size=16)
        hasher.update(message.role.encode())
        for block in blocks:
            hasher.update(block.content_hash.encode())
        digest = hasher.digest()
        found.append(Message(message.role, tuple(block.kind for block in blocks), digest))
    return found


def message_text(messages: bytes, index: int) -> str:
    """The text of one message of a body's raw `messages` (its text blocks joined)."""
    decoded = _items(_RAW_MESSAGES, messages)
    content = msgspec.json.decode(bytes(decoded[index].content)) if decoded else None
    if isinstance(content, str):
        return content
    return "\n".join(
        part["text"]
        for part in as_list(content)
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    )


def _raw_block(
    raw: msgspec.Raw, kind: str | None, role: str, count_tokens: bool, within: int
) -> Block:
    key = (role, bytes(raw), count_tokens)
    block = _blocks_seen.get(key)
    if block is None:
        check_depth(key[1], within)  # decoding, canonical JSON and hashing all recurse
        part = msgspec.json.decode(key[1])
        block = _blocks_seen[key] = make_block(kind or _kind(part), role, part, count_tokens)
    return block


def _text_block(text: str, role: str, count_tokens: bool) -> Block:
    return make_block("text", role, {"type": "text", "text": text}, count_tokens)


def tokens(usage: Any) -> tuple[Tokens, bool]:
    """Usage → (input, read, 5m write, 1h write, output, reasoning), and whether TTL was assumed.

    Raises:
        Implausible: a count is present but no plausible count (`plausible.count`).
    """
    usage = usage_object(usage)
    if usage is None:
        return NO_TOKENS, False
    written = count(usage.get("cache_creation_input_tokens"))
    if usage.get("cache_creation") is not None:
        split = usage_part(usage, "cache_creation")
        one_hour = count(split.get("ephemeral_1h_input_tokens"))
        if "cache_creation_input_tokens" not in usage:
            written = one_hour + count(split.get("ephemeral_5m_input_tokens"))
        one_hour = min(one_hour, written)
        assumed = False
    else:
        one_hour, assumed = 0, written > 0
    reasoning = count(usage_part(usage, "output_tokens_details").get("thinking_tokens"))
    return Tokens(
        count(usage.get("input_tokens")),
        count(usage.get("cache_read_input_tokens")),
        written - one_hour,
        one_hour,
        count(usage.get("output_tokens")),
        reasoning,
    ), assumed


def from_sse(text: str) -> tuple[dict[str, Any], str | None]:
    """A streamed response's message (id, model, usage) and the stream's error, if any.

    Usage is `message_start`'s, updated by the last `message_delta` (whose output count is the
    final, cumulative one; newer streams repeat input and cache counts there too).
    """
    message: dict[str, Any] = {}
    usage: dict[str, Any] = {}
    start = sse_event(text, "message_start")
    if start is not None and isinstance(start.get("message"), dict):
        message = dict(start["message"])
        usage.update(usage_object(message.get("usage")) or {})
    delta = sse_event(text, "message_delta", last=True)
    if delta is not None:
        grown = usage_object(delta.get("usage")) or {}
        usage.update({k: v for k, v in grown.items() if v is not None})
    failure = sse_event(text, "error")
    if usage:
        message["usage"] = usage
    return message, error_text(failure) if failure is not None else None


STREAMED_THINKING = re.compile(r'"content_block"\s*:\s*\{\s*"type"\s*:\s*"(?:redacted_)?thinking"')


def streams_thinking(text: str) -> bool:
    """Whether an SSE response starts a thinking block (found without parsing the stream)."""
    return STREAMED_THINKING.search(text) is not None


def sse_event(text: str, name: str, last: bool = False) -> dict[str, Any] | None:
    """The JSON payload of the first (or last) SSE event called `name`.

    Found by its `event:` line where the stream has them (a string search, not a parse of the
    whole stream, which is mostly content deltas); else by scanning the `data:` lines.
    """
    marker = f"event: {name}"
    at = text.rfind(marker) if last else text.find(marker)
    if at >= 0:
        begin = text.find("data:", at)
        if begin >= 0:
            end = text.find("\n", begin)
            found = _json_object(text[begin + 5 : end if end >= 0 else len(text)])
            if found is not None:
                return found
    matches = sse_events(text, (f'"{name}"',))
    matches = [event for event in matches if event.get("type") == name]
    if not matches:
        return None
    return matches[-1] if last else matches[0]


def sse_events(text: str, wanted: tuple[str, ...]) -> list[dict[str, Any]]:
    """The JSON `data:` payloads of an SSE text that mention one of `wanted`, in order."""
    if not any(word in text for word in wanted):
        return []
    events: list[dict[str, Any]] = []
    for line in text.splitlines():
        if line.startswith("data:") and any(word in line for word in wanted):
            found = _json_object(line[5:])
            if found is not None:
                events.append(found)
    return events


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def error_text(body: Any) -> str:
    """A short reason from an API error body (a proxy may quote the key it refused: redacted)."""
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):
            kind, message = inner.get("type"), inner.get("message")
            reason = ": ".join(str(part) for part in (kind, message) if part)
            return redact_secrets(reason) if reason else "error"
        if isinstance(inner, str):
            return redact_secrets(inner)
    return "error"


def _kind(part: Any) -> str:
    if isinstance(part, dict):
        kind = part.get("type")
        if isinstance(kind, str):
            return kind
    return "text"


def as_list(value: Any) -> list[Any]:
    """`value` if it is a list, else an empty one (a body's field of the wrong type)."""
    return value if isinstance(value, list) else []


SESSION_IN_USER_ID = re.compile(r"session_([0-9A-Fa-f]{8}-[0-9A-Fa-f-]{27})")
"""Claude Code's `metadata.user_id`: `user_<hash>_account_<uuid>_session_<uuid>`."""


def anthropic_session(user_id: str) -> str | None:
    """The session in Claude Code's `user_id`: after `session_`, or, where a newer version
    sends JSON there, its `session_id`."""
    found = SESSION_IN_USER_ID.search(user_id)
    if found:
        return found.group(1)
    if user_id.startswith("{"):
        try:
            parsed = orjson.loads(user_id)
        except orjson.JSONDecodeError:
            return None
        value = parsed.get("session_id") if isinstance(parsed, dict) else None
        return value if isinstance(value, str) and value else None
    return None
