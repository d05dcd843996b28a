"""Provides the parser of the API bodies Claude Code writes with
`OTEL_LOG_RAW_API_BODIES=file:<dir>`: its calls' whole prompts, as claude-trace gives them.

Claude Code writes each request body to `<dir>/<uuid>.request.json`, each response to
`<dir>/<request_id>.response.json`, and a line per successful response to `<dir>/index.jsonl`
(`timestamp`, `session_id`, `query_source`, `model`, `request_id`, `message_id`,
`request_file`, `response_file`). A request body names no request id, so the index is what
ties a prompt to its call: it is the file read, and each line reads the two bodies it names,
looked up by name in the index's own folder only (a path in a log never sends sniff elsewhere).
Each call is keyed by its message id, as its transcript's copy is: the two are one call, the
transcript's copy kept with the prompt this one holds (`merge`). The body files themselves
yield nothing apart. Built from Claude Code's documentation, without a real sample
(docs/agents/otel-formats.md): unverified.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Any

import orjson

from sniff.ingest.files.lines import BOM
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.ingest.plausible import Implausible, epoch
from sniff.ingest.prompt_text import read_body
from sniff.ingest.providers import anthropic as anthropic_api
from sniff.ingest.record import EMBEDDED, FileResult, Prompts, Response
from sniff.model import Agent, Block, Harness, LineIssue, Sent

SOURCE = "otel-bodies"
INDEX = "index.jsonl"
INDEX_KEYS = frozenset({"request_id", "request_file", "response_file"})
AGENTS = {"main": Agent.MAIN, "subagent": Agent.SUBAGENT, "auxiliary": Agent.OTHER}
NOT_A_CALL = "not an index line of Claude Code's API bodies"
NO_RESPONSE = "its response body cannot be read: {}"


def is_index_line(record: dict[str, Any]) -> bool:
    """Whether a JSON line is one of the index's."""
    return record.keys() >= INDEX_KEYS


def parse_data(path: str, data: bytes, project_hint: str, with_prompts: Prompts) -> FileResult:
    """The calls an index names, with their prompts as `with_prompts` asks; a body file: none."""
    if os.path.basename(path) != INDEX:
        return FileResult([], [], 0, SOURCE)
    responses, issues = [], []
    for number, raw in enumerate(data.removeprefix(BOM).split(b"\n"), start=1):
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
            if not isinstance(line, dict) or not is_index_line(line):
                raise ValueError(NOT_A_CALL)
            responses.append(_call(path, number, line, project_hint, with_prompts))
        except (orjson.JSONDecodeError, ValueError, OSError, Implausible) as error:
            issues.append(LineIssue(path, number, str(error) or NOT_A_CALL))
    return FileResult(responses, issues, 0, SOURCE)


def _call(
    path: str, number: int, line: dict[str, Any], project: str, with_prompts: Prompts
) -> Response:
    """One call of the index, its usage from its response body and its prompt from its request
    body (read only when prompts are wanted)."""
    folder = os.path.dirname(path)
    try:
        named = _inside(folder, line["response_file"])
        message = orjson.loads(read_regular(named, KEPT_FILE_BYTES))
    except (OSError, orjson.JSONDecodeError) as error:
        raise ValueError(NO_RESPONSE.format(error.__class__.__name__)) from error
    message = message if isinstance(message, dict) else {}
    tokens, assumed = anthropic_api.tokens(message.get("usage"))
    key = _text(line.get("message_id")) or _text(message.get("id")) or f"{path}:{number}"
    blocks: tuple[Block, ...] = ()
    sent: Sent | None = None
    if with_prompts is not Prompts.NONE:
        body = orjson.loads(read_regular(_inside(folder, line["request_file"]), KEPT_FILE_BYTES))
        if isinstance(body, dict):
            blocks, sent = read_body(body, with_prompts, label=key)
    source = _text(line.get("query_source"))
    model = _text(message.get("model")) or _text(line.get("model")) or "(unknown)"
    return Response(
        SOURCE, key, EMBEDDED, tokens, assumed, model, "anthropic",
        _text(line.get("session_id")) or PurePath(folder).name, AGENTS.get(source, Agent.MAIN),
        source or "main", project, None, epoch(line.get("timestamp")), None, None, path,
        number, blocks, sent=sent if with_prompts is Prompts.TEXT else None,
        harness=Harness.CLAUDE_CODE, request_id=_text(line.get("request_id")) or None,
    )  # fmt: skip


def _inside(folder: str, named: object) -> str:
    """The file of that name in `folder`: only its last part is taken, whatever path it says."""
    name = os.path.basename(named) if isinstance(named, str) else ""
    if not name or name in (".", ".."):
        raise ValueError("names no body file")
    return os.path.join(folder, name)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""
