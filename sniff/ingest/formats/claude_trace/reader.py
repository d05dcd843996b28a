"""Provides the parser of claude-trace logs (`.claude-trace/log-*.jsonl`): one HTTP pair a line.

Each line holds the request Claude Code sent (the full body: tools, system prompt, messages,
with their cache-control marks) and the response (a JSON body, or the raw SSE text with
`body: null`). Only `/v1/messages` calls are requests to a model; other traffic is ignored.
A request without a response, or answered with an error status, is kept as a failed call that
costs nothing.

A log holds whole prompts but no link between calls: a request continues the latest earlier
request of the same model whose messages are a prefix of its own (`link`). The call Claude
Code makes to summarise a conversation when it compacts it is told apart by its prompt.
"""

from __future__ import annotations

import bisect
import re
from pathlib import PurePath
from typing import Any, NamedTuple

import msgspec

from sniff.ingest.files.lines import decode_lines
from sniff.ingest.plausible import Implausible, check_date, decoded
from sniff.ingest.prompt_text import PARAMS, read_body
from sniff.ingest.providers import anthropic as anthropic_api
from sniff.ingest.providers.cache_diagnosis import diagnosis_of
from sniff.ingest.record import NO_TOKENS, TOP_LEVEL, FileResult, Prompts, Response, epoch
from sniff.ingest.thinking_share import message_share, streamed_share
from sniff.model import UNDATED, Agent, Block, LineIssue, Sent

SOURCE = "claude-trace"
PROVIDER = "anthropic"
MESSAGES_PATH = re.compile(r"/v1/messages(?:\?|$)")
CLIENT_VERSION = re.compile(r"claude-cli/([0-9][^ ]*)")
SUMMARISER = re.compile(rb"summari[sz]\w* (?:the |this |a )?conversation", re.IGNORECASE)
"""What the system prompt of Claude Code's compaction call says it does."""
SUMMARY_ASKED = re.compile(r"\bsummary\b", re.IGNORECASE)
THINKING = frozenset({"thinking", "redacted_thinking"})
AROUND_BODY = 2
"""The objects around a request's or response's body in a line: the pair, the request."""


class TraceBody(msgspec.Struct):
    """The request body. The prompt stays raw bytes until a report asks for blocks."""

    model: str | None = None
    metadata: dict[str, Any] | None = None
    tools: msgspec.Raw = msgspec.Raw()
    """Raw JSON, empty when absent (msgspec keeps raw values out of unions)."""
    system: msgspec.Raw = msgspec.Raw()
    messages: msgspec.Raw = msgspec.Raw()
    # the settings `prompt_text.PARAMS` names, read under Prompts.TEXT; UNSET when absent
    tool_choice: Any = msgspec.UNSET
    thinking: Any = msgspec.UNSET
    reasoning: Any = msgspec.UNSET
    prompt_cache_key: Any = msgspec.UNSET
    parallel_tool_calls: Any = msgspec.UNSET
    service_tier: Any = msgspec.UNSET
    speed: Any = msgspec.UNSET


class TraceRequest(msgspec.Struct):
    timestamp: float | None = None
    url: str | None = None
    headers: dict[str, Any] | None = None
    body: TraceBody | None = None


class TraceResponse(msgspec.Struct):
    timestamp: float | None = None
    status_code: int | None = None
    headers: dict[str, Any] | None = None
    body: msgspec.Raw = msgspec.Raw()
    """Raw JSON, decoded once its nesting is checked (`plausible.check_depth`)."""
    body_raw: str | None = None


class TracePair(msgspec.Struct):
    request: TraceRequest | None = None
    response: TraceResponse | None = None
    logged_at: str | None = None
    note: str | None = None


DECODER = msgspec.json.Decoder(TracePair)
NO_TOOLS = frozenset({b"", b"[]", b"null"})


class _Call(NamedTuple):
    """A call of the log with what linking it needs: its response and its conversation."""

    response: Response
    digests: list[bytes]
    """The digest of its conversation after each of its messages."""


