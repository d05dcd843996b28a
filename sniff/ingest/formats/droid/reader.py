"""Provides the parsers of Factory Droid's logs (`~/.factory/sessions/**`).

Droid logs no call's usage. Its `<session>.settings.json` sidecar holds the session's
cumulative `tokenUsage`: one `Response` per session, a rollup (`Response.rollup`), dated at
`providerLockTimestamp` (else the file's time). Its counts are disjoint as Anthropic's are:
`inputTokens` uncached, `cacheReadTokens`, `cacheCreationTokens` (writes of unstated lifetime),
`outputTokens`; `thinkingTokens` is reported apart as reasoning. A copy of a session (one under
`archive/`) has its key, so it counts once; a session of no tokens made no request.

The session `.jsonl` files and `droid exec --output-format stream-json` captures are Droid's
too, but hold no usage: they are claimed (so they are read as no one else's) and give only
their tool calls, tool results and user requests (`droid_activity`).

Built from the field guide and peer parsers, not from a real settings file (none was found).
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import msgspec
import orjson

from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.formats.droid import activity as droid_activity
from sniff.ingest.plausible import Count, Implausible, UsageFields, check_date, check_depth, counted
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, Tokens, epoch
from sniff.ingest.vendor import is_anthropic, vendor_of
from sniff.model import Agent, Harness, LineIssue

SOURCE = "droid"
PROVIDER = "factory"
SETTINGS = ".settings.json"
USAGE_KEYS = frozenset(
    {"inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens", "thinkingTokens"}
)
HEADER_BYTES = 65_536
"""How much of a session's `.jsonl` is read for its header (its first line)."""


class TokenUsage(UsageFields):
    inputTokens: Count = None  # noqa: N815 (the log's names)
    outputTokens: Count = None  # noqa: N815
    cacheReadTokens: Count = None  # noqa: N815
    cacheCreationTokens: Count = None  # noqa: N815
    thinkingTokens: Count = None  # noqa: N815


class Settings(msgspec.Struct):
    model: str | None = None
    providerLock: str | None = None  # noqa: N815
    providerLockTimestamp: str | float | None = None  # noqa: N815
    tokenUsage: TokenUsage | None = None  # noqa: N815


def claims_settings(value: Any) -> bool:
    """Whether a JSON document is a Droid settings sidecar: a `tokenUsage` of Droid's keys."""
    usage = value.get("tokenUsage") if isinstance(value, dict) else None
    return isinstance(usage, dict) and bool(USAGE_KEYS & usage.keys()) and "messages" not in value


def parse_settings(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """One session's totals, from its settings sidecar."""
    try:
        check_depth(data)
        settings = msgspec.json.decode(data, type=Settings)
        check_date(settings.providerLockTimestamp)
    except (msgspec.DecodeError, msgspec.ValidationError) as error:
        problem = LineIssue(path, 0, f"unreadable Droid settings: {error}")
        return FileResult([], [problem], 0, SOURCE)
    except Implausible as error:
        return FileResult([], [LineIssue(path, 0, str(error))], 0, SOURCE)
    usage = settings.tokenUsage or TokenUsage()
    tokens = Tokens(
        counted(usage.inputTokens),
        counted(usage.cacheReadTokens),
        counted(usage.cacheCreationTokens),
        0,
        counted(usage.outputTokens),
        counted(usage.thinkingTokens),
    )
    if not sum(tokens[:5]):
        return FileResult([], [], 0, SOURCE)
    name = PurePath(path).name
    session = name[: -len(SETTINGS)] if name.endswith(SETTINGS) else PurePath(path).stem
    model = settings.model or "unknown"
    provider = (settings.providerLock or vendor_of(model, PROVIDER)).lower()
    response = Response(
        SOURCE,
        f"{SOURCE}:{session}",
        TOP_LEVEL,
        tokens,
        is_anthropic(provider, model) and tokens.cache_write_5m > 0,
        model,
        provider,
        session,
        Agent.MAIN,
        Agent.MAIN.value,
        _project(path, session) or droid_activity.folder_project(project_hint),
        None,
        epoch(settings.providerLockTimestamp),
        None,
        None,
        path,
        1,
        harness=Harness.DROID,
        reasoning_apart=True,
        rollup=True,
        calls=0,
    )
    return FileResult([response], [], 0, SOURCE)


def _project(path: str, session: str) -> str | None:
    """The folder the session's own `.jsonl` header names (`session_start.cwd`), if any: the
    one beside the settings, else, for a copy under `archive/`, the one it was archived from."""
    settings = PurePath(path)
    places = [settings.parent]
    if settings.parent.name == droid_activity.ARCHIVE:
        places.append(settings.parent.parent)
    for place in places:
        cwd = _cwd(place / f"{session}.jsonl")
        if cwd is not None:
            return cwd
    return None


def _cwd(lines: PurePath) -> str | None:
    try:
        with open(lines, "rb") as handle:
            first = handle.read(HEADER_BYTES).split(b"\n", 1)[0]
        header = orjson.loads(first)
    except (OSError, orjson.JSONDecodeError):
        return None
    cwd = header.get("cwd") if isinstance(header, dict) else None
    return cwd if isinstance(cwd, str) and cwd else None


def claims_lines(record: dict[str, Any]) -> bool:
    """Whether a record is a line of a Droid session or of its stream-json output."""
    kind = record.get("type")
    if kind == "session_start":  # Droid's session header (pi's is `session`)
        return "id" in record and ("owner" in record or "sessionTitle" in record)
    if "session_id" not in record or "sessionId" in record:
        return False
    if kind == "system":  # Claude Code's stream-json init has a `subtype`
        return "subtype" not in record and "model" in record
    if kind in ("tool_call", "tool_result"):
        return "toolCallId" in record
    return (kind == "completion" and "finalText" in record) or (
        kind == "message" and "role" in record and "text" in record
    )


def parse(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """A settings sidecar's totals, or a session's or a stream's lines: no usage, only what
    the agent did (both are read under one format name, told apart by their content)."""
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        document = None  # lines, or a settings file cut short
    if claims_settings(document) or (document is None and PurePath(path).name.endswith(SETTINGS)):
        return parse_settings(path, data, project_hint, with_prompts)
    issues: list[LineIssue] = []
    activity = droid_activity.read(path, data, project_hint, issues)
    return FileResult([], issues, 0, SOURCE, activity)


FORMATS = (
    AgentFormat(SOURCE, Layout.DOCUMENT, claims_settings, parse),
    AgentFormat(SOURCE, Layout.LINES, claims_lines, parse),
)
