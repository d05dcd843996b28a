"""Provides the parser of the Cline SDK session store (`~/.cline/data/sessions/<id>/`): each
assistant message of `<id>.messages.json` that carries `metrics` is one model call.

Why these choices:
- Tokens: `metrics.inputTokens` is the whole prompt, cache reads and writes included (Cline's
  provider layer normalises every provider's usage so; its own VS Code bridge says so when it
  converts back to the classic disjoint buckets). Uncached input is what is left once both are
  subtracted, once. `outputTokens` is kept as stored; `reasoningTokenCount`, where present, is
  its thinking share. A message whose metrics are all zero was no billed call.
- Model: each message's `modelInfo`, never the manifest's `model`, which is the session's
  setting now: a session switches models, and a fork's manifest names the model chosen after
  the fork while its copied messages were answered by others. The manifest is read only for
  what messages do not say: the project (`cwd`), and the fork's time.
- Identity: a message's `id` (prefixed). A fork copies its parent's messages, ids and metrics
  included, into its own file; a compacted file (or a compaction fixture) keeps some of them.
  The same id is the same call: the merge keeps one. A fork's copies (messages dated up to
  `forkedAt`) rank below the parent's own copy, so the call stays with the session that made it
  when both files are read; read alone, the fork still counts them, once.
- Agents: the file's `agent` is `lead` (the main conversation) or `subagent`/`teammate`, whose
  file's `sessionId` names the lead's session, so its calls join that session as a sub-agent
  (its id: the file's own session id, from its name).
- The file is one JSON document the agent rewrites whole: caught mid-write, it does not decode,
  and yields one issue for the file (the next scan reads it whole).
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files.lines import BOM
from sniff.ingest.formats.cline import activity as cline_activity
from sniff.ingest.formats.cline.wire import Manifest, Message, MessagesFile
from sniff.ingest.plausible import IMPLAUSIBLE_USAGE, counted, epoch
from sniff.ingest.record import EMBEDDED, TOP_LEVEL, FileResult, Prompts, Response, Tokens
from sniff.model import Agent, Harness, LineIssue

SOURCE = "cline"
MESSAGES_SUFFIX = ".messages.json"
COMPACTION_SUFFIX = ".compaction.json"
LEAD = "lead"
SUB_SESSION = "__"
"""What joins a sub-agent's session id to its lead's and its own id."""

_FILE = msgspec.json.Decoder(MessagesFile)
_MESSAGE = msgspec.json.Decoder(Message)
_MANIFEST = msgspec.json.Decoder(Manifest)


def claims(value: object) -> bool:
    """A messages document: `version`, `updated_at`, a `sessionId` and a `messages` list.

    Compaction fixtures saved in this shape are claimed too: they are what a compacted messages
    file looks like, and the calls they keep are the same messages (same ids) as the session's,
    so they add none. Cline's compaction sidecar (`<id>.compaction.json`, with
    `source_message_count` and no `sessionId`) is not claimed: its messages are copies only.
    """
    return (
        isinstance(value, dict)
        and "version" in value
        and "updated_at" in value
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("messages"), list)
        and "source_message_count" not in value
    )


def parse(path: str, data: bytes, project_hint: str, with_prompts: Prompts) -> FileResult:
    """Read one `<id>.messages.json`."""
    del with_prompts  # the prompt's blocks are not read from this format yet
    try:
        document = _FILE.decode(data.removeprefix(BOM))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
        return FileResult(
            [], [LineIssue(path, 0, f"not a Cline messages file: {error}")], 0, SOURCE
        )
    manifest = _manifest(path)
    context = _Context.of(path, document, manifest, project_hint)
    issues: list[LineIssue] = []
    messages: list[tuple[int, Message, str]] = []
    for index, raw in enumerate(document.messages, start=1):
        try:
            message = _MESSAGE.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
            issues.append(LineIssue(path, index, _reason(error)))
            continue
        messages.append((index, message, message_key(context.session_id, index, message)))
    responses = _responses(context, messages, issues)
    issues.sort(key=lambda issue: issue.line)
    activity = cline_activity.sdk_activity(
        messages, context.session_id, context.project, lead=context.agent is Agent.MAIN
    )
    return FileResult(responses, issues, 0, SOURCE, activity)


class _Context(msgspec.Struct, frozen=True, gc=False):
    """What every call of one file shares."""

    path: str
    session_id: str
    agent: Agent
    agent_id: str
    project: str
    forked_at: float | None
    copied: bool
    """The whole file is a copy (a compaction fixture)."""

    @classmethod
    def of(
        cls, path: str, document: MessagesFile, manifest: Manifest, project_hint: str
    ) -> _Context:
        name = Path(path).name
        own_id = name.removesuffix(MESSAGES_SUFFIX) if name.endswith(MESSAGES_SUFFIX) else ""
        lead = document.agent in (None, LEAD)
        fork = manifest.metadata.fork if manifest.metadata else None
        return cls(
            path,
            document.sessionId,
            Agent.MAIN if lead else Agent.SUBAGENT,
            Agent.MAIN.value if lead else _agent_id(own_id or document.sessionId),
            manifest.cwd or manifest.workspace_root or project_hint,
            epoch(fork.forkedAt) if fork else None,
            name.endswith(COMPACTION_SUFFIX),
        )


def _agent_id(session_id: str) -> str:
    """A sub-agent's id from its session's (`<root session>__<agent id>`)."""
    return session_id.split(SUB_SESSION, 1)[1] if SUB_SESSION in session_id else session_id


def _manifest(path: str) -> Manifest:
    """The manifest beside a messages file (`<id>.json`); empty when absent or unreadable."""
    if not path.endswith(MESSAGES_SUFFIX):
        return Manifest()
    try:
        data = Path(path.removesuffix(MESSAGES_SUFFIX) + ".json").read_bytes()
        return _MANIFEST.decode(data.removeprefix(BOM))
    except (OSError, msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return Manifest()


def _reason(error: Exception) -> str:
    text = str(error)
    return f"{IMPLAUSIBLE_USAGE}: {text}" if "metrics" in text else f"not a Cline message: {text}"


def _responses(
    context: _Context, messages: list[tuple[int, Message, str]], issues: list[LineIssue]
) -> list[Response]:
    responses: list[Response] = []
    previous: str | None = None
    asked_at: float | None = None
    opens_turn = False
    for index, message, key in messages:
        if message.role != "assistant":
            asked_at = epoch(message.ts) or asked_at
            opens_turn = opens_turn or cline_activity.is_instruction(message)
            continue
        tokens = _tokens(message)
        if tokens is None:
            issues.append(LineIssue(context.path, index, f"{IMPLAUSIBLE_USAGE}: cache > input"))
            continue
        if not any(tokens):
            continue
        response = _response(context, (index, key), message, tokens, previous, asked_at, opens_turn)
        responses.append(response)
        previous, opens_turn = response.key, False
    return responses


def _tokens(message: Message) -> Tokens | None:
    """The call's tokens in sniff's classes; None when its cached share exceeds its input."""
    metrics = message.metrics
    if metrics is None:
        return Tokens(0, 0, 0, 0, 0, 0)
    read, write = counted(metrics.cacheReadTokens), counted(metrics.cacheWriteTokens)
    uncached = counted(metrics.inputTokens) - read - write
    if uncached < 0:
        return None
    output, reasoning = counted(metrics.outputTokens), counted(metrics.reasoningTokenCount)
    return Tokens(uncached, read, write, 0, output, reasoning)


def _response(
    context: _Context,
    place: tuple[int, str],
    message: Message,
    tokens: Tokens,
    previous: str | None,
    asked_at: float | None,
    opens_turn: bool,
) -> Response:
    at = epoch(message.ts)
    model_info = message.modelInfo
    model = (model_info.id if model_info else None) or "(unknown)"
    copied = context.copied or (
        context.forked_at is not None and at is not None and at <= context.forked_at
    )
    metrics = message.metrics
    return Response(
        SOURCE,
        place[1],
        EMBEDDED if copied else TOP_LEVEL,
        tokens,
        tokens.cache_write_5m > 0 and "claude" in model.lower(),  # only Anthropic's have a TTL
        model,
        (model_info.provider if model_info else None) or SOURCE,
        context.session_id,
        context.agent,
        context.agent_id,
        context.project,
        None,
        at,
        asked_at,
        None,
        context.path,
        place[0],
        previous=previous,
        opens_turn=opens_turn,
        thinks=cline_activity.thinks(message),
        harness=Harness.CLINE,
        reported_cost_usd=metrics.cost if metrics else None,
    )


def message_key(session_id: str, index: int, message: Message) -> str:
    """A message's identity across files: its id; without one, its session and time (or its
    place, the last resort)."""
    if message.id:
        return f"{SOURCE}:{message.id}"
    if message.ts is not None:
        return f"{SOURCE}:{session_id}:{message.ts}"
    return f"{SOURCE}:{session_id}:#{index}"


FORMATS = (
    AgentFormat(SOURCE, Layout.DOCUMENT, claims, parse),
    # a document saved on one line is its own first line, whose `sessionId` would otherwise
    # make it a Claude Code record
    AgentFormat(SOURCE, Layout.LINES, claims, parse),
)