def parse_data(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Read one claude-trace log; `with_prompts` also turns request bodies into blocks."""
    issues: list[LineIssue] = []
    calls = []
    for number, pair in decode_lines(path, data, TracePair, DECODER, issues):
        try:
            found = _pair(path, number, pair, project_hint, with_prompts)
        except Implausible as error:  # the line is skipped, as if it were not there
            issues.append(LineIssue(path, number, str(error)))
            continue
        if found is not None:
            calls.append(found)
            if _aware(pair.logged_at) and _aware_epoch(pair.logged_at) is None:
                issues.append(LineIssue(path, number, UNDATED, True))
    return FileResult(link(calls), issues, 0, SOURCE)


def link(calls: list[_Call]) -> list[Response]:
    """The calls' responses, each naming the call it continues (`previous`).

    That is the latest successful call of the same model, started before it, whose messages
    are a prefix of its own: the conversation it resends and appends to. Background calls and
    subagents start conversations of their own, so each finds its own predecessor.
    """
    ended: dict[tuple[str, bytes], list[tuple[float, str]]] = {}
    for call in calls:
        response = call.response
        if response.error is None and call.digests:
            place = (response.model, call.digests[-1])
            ended.setdefault(place, []).append((_start(response), response.key))
    for found in ended.values():
        found.sort()
    linked: list[Response] = []
    for call in calls:
        response = call.response
        start, best = _start(response), None
        for digest in call.digests:
            found = ended.get((response.model, digest), [])
            at = bisect.bisect_left(found, (start, "")) - 1  # the latest that started before
            if at >= 0 and (best is None or found[at] > best):
                best = found[at]
        linked.append(response if best is None else response._replace(previous=best[1]))
    return linked


def _start(response: Response) -> float:
    return response.started_at or response.first_at or response.last_at or 0.0


def _pair(
    path: str, number: int, pair: TracePair, project: str, with_prompts: Prompts
) -> _Call | None:
    request = pair.request
    if request is None or not request.url or not MESSAGES_PATH.search(request.url):
        return None
    body = request.body or TraceBody()
    response = pair.response
    for timestamp in (request.timestamp, response.timestamp if response else None, pair.logged_at):
        check_date(timestamp)
    message, error = _message(response, pair.note)
    tokens, assumed = (
        anthropic_api.tokens(message.get("usage")) if not error else (NO_TOKENS, False)
    )
    model = message.get("model") if isinstance(message.get("model"), str) else body.model
    first, ended = _times(request, response, pair.logged_at)
    request_id = _header(response.headers if response is not None else None, "request-id")
    key = message.get("id") or request_id or f"{path}:{number}"
    streamed = response is None or _streamed(response)
    label = (None if streamed else message.get("id")) or request_id
    prompt, sent = _prompt(request.body, str(label) if label else None, with_prompts)
    messages = anthropic_api.conversation(bytes(body.messages), AROUND_BODY)
    agent, agent_id = _agent(body, messages, str(key))
    thinks = _thinks(response, message)
    found = Response(
        SOURCE,
        str(key),
        TOP_LEVEL,
        tokens,
        assumed,
        model or "(unknown)",
        PROVIDER,
        _session(body) or PurePath(path).stem,
        agent,
        agent_id,
        project,
        first,
        ended,
        epoch(request.timestamp),
        _version(request.headers),
        path,
        number,
        prompt,
        error,
        opens_turn=bool(messages) and _new_user_content(messages[-1]),
        thinks=thinks,
        sent=sent,
        thinking_share=_thinking_share(response, message) if thinks else None,
        request_id=str(request_id) if request_id else None,
        cache_diagnosis=diagnosis_of(message),
    )
    return _Call(found, [each.digest for each in messages])


def _agent(body: TraceBody, messages: list[anthropic_api.Message], key: str) -> tuple[Agent, str]:
    """Which agent made the call, and its chain's id.

    Claude Code's own agents send tools; its background calls (quota probes, titles) do not.
    Its compaction call says in its system prompt that it summarises conversations, and its
    last message asks for a summary; each is a chain of its own, as in transcripts.
    """
    if bytes(body.tools).strip() in NO_TOOLS:
        return Agent.OTHER, Agent.OTHER.value
    if (
        messages
        and messages[-1].role == "user"
        and SUMMARISER.search(bytes(body.system))
        and SUMMARY_ASKED.search(
            anthropic_api.message_text(bytes(body.messages), len(messages) - 1)
        )
    ):
        return Agent.COMPACTION, f"acompact-{key[-8:]}"
    return Agent.MAIN, Agent.MAIN.value


def _new_user_content(last: anthropic_api.Message) -> bool:
    """Whether a prompt ends with something a user (or the harness) said, not tool results."""
    return last.role == "user" and any(kind != "tool_result" for kind in last.kinds)


def _streamed(response: TraceResponse) -> bool:
    """Whether the response was a stream: no JSON body, the SSE text instead."""
    return bool(response.body_raw) and bytes(response.body).strip() in (b"", b"null")


def _thinks(response: TraceResponse | None, message: dict[str, Any]) -> bool:
    """Whether a response (a JSON message, or a stream) holds thinking blocks."""
    if response is not None and _streamed(response) and response.body_raw:
        return anthropic_api.streams_thinking(response.body_raw)
    content = message.get("content")
    return isinstance(content, list) and any(
        isinstance(part, dict) and part.get("type") in THINKING for part in content
    )


def _thinking_share(response: TraceResponse | None, message: dict[str, Any]) -> float | None:
    """Thinking's estimated share of the output, from the stream's deltas or the body's blocks."""
    if response is not None and _streamed(response) and response.body_raw:
        return streamed_share(response.body_raw)
    return message_share(message.get("content"))


def _message(response: TraceResponse | None, note: str | None) -> tuple[dict[str, Any], str | None]:
    """The response message (id, model, usage) and why the call failed, if it did."""
    if response is None:
        return {}, note or "no response"
    status = response.status_code or 0
    body = decoded(response.body, AROUND_BODY)
    if status >= 400:
        if body is None and response.body_raw:
            try:
                body = msgspec.json.decode(response.body_raw)
            except (msgspec.DecodeError, RecursionError):
                body = None
        return {}, f"HTTP {status}: {anthropic_api.error_text(body)}"
    if isinstance(body, dict):
        return body, None
    if response.body_raw:
        message, error = anthropic_api.from_sse(response.body_raw)
        if error and not message.get("usage"):
            return {}, error
        return message, None
    return {}, "empty response"


def _times(
    request: TraceRequest, response: TraceResponse | None, logged_at: str | None
) -> tuple[float | None, float | None]:
    """(first content, end) of a call.

    The response's timestamp is when its headers arrived: for a stream, the start of the
    stream; for a JSON body, the whole answer. A streamed pair is written when the stream
    ends, so `logged_at` is its end, but only when it names its zone: early writers logged
    local time without one.
    """
    if response is None:
        return None, _aware_epoch(logged_at) or epoch(request.timestamp)
    heard = epoch(response.timestamp)
    if _streamed(response):
        logged = _aware_epoch(logged_at)
        ended = logged if logged is not None and (heard is None or logged >= heard) else heard
        return heard, ended
    return heard, heard


def _aware(text: str | None) -> bool:
    """Whether an ISO time says its offset from UTC (early writers logged local time)."""
    if not text:
        return False
    return text.endswith("Z") or "+" in text[10:] or "-" in text[10:]


def _aware_epoch(text: str | None) -> float | None:
    """An ISO time as epoch seconds, only if it says its offset from UTC."""
    return epoch(text) if _aware(text) else None


def _session(body: TraceBody) -> str | None:
    user = (body.metadata or {}).get("user_id")
    return anthropic_api.anthropic_session(user) if isinstance(user, str) else None


def _prompt(
    body: TraceBody | None, label: str | None, with_prompts: Prompts
) -> tuple[tuple[Block, ...], Sent | None]:
    """The prompt's blocks as `with_prompts` asks, and what else the body says (text only)."""
    if body is None or with_prompts == Prompts.NONE:
        return (), None
    if with_prompts == Prompts.TEXT:
        raw = {"tools": body.tools, "system": body.system, "messages": body.messages}
        sent = {"model": body.model} | {k: decoded(v, AROUND_BODY) for k, v in raw.items() if v}
        sent |= {k: getattr(body, k) for k in PARAMS if getattr(body, k) is not msgspec.UNSET}
        return read_body(sent, label=label)
    return anthropic_api.blocks_from_raw(
        bytes(body.tools), bytes(body.system), bytes(body.messages),
        with_prompts == Prompts.COUNTED, AROUND_BODY,
    ), None  # fmt: skip


def _header(headers: dict[str, Any] | None, name: str) -> str | None:
    for key, value in (headers or {}).items():
        if key.lower() == name and isinstance(value, str):
            return value
    return None


def _version(headers: dict[str, Any] | None) -> str | None:
    found = CLIENT_VERSION.search(_header(headers, "user-agent") or "")
    return found.group(1) if found else None
