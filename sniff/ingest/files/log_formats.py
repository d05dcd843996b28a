"""Provides format detection and dispatch: which parser reads a file, judged from its first lines.

Why from the first lines only: a folder may mix formats (transcripts, request logs, rollouts),
and a file's format shows in the shape of its first records; reading further would cost as much
as parsing. A file of no known format yields nothing and is reported once, by name.
"""

from __future__ import annotations

import fnmatch
import os
import sqlite3
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

import orjson

from sniff.ingest.agent_format import AgentFormat, Layout, Parser
from sniff.ingest.files import remote, sqlite_read
from sniff.ingest.files.discover import SourceFile
from sniff.ingest.files.lines import BOM
from sniff.ingest.files.regular import open_regular, why_unread
from sniff.ingest.files.streamed import Read, head, read_lines, reader_of
from sniff.ingest.record import FileResult, Prompts
from sniff.model import NO_USAGE, LineIssue

AGENT_MODULES = (
    "pi.reader", "kimi.reader", "cline.reader", "cline.tasks", "amp.reader", "copilot.reader",
    "droid.reader", "goose.reader", "gemini_cli.reader", "qwen_code.reader", "opencode.reader",
)  # fmt: skip
"""The registry of the other agents' formats: the modules that declare them
(`sniff.ingest.formats.<name>.FORMATS`), in the order their formats are tried. An agent is
added as a package under `sniff.ingest.formats` and one line here."""


@cache
def agent_formats() -> tuple[AgentFormat, ...]:
    """The other agents' formats, each claimed from its content before Claude Code's and Codex's.

    Why imported on first use: a file read as a named format (the status line's transcript)
    needs none of them, and importing eleven parsers costs a status line a good part of its
    time."""
    return tuple(
        agent_format
        for name in AGENT_MODULES
        for agent_format in import_module(f"sniff.ingest.formats.{name}").FORMATS
    )


CLAUDE_CODE, CODEX = "claude-code", "codex"
CLAUDE_TRACE, REQUEST_LOG = "claude-trace", "request-log"
OTEL, OTEL_BODIES = "otel", "otel-bodies"
"""The names of the formats told apart below (each its module's `SOURCE`, a test checks)."""
WHOLE_FILE_PARSERS: dict[str, str] = {
    CLAUDE_TRACE: "claude_trace.reader", REQUEST_LOG: "request_log.reader", OTEL: "otel.reader",
    OTEL_BODIES: "otel.bodies",
}  # fmt: skip
BODY_FILES = (".request.json", ".response.json")
"""The API bodies Claude Code writes beside their index (`otel.bodies`), read through it."""
OTLP_SIGNALS = ("resourceLogs", "resourceSpans", "resourceMetrics")
"""The top-level lists of an OpenTelemetry export request (OTLP/JSON), one per signal."""
"""The formats of sniff's own that are read whole (the others: `streamed.READERS`), and the
module of each (`sniff.ingest.formats.<module>.parse_data`), imported when a file of it is
read."""


def parser_of(log_format: str) -> Parser | None:
    """The parser of a format read whole (its bytes at once); None for the others."""
    module = WHOLE_FILE_PARSERS.get(log_format)
    if module is not None:
        parse: Parser = import_module(f"sniff.ingest.formats.{module}").parse_data
        return parse
    return next((found.parse for found in agent_formats() if found.name == log_format), None)


SQLITE_MAGIC = b"SQLite format 3\x00"
HEAD_LINES = 5
"""How many non-empty lines detection looks at, at most."""

CODEX_TYPES = frozenset(
    {"session_meta", "turn_context", "response_item", "event_msg", "compacted",
     "token_usage_record", "world_state"}
)  # fmt: skip
CLAUDE_CODE_TYPES = frozenset(
    {"user", "assistant", "summary", "system", "progress", "file-history-snapshot",
     "queue-operation", "attachment", "custom-title", "ai-title", "last-prompt", "atis-latch",
     "tag", "permission-mode", "agent-setting", "pr-link", "turn_end"}
)  # fmt: skip

