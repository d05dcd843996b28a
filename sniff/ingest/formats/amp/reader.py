"""Provides the parser of Amp's threads (`~/.local/share/amp/threads/T-<uuid>.json`).

A thread is one JSON document, rewritten whole as it grows: one thread, one session (`id`),
its project the first of `env.initial.trees[].uri`. Each call's usage is logged twice, on the
assistant message (`usage`, in Anthropic's disjoint classes: `inputTokens` uncached,
`cacheReadInputTokens`, `cacheCreationInputTokens`, `outputTokens`) and, in the older
schema, as an `usageLedger.events` row (`tokens.input/output`, joined to its message by
`toMessageId` for the cache split). Where the ledger exists it gives the requests, else the
messages do: never both. Ledger rows without time or model, and calls of no tokens, are not
requests. `credits` is Amp's billing unit, kept as `reported_units`.

Built from the field guide (peer parsers), not from a real thread: none was found.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import unquote, urlparse

from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.formats.amp import wire as amp_wire
from sniff.ingest.formats.amp.wire import Ledger, Thread, ThreadMessage
from sniff.ingest.plausible import Implausible, check_date, counted
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, Tokens, epoch
from sniff.ingest.vendor import is_anthropic, vendor_of
from sniff.model import Agent, Harness, LineIssue

SOURCE = "amp"
PROVIDER = "amp"
CREDITS = "credits"


class Call(NamedTuple):
    """One request as the thread holds it, before it becomes a `Response`."""

    name: str
    position: int
    """Its message's or ledger row's 1-based index."""
    model: str
    tokens: Tokens
    at: str | None
    credits: float | None


def claims(value: Any) -> bool:
    """Whether a JSON document is an Amp thread: an id `T-…` and a list of messages."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and value["id"].startswith("T-")
        and isinstance(value.get("messages"), list)
    )


def parse(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Read one thread; a message or ledger row that cannot be read is listed by its index."""
    try:
        thread = amp_wire.decode_thread(data)
    except Implausible as error:
        return FileResult([], [LineIssue(path, 0, str(error))], 0, SOURCE)
    issues: list[LineIssue] = []
    messages = amp_wire.messages(path, thread, issues)
    ledger = amp_wire.ledger(path, thread, issues)
    calls = _ledger_calls(ledger, messages) if ledger else _message_calls(messages)
    session = thread.id or path
    project = _project(thread) or project_hint
    responses: list[Response] = []
    previous: str | None = None
    for call in calls:
        try:
            check_date(call.at)
        except Implausible as error:
            issues.append(LineIssue(path, call.position, str(error)))
            continue
        response = _response(path, session, project, call, previous)
        responses.append(response)
        previous = response.key
    activity = amp_wire.activity(messages, session, project)
    return FileResult(responses, issues, 0, SOURCE, activity)


def _message_calls(messages: list[tuple[int, ThreadMessage]]) -> list[Call]:
    calls = []
    for index, message in messages:
        usage = message.usage
        if message.role != "assistant" or usage is None:
            continue
        split = (usage.inputTokens, usage.cacheReadInputTokens, usage.cacheCreationInputTokens)
        inputs = counted(usage.inputTokens)
        if all(part is None for part in (*split, usage.outputTokens)):
            inputs = counted(usage.totalTokens)  # the fallback peers read: no split logged
        tokens = Tokens(
            inputs,
            counted(usage.cacheReadInputTokens),
            counted(usage.cacheCreationInputTokens),
            0,
            counted(usage.outputTokens),
            0,
        )
        if sum(tokens[:5]):
            name = str(message.messageId) if message.messageId is not None else f"m{index}"
            model = usage.model or "unknown"
            calls.append(Call(name, index, model, tokens, usage.timestamp, usage.credits))
    return calls


def _ledger_calls(
    ledger: list[tuple[int, Ledger]], messages: list[tuple[int, ThreadMessage]]
) -> list[Call]:
    cache = {
        message.messageId: message.usage
        for _, message in messages
        if message.usage is not None and message.messageId is not None
    }
    calls = []
    for index, event in ledger:
        if not event.timestamp or not event.model:
            continue
        usage = cache.get(event.toMessageId) if event.toMessageId is not None else None
        tokens = Tokens(
            counted(event.tokens.input) if event.tokens else 0,
            counted(usage.cacheReadInputTokens) if usage else 0,
            counted(usage.cacheCreationInputTokens) if usage else 0,
            0,
            counted(event.tokens.output) if event.tokens else 0,
            0,
        )
        if sum(tokens[:5]):
            name = event.id or f"ledger-{index}"
            calls.append(Call(name, index, event.model, tokens, event.timestamp, event.credits))
    return calls


def _response(path: str, session: str, project: str, call: Call, previous: str | None) -> Response:
    provider = vendor_of(call.model, PROVIDER)
    credits = call.credits if call.credits is not None and call.credits >= 0 else None
    return Response(
        SOURCE,
        f"{SOURCE}:{session}:{call.name}",
        TOP_LEVEL,
        call.tokens,
        is_anthropic(provider, call.model) and call.tokens.cache_write_5m > 0,
        call.model,
        provider,
        session,
        Agent.MAIN,
        Agent.MAIN.value,
        project,
        None,
        epoch(call.at),
        None,
        None,
        path,
        call.position,
        previous=previous,
        harness=Harness.AMP,
        reported_units=(credits, CREDITS) if credits is not None else None,
    )


def _project(thread: Thread) -> str | None:
    """The folder of the thread's first tree (a `file://` URI)."""
    trees = thread.env.initial.trees if thread.env and thread.env.initial else []
    for tree in trees:
        if tree.uri:
            parsed = urlparse(tree.uri)
            return unquote(parsed.path) if parsed.scheme == "file" else tree.uri
    return None


FORMATS = (AgentFormat(SOURCE, Layout.DOCUMENT, claims, parse),)
