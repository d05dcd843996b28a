"""Provides the parser of sniff's generic request log: one API call a line, from any proxy.

Each line is a JSON object: `request` (the body sent), `response` (the body received, or the
raw SSE text of a stream; absent or null: no response), and optionally `status`, `started_at`,
`first_token_at`, `ended_at` (ISO-8601 or epoch seconds), `session`, `project`, `id`, `api`
(`anthropic-messages`, `openai-chat`, `openai-responses`) and `provider`. The API is detected
from the bodies when `api` is absent. docs/request-log.md documents the format with an example.

`sniff proxy` writes the same lines, with what it measured as the bytes passed:
`first_visible_at` (the first text after any thinking), `outcome` (`complete`, or `cancelled`
by the client, `broken` upstream: a failed call), `client` (the User-Agent, which names the
agent) and `proxy` (what marks a line as recorded by it: its calls are of source `proxy`, their
times exact, and a call also in a transcript is counted once, `ingest.telemetry`).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import msgspec

from sniff.ingest.files.lines import decode_lines
from sniff.ingest.plausible import Implausible, check_date, decoded
from sniff.ingest.prompt_text import detect_api, read_body
from sniff.ingest.providers import anthropic as anthropic_api
from sniff.ingest.providers import openai as openai_api
from sniff.ingest.providers.cache_diagnosis import diagnosis_of
from sniff.ingest.record import NO_TOKENS, TOP_LEVEL, FileResult, Prompts, Response, Tokens, epoch
from sniff.model import UNDATED, Agent, Harness, LineIssue

SOURCE = "request-log"
APIS = (anthropic_api.API, openai_api.CHAT, openai_api.RESPONSES)
AROUND_BODY = 1
"""The objects around a request's or response's body in a line: the line's own."""
PROVIDERS = {
    anthropic_api.API: "anthropic",
    openai_api.CHAT: "openai",
    openai_api.RESPONSES: "openai",
}


class LoggedCall(msgspec.Struct):
    request: msgspec.Raw = msgspec.Raw()
    """Raw JSON, empty when absent (msgspec keeps raw values out of unions)."""
    response: msgspec.Raw = msgspec.Raw()
    """Raw JSON too: both are decoded once their nesting is checked."""
    status: int | None = None
    started_at: str | float | None = None
    first_token_at: str | float | None = None
    ended_at: str | float | None = None
    session: str | None = None
    project: str | None = None
    id: str | None = None
    api: str | None = None
    provider: str | None = None
    first_visible_at: str | float | None = None
    outcome: str | None = None
    client: str | None = None
    proxy: msgspec.Raw = msgspec.Raw()
    """Present (an object) on lines `sniff proxy` wrote."""


PROXY = "proxy"
"""The source of the calls `sniff proxy` recorded."""
OUTCOMES = {"cancelled": "cancelled by the client", "broken": "the upstream broke the stream"}
HARNESSES = (("claude-cli", Harness.CLAUDE_CODE), ("claude-code", Harness.CLAUDE_CODE),
             ("codex", Harness.CODEX), ("gemini-cli", Harness.GEMINI_CLI))  # fmt: skip
"""A User-Agent's start (lower-cased) → the agent whose call it is."""


DECODER = msgspec.json.Decoder(LoggedCall)


def parse_data(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Read one request log; `with_prompts` also turns request bodies into blocks."""
    issues: list[LineIssue] = []
    responses: list[Response] = []
    for number, call in decode_lines(path, data, LoggedCall, DECODER, issues):
        if not bytes(call.request).strip():
            issues.append(LineIssue(path, number, "no `request` body: not a logged API call"))
            continue
        try:
            response = _call(path, number, call, project_hint, with_prompts)
        except Implausible as error:  # the line is skipped, as if it were not there
            issues.append(LineIssue(path, number, str(error)))
            continue
        responses.append(response)
        if any(isinstance(at, str) and at and epoch(at) is None for at in _times(call)):
            issues.append(LineIssue(path, number, UNDATED, True))
    return FileResult(responses, issues, 0, SOURCE)


def _times(call: LoggedCall) -> tuple[str | float | None, ...]:
    return (call.started_at, call.first_token_at, call.ended_at, call.first_visible_at)


def _harness(client: str | None) -> Harness | None:
    """The agent a proxied call's User-Agent names; None: an API client of no known agent."""
    named = (client or "").lower()
    return next((harness for start, harness in HARNESSES if named.startswith(start)), None)


def _call(
    path: str, number: int, call: LoggedCall, project_hint: str, with_prompts: Prompts
) -> Response:
    for timestamp in _times(call):
        check_date(timestamp)
    body_sent = decoded(call.request, AROUND_BODY)
    request = body_sent if isinstance(body_sent, dict) else {}
    logged = decoded(call.response, AROUND_BODY)
    api = call.api if call.api in APIS else detect_api(request, logged)
    body, error = _response_body(api, logged, call.status)
    tokens, assumed = _tokens(api, body) if error is None else (NO_TOKENS, False)
    model = body.get("model") or request.get("model") or "(unknown)"
    key = call.id or body.get("id") or f"{path}:{number}"
    label = call.id or (logged.get("id") if isinstance(logged, dict) else None)
    blocks, sent = (
        read_body(request, with_prompts, api, str(label) if label else None)
        if with_prompts != Prompts.NONE and isinstance(body_sent, dict)
        else ((), None)
    )
    proxied = bytes(call.proxy).strip()[:1] == b"{"
    return Response(
        PROXY if proxied else SOURCE,
        str(key),
        TOP_LEVEL,
        tokens,
        assumed,
        str(model),
        call.provider or PROVIDERS[api],
        call.session or PurePath(path).stem,
        Agent.MAIN,
        Agent.MAIN.value,
        call.project or project_hint,
        epoch(call.first_token_at),
        epoch(call.ended_at) or epoch(call.started_at),
        epoch(call.started_at),
        None,
        path,
        number,
        blocks,
        error or OUTCOMES.get(call.outcome or ""),
        sent=sent if with_prompts == Prompts.TEXT else None,
        cache_diagnosis=diagnosis_of(body),
        harness=_harness(call.client) if proxied else None,
        visible_at=epoch(call.first_visible_at),
    )


def _response_body(
    api: str, response: Any, status_code: int | None
) -> tuple[dict[str, Any], str | None]:
    """The response as a JSON body (a stream reassembled), and why the call failed, if it did."""
    status = status_code or 0
    if response is None:
        return {}, f"HTTP {status}" if status >= 400 else "no response"
    if status >= 400:
        return {}, f"HTTP {status}: {anthropic_api.error_text(response)}"
    if isinstance(response, dict):
        if "error" in response and "usage" not in response:
            return {}, anthropic_api.error_text(response)
        return response, None
    if isinstance(response, str):
        if api == anthropic_api.API:
            message, error = anthropic_api.from_sse(response)
            return message, None if message.get("usage") else error
        if api == openai_api.RESPONSES:
            return openai_api.responses_from_sse(response), None
        return openai_api.chat_from_sse(response), None
    return {}, "response is neither a JSON object nor SSE text"


def _tokens(api: str, body: dict[str, Any]) -> tuple[Tokens, bool]:
    usage = body.get("usage")
    if api == anthropic_api.API:
        return anthropic_api.tokens(usage)
    if api == openai_api.RESPONSES:
        return openai_api.responses_tokens(usage), False
    return openai_api.chat_tokens(usage), False