FOREIGN_KEYS = frozenset({"usageMetadata", "systemPayload", "projectHash", "$set", "$rewindTo"})
"""Keys of Qwen Code and Gemini CLI records that no format sniff reads uses."""
FOREIGN_TYPES = frozenset({"gemini", "session_start"})
PI_TYPES = frozenset(
    {"session", "message", "model_change", "thinking_level_change", "custom", "custom_message",
     "compaction", "branch_summary"}
)  # fmt: skip
"""Record types of pi, OpenClaw and Droid sessions, whose records carry no `uuid`."""


def parse_any(
    path: str, project_hint: str, forced: str | None = None, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Read a file with the parser of its format (or of `forced`).

    A file of no known format gives an empty result whose `log_format` is None. A `sniff export`
    folder is read as one (`parquet_in`), whatever `forced` says.
    """
    return read_log(path, project_hint, forced, with_prompts).result


def read_log(
    path: str,
    project_hint: str,
    forced: str | None = None,
    with_prompts: Prompts = Prompts.NONE,
    *,
    keep_state: bool = False,
) -> Read:
    """`parse_any`, telling also how far a format read a block at a time got (`streamed`),
    with its reader's state if `keep_state`, or why the file could not be read."""
    if remote.url_of(path) is not None:  # an export in a store (`discover.stored_exports`)
        from sniff.ingest import parquet_in

        return Read(parquet_in.read_export(path, with_prompts))
    try:
        descriptor, _ = open_regular(path)
        with open(descriptor, "rb", buffering=0) as handle:  # closes it
            start = head(descriptor, HEAD_LINES)
            if start.startswith(SQLITE_MAGIC):  # opened by its parser, read-only
                log_format = forced or detect_database(path)
                return Read(parse_data(path, b"", project_hint, log_format, with_prompts))
            log_format = forced or detect(start)
            make_reader = reader_of(log_format) if log_format is not None else None
            if make_reader is not None:
                reader = make_reader(path, project_hint)
                return read_lines(descriptor, reader, read=start, keep_state=keep_state)
            data = b""
            if log_format is not None or _may_be_document(start):  # read whole
                handle.seek(len(start))
                data = start + handle.readall()
    except OSError as error:
        problem = LineIssue(path, 0, why_unread(error))
        return Read(unreadable(path, problem, forced, with_prompts), problem=problem)
    return Read(parse_data(path, data, project_hint, log_format, with_prompts))


def parse_source(
    file: SourceFile, forced: str | None = None, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """`parse_any` for a listed file; one its listing found unreadable yields only why."""
    if file.problem:
        return FileResult([], [LineIssue(file.path, 0, file.problem)], 0, None)
    return parse_any(file.path, file.project_hint, forced, with_prompts)


def unreadable(
    path: str,
    problem: LineIssue | None,
    forced: str | None = None,
    with_prompts: Prompts = Prompts.NONE,
) -> FileResult:
    """What a path `open` refused yields: a `sniff export` folder read as one, else why not."""
    from sniff.ingest import parquet_in  # only for a folder: the rest never needs it

    if parquet_in.is_export(Path(path)):
        return parquet_in.read_export(path, with_prompts)
    return FileResult([], [problem] if problem else [], 0, forced)


def parse_data(
    path: str, data: bytes, project_hint: str, forced: str | None, with_prompts: Prompts
) -> FileResult:
    """A file's bytes read with the parser of its format (or of `forced`)."""
    log_format = forced or _body_file(path) or detect(data) or detect_document(data)
    if log_format is None:
        return FileResult([], [], 0, None)
    parse = parser_of(log_format)
    if parse is None:  # a format read a block at a time, handed its bytes whole
        return FileResult([], [], 0, log_format)
    result = parse(path, data, project_hint, with_prompts)
    agent = log_format not in WHOLE_FILE_PARSERS
    if agent and not (result.responses or result.issues or _acts(result)):
        return result._replace(issues=[LineIssue(path, 0, NO_USAGE, kept=True)])
    return result


def _body_file(path: str) -> str | None:
    """`OTEL_BODIES` for an API body beside the index that names it, else None."""
    if not path.endswith(BODY_FILES):
        return None
    index = os.path.join(os.path.dirname(path), "index.jsonl")
    return OTEL_BODIES if os.path.isfile(index) else None


def _acts(result: FileResult) -> bool:
    activity = result.activity
    return activity is not None and bool(activity.calls or activity.results or activity.events)


def _may_be_document(start: bytes) -> bool:
    """Whether a file whose first lines tell no format may be one JSON document."""
    return start.removeprefix(BOM).lstrip()[:1] in (b"{", b"[")


def detect_document(data: bytes) -> str | None:
    """The agent format one JSON document is in; None when it is not one, or of none."""
    if not _may_be_document(data):
        return None
    try:
        value = orjson.loads(data.removeprefix(BOM))
    except orjson.JSONDecodeError:
        return None
    if _otlp(value):  # one export request saved whole, as an exporter posts it
        return OTEL
    return _claimed(Layout.DOCUMENT, value)


def _otlp(value: object) -> bool:
    return isinstance(value, dict) and any(isinstance(value.get(k), list) for k in OTLP_SIGNALS)


def detect_database(path: str) -> str | None:
    """The agent format a SQLite database is in, from its tables; None when of none. One that
    cannot be opened is known by its name only (`AgentFormat.file_names`): its parser says why."""
    try:
        tables = sqlite_read.tables(path)
    except sqlite3.Error:
        return _named(path)
    return _claimed(Layout.DATABASE, tables)


def _named(path: str) -> str | None:
    """The agent format whose databases are named like `path`, if one is."""
    name = os.path.basename(path)
    for agent_format in agent_formats():
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in agent_format.file_names):
            return agent_format.name
    return None


def _claimed(layout: Layout, value: Any) -> str | None:
    for agent_format in agent_formats():
        if agent_format.layout is layout and agent_format.claims(value):
            return agent_format.name
    return None


def detect(data: bytes) -> str | None:
    """The format of a log from its first non-empty lines; None when none fits."""
    if data.startswith(BOM):
        data = data[len(BOM) :]
    start, seen = 0, 0
    while start < len(data) and seen < HEAD_LINES:
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        line = data[start:end].strip()
        start = end + 1
        if not line:
            continue
        seen += 1
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            telemetry = _telemetry(value)  # shapes no agent's log has, some keys shared
            if telemetry is not None:
                return telemetry
            claimed = _claimed(Layout.LINES, value)
            if claimed is not None:
                return claimed
            if foreign(value):
                return None  # another agent's log: never read as one of these
            found = classify(value)
            if found is not None:
                return found
    return None


def _telemetry(record: dict[str, Any]) -> str | None:
    """`OTEL` for an OpenTelemetry export request, `OTEL_BODIES` for a line of the index of
    Claude Code's API bodies; None for anything else."""
    if _otlp(record):
        return OTEL
    if {"request_id", "request_file", "response_file"} <= record.keys():
        return OTEL_BODIES
    return None


def foreign(record: dict[str, Any]) -> bool:
    """Whether a record is another agent's that shares Claude Code's words (`type: "user"`,
    `sessionId`, `parentUuid`, `message.usage`): Qwen Code copies its envelope around Gemini's
    usage, Gemini CLI keys sessions by `sessionId`, pi, OpenClaw and Droid write `message`
    records. Read as transcripts, they gave a format and no request, with no warning."""
    kind, message = record.get("type"), record.get("message")
    return (
        bool(FOREIGN_KEYS & record.keys())
        or (isinstance(message, dict) and "parts" in message and "content" not in message)
        or kind in FOREIGN_TYPES
        or (kind in PI_TYPES and "uuid" not in record)
        or ("session_id" in record and "sessionId" not in record and "payload" not in record)
    )


def classify(record: dict[str, Any]) -> str | None:
    """The format one record belongs to, or None when it does not tell."""
    kind = record.get("type")
    if isinstance(record.get("payload"), dict) and kind in CODEX_TYPES:
        return CODEX
    request = record.get("request")
    if isinstance(request, dict):
        if "url" in request or "method" in request or "logged_at" in record:
            return CLAUDE_TRACE
        if "model" in request or "messages" in request or "input" in request:
            return REQUEST_LOG
    if kind in CLAUDE_CODE_TYPES or "sessionId" in record or "parentUuid" in record:
        return CLAUDE_CODE
    message = record.get("message")
    if "leafUuid" in record or (isinstance(message, dict) and "usage" in message):
        return CLAUDE_CODE
    return None
