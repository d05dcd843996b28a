"""Provides `make_block`: one piece of a prompt as a `Block`, with its content hash and tokens.

The hash is over the block's canonical JSON (sorted keys) without its cache-control mark: moving
a breakpoint does not change what the model reads, so it must not change the block's identity.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

from sniff import tokens
from sniff.model import Block

CACHE_MARKS = {"5m": "5m", "1h": "1h"}


def make_block(kind: str, role: str, content: Any, count_tokens: bool = True) -> Block:
    """A block of `kind` (tool, system, text, tool_use, ...) said by `role`.

    Args:
        content: the block as the request body holds it (a dict, or a plain string).
        count_tokens: count its tokens with the tokenizer (slow for large logs); when False,
            its size is estimated from its length (a token per four bytes).
    """
    mark: str | None = None
    if isinstance(content, dict) and "cache_control" in content:
        mark = cache_mark(content.get("cache_control"))
        content = {key: value for key, value in content.items() if key != "cache_control"}
    canonical = orjson.dumps(content, option=orjson.OPT_SORT_KEYS)
    digest = hashlib.blake2b(canonical, digest_size=16).hexdigest()
    if count_tokens:
        counted = tokens.count(_text(content, canonical), key=digest)
    else:
        counted = (len(canonical) + 3) // 4
    return Block(kind=kind, role=role, content_hash=digest, tokens=counted, cache_control=mark)


def cache_mark(control: Any) -> str | None:
    """Anthropic's `cache_control` → `5m` or `1h` (None when there is no breakpoint)."""
    if not isinstance(control, dict) or control.get("type") != "ephemeral":
        return None
    ttl = control.get("ttl")
    return CACHE_MARKS.get(ttl, "5m") if isinstance(ttl, str) else "5m"


def _text(content: Any, canonical: bytes) -> str:
    """What the model reads of a block: its text where it has one, else its JSON."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        text = content.get("text")
        if isinstance(text, str) and len(content) <= 2:
            return text
    return canonical.decode()
