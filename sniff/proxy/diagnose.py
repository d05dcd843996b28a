"""Provides `Diagnosis`: under `--diagnose`, the fields that ask the provider to explain a
cache miss, added to each request, naming the previous response of the same conversation.

Anthropic (`/v1/messages`): `cache-diagnosis-2026-04-07` joins the `anthropic-beta` header, and
the body gets `diagnostics.previous_message_id`. OpenAI (`/v1/responses`): the body gets
`prompt_cache_options.comparison_response_id`. Nothing else is touched: another path, or a body
that is not a JSON object, passes as it came. The first call of a conversation has no previous
response: it gets the header alone.

Why a conversation is the session (Claude Code's session id, Codex's `session_id` header or
`prompt_cache_key`), else the first user message: that is what stays the same from one turn to
the next. The proxy remembers the last `MEMORY` conversations' latest response ids, as it saw
them: one started before the proxy has no previous response on its first call through it.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

import orjson

from sniff.proxy.record import Call, session_of

BETA = "cache-diagnosis-2026-04-07"
MEMORY = 10_000
"""Conversations remembered; the least recently seen is forgotten first."""
ANTHROPIC_PATH, RESPONSES_PATH = "/v1/messages", "/v1/responses"


class Diagnosis:
    """The previous response id of each conversation the proxy has passed."""

    def __init__(self) -> None:
        self._latest: OrderedDict[str, str] = OrderedDict()

    def apply(
        self, call: Call, body: bytes, headers: list[tuple[str, str]]
    ) -> tuple[bytes, list[tuple[str, str]], str | None]:
        """The body and headers to send for `call`, and its conversation's key (None: not a
        call this changes)."""
        path = call.path.rstrip("/")
        if path not in (ANTHROPIC_PATH, RESPONSES_PATH):
            return body, headers, None
        try:
            request = orjson.loads(body)
        except orjson.JSONDecodeError:
            return body, headers, None
        if not isinstance(request, dict):
            return body, headers, None
        key = conversation_key(call, request)
        previous = self._latest.get(key)
        if path == ANTHROPIC_PATH:
            headers = with_beta(headers, BETA)
            if previous is not None:
                request["diagnostics"] = {"previous_message_id": previous}
        elif previous is not None:
            request["prompt_cache_options"] = {"comparison_response_id": previous}
        if previous is None:
            return body, headers, key
        return orjson.dumps(request), headers, key

    def remember(self, key: str, response_id: str) -> None:
        """`response_id` is now the latest of conversation `key`."""
        self._latest[key] = response_id
        self._latest.move_to_end(key)
        while len(self._latest) > MEMORY:
            self._latest.popitem(last=False)


def conversation_key(call: Call, request: dict[str, Any]) -> str:
    """The conversation a request belongs to: its session, else its first user message."""
    session = session_of(call, request)
    if session is not None:
        return f"{call.route.provider} session {session}"
    first = _first_user_message(request)
    digest = hashlib.sha256(orjson.dumps(first, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"{call.route.provider} first {digest[:32]}"


def _first_user_message(request: dict[str, Any]) -> Any:
    """The content of the first user message: Anthropic's and Chat's `messages`, Responses'
    `input` (a string is the user's message)."""
    messages = request.get("messages", request.get("input"))
    if isinstance(messages, str):
        return messages
    if isinstance(messages, list):
        for message in messages:
            if isinstance(message, dict) and message.get("role") == "user":
                return message.get("content")
    return None


def with_beta(headers: list[tuple[str, str]], beta: str) -> list[tuple[str, str]]:
    """`headers` with `beta` among the `anthropic-beta` values (comma-joined, once)."""
    present = [value for name, value in headers if name.lower() == "anthropic-beta"]
    values = [part.strip() for value in present for part in value.split(",") if part.strip()]
    if beta in values:
        return headers
    kept = [(name, value) for name, value in headers if name.lower() != "anthropic-beta"]
    return [*kept, ("anthropic-beta", ",".join([*values, beta]))]
