"""Provides the parser of OpenTelemetry exports as they land on disk (OTLP/JSON): what `sniff
otel` writes and the OpenTelemetry Collector's file exporter writes (one export request a
line), or one export request saved as a `.json` document.

Claude Code's signals are read by `claude_code`; other agents' (the GenAI semantic
conventions) by `genai`. Each call's event and span become `Response`s of one key, joined to
their transcript by `ingest.telemetry`. A line that is no JSON, or no export request, is
skipped and counted; every other line still counts.
"""

from __future__ import annotations

from typing import Any

import orjson

from sniff.ingest.files.lines import BOM, CUT_SHORT
from sniff.ingest.formats.otel.claude_code import SERVICE, Found, claude_code_signal
from sniff.ingest.formats.otel.genai import genai_signal
from sniff.ingest.formats.otel.signals import is_export, signals
from sniff.ingest.record import FileResult, Prompts, Response
from sniff.model import Activity, AgentEvent, LineIssue, ToolCall, ToolResult

SOURCE = "otel"
NOT_EXPORT = "not an OpenTelemetry export request (OTLP/JSON)"
NOT_JSON = "not valid JSON"


def parse_data(path: str, data: bytes, project_hint: str, with_prompts: Prompts) -> FileResult:
    """What one file of OTLP/JSON export requests yields."""
    del with_prompts  # telemetry holds no prompt (raw bodies are read apart)
    issues: list[LineIssue] = []
    found: list[Found] = []
    for number, export in _exports(path, data.removeprefix(BOM), issues):
        for signal in signals(export, number):
            read = (
                claude_code_signal(signal, path, project_hint)
                if signal.resource.get("service.name") == SERVICE
                else genai_signal(signal, path, project_hint)
            )
            if read is not None:
                found.append(read)
    return FileResult(
        [item for item in found if isinstance(item, Response)], issues, 0, SOURCE, _activity(found)
    )


def _exports(path: str, data: bytes, issues: list[LineIssue]) -> list[tuple[int, dict[str, Any]]]:
    """The export requests of a file, each with its line: one a line, or one document."""
    try:
        whole = orjson.loads(data)
    except orjson.JSONDecodeError:
        whole = None
    if is_export(whole):
        return [(1, whole)]
    exports = []
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            cut = number == len(lines) and not data.endswith(b"\n")
            issues.append(LineIssue(path, number, CUT_SHORT if cut else NOT_JSON))
            continue
        if is_export(value):
            exports.append((number, value))
        else:
            issues.append(LineIssue(path, number, NOT_EXPORT))
    return exports


def _activity(found: list[Found]) -> Activity | None:
    calls = tuple(item for item in found if isinstance(item, ToolCall))
    results = tuple(item for item in found if isinstance(item, ToolResult))
    events = tuple(item for item in found if isinstance(item, AgentEvent))
    return Activity(calls, results, events) if calls or results or events else None
