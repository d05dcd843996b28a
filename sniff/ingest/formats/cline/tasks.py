"""Provides the parser of the classic task store of Cline, Roo Code and Kilo Code
(`<VS Code globalStorage>/<extension id>/tasks/<taskId>/ui_messages.json`): each
`api_req_started` row that holds token counts is one model call.

Why these choices:
- The agent: the extension's folder in the path (`saoudrizwan.claude-dev` Cline,
  `rooveterinaryinc.roo-cline` Roo Code, `kilocode.kilo-code` Kilo Code); Cline otherwise (its
  CLI keeps `~/.cline/data/tasks/`).
- Usage is a JSON text inside the row, written as a placeholder when the request goes out and
  rewritten when its stream ends; an older Cline wrote the counts in a separate
  `api_req_finished` row, which fills in the request before it. A row left without counts (a
  cancelled or failed stream, a request still running) or with only zeros was no billed call.
- Whether `tokensIn` includes the cache differs by agent and version, so it is decided per row:
  - `apiProtocol: "openai"` (Roo, Kilo): the provider's prompt count, cache included, in every
    version;
  - Roo Code and Kilo Code since `TOTAL_INPUT_SINCE` (Roo's 416fa572, "Fix cost and token
    tracking between provider styles"): the total for the Anthropic protocol too;
  - otherwise (Cline, older Roo and Kilo) disjoint: `tokensIn` excludes cache reads and writes,
    as Cline's own import of these tasks reads it (it adds them back).
  Where a row says it includes them but counts less input than cache, it cannot: it is read as
  disjoint. Included, they are subtracted once. Reasoning is not recorded apart from output.
- Time: the row's `ts`, when the request was sent (the row keeps it when rewritten).
- Model and project: a row's `modelInfo` (newer Cline) names the model; otherwise the first
  `<model>` tag of the environment details in `api_conversation_history.json` beside it (Roo,
  Kilo) does, and its "Current Working/Workspace Directory" names the project.
- Not read: `condense_context` rows log a compaction's cost without its tokens, so they are no
  call with usage; there are no tool-call ids to build tool activity from.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path, PurePath

import msgspec
import orjson

from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files.lines import BOM
from sniff.ingest.formats.cline.wire import ApiRequest, UiMessage
from sniff.ingest.plausible import IMPLAUSIBLE_USAGE, counted, epoch
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, Tokens
from sniff.model import Agent, Harness, LineIssue

SOURCE = "cline-tasks"
EXTENSIONS = {
    "saoudrizwan.claude-dev": Harness.CLINE,
    "rooveterinaryinc.roo-cline": Harness.ROO_CODE,
    "kilocode.kilo-code": Harness.KILO_CODE,
}
"""VS Code extension ids (their globalStorage folders, any case) → the agent."""
TOTAL_INPUT_SINCE = datetime(2025, 10, 31, tzinfo=UTC).timestamp()
"""From this day Roo Code (and Kilo Code, which carries the change) writes the total input."""
TOTAL_INPUT = frozenset({Harness.ROO_CODE, Harness.KILO_CODE})
HISTORY = "api_conversation_history.json"
HISTORY_HEAD = 256 * 1024
"""Bytes of the conversation read for its environment details: its first user turn's."""
_CWD = re.compile(rb"Current (?:Working|Workspace) Directory \((.+?)\) Files")
_MODEL = re.compile(rb"<model>([^<\\]+)</model>")

_ROWS = msgspec.json.Decoder(list[msgspec.Raw])
_ROW = msgspec.json.Decoder(UiMessage)
_REQUEST = msgspec.json.Decoder(ApiRequest)


def claims(value: object) -> bool:
    """A JSON array whose first rows are `say`/`ask` messages stamped with a `ts`."""
    if not isinstance(value, list) or not value:
        return False
    return all(
        isinstance(row, dict) and row.get("type") in ("say", "ask") and "ts" in row
        for row in value[:5]
    )


def harness_of(path: str) -> Harness:
    """The agent whose task store a path lies in; Cline when none is named."""
    for part in PurePath(path).parts:
        found = EXTENSIONS.get(part.lower())
        if found is not None:
            return found
    return Harness.CLINE


def parse(path: str, data: bytes, project_hint: str, with_prompts: Prompts) -> FileResult:
    """Read one `ui_messages.json`."""
    del with_prompts  # the prompt sits in api_conversation_history.json: not read
    try:
        rows = _ROWS.decode(data.removeprefix(BOM))
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
        return FileResult([], [LineIssue(path, 0, f"not a task's ui_messages: {error}")], 0, SOURCE)
    issues: list[LineIssue] = []
    requests = _requests(path, rows, issues)
    harness = harness_of(path)
    project, logged_model = _environment(path)
    task = PurePath(path).parent.name or PurePath(path).stem
    responses = []
    for index, (row, request, model) in requests.items():
        tokens = _tokens(request, harness, epoch(row.ts))
        if any(tokens):
            where = (harness, task, project or project_hint, model or logged_model)
            responses.append(_response(path, index, row, request, tokens, where))
    return FileResult(responses, issues, 0, SOURCE)


def _requests(
    path: str, rows: list[msgspec.Raw], issues: list[LineIssue]
) -> dict[int, tuple[UiMessage, ApiRequest, tuple[str, str] | None]]:
    """Row number → (row, its usage, its (model, provider)) of every `api_req_started` row,
    an `api_req_finished` row's counts filled into the request before it."""
    found: dict[int, tuple[UiMessage, ApiRequest, tuple[str, str] | None]] = {}
    last: int | None = None
    for index, raw in enumerate(rows, start=1):
        try:
            row = _ROW.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError) as error:
            issues.append(LineIssue(path, index, f"not a task message: {error}"))
            continue
        if row.say not in ("api_req_started", "api_req_finished"):
            continue
        try:
            request = _REQUEST.decode(row.text or "{}")
        except msgspec.ValidationError as error:
            issues.append(LineIssue(path, index, f"{IMPLAUSIBLE_USAGE}: {error}"))
            continue
        except (msgspec.DecodeError, RecursionError):
            issues.append(LineIssue(path, index, f"{row.say} text is not a JSON object"))
            continue
        if row.say == "api_req_started":
            info = row.modelInfo
            model = (info.modelId, info.providerId or "unknown") if info and info.modelId else None
            found[index] = (row, request, model)
            last = index
        elif last is not None:
            started, usage, model = found[last]
            found[last] = (started, _filled(usage, request), model)
    return found


def _filled(started: ApiRequest, finished: ApiRequest) -> ApiRequest:
    """A request's usage with the counts its `api_req_finished` row adds."""
    return msgspec.structs.replace(
        started,
        **{
            name: getattr(finished, name)
            for name in ApiRequest.__struct_fields__
            if getattr(started, name) is None
        },
    )


def _tokens(request: ApiRequest, harness: Harness, at: float | None) -> Tokens:
    read, write = counted(request.cacheReads), counted(request.cacheWrites)
    tokens_in, output = counted(request.tokensIn), counted(request.tokensOut)
    total = request.apiProtocol == "openai" or (
        harness in TOTAL_INPUT and at is not None and at >= TOTAL_INPUT_SINCE
    )
    uncached = tokens_in - read - write if total and tokens_in >= read + write else tokens_in
    return Tokens(uncached, read, write, 0, output, 0)


def _environment(path: str) -> tuple[str | None, tuple[str, str] | None]:
    """The project and model the task's first environment details name, where they do."""
    try:
        with open(Path(path).with_name(HISTORY), "rb") as handle:
            head = handle.read(HISTORY_HEAD)
    except OSError:
        return None, None
    cwd, model = _CWD.search(head), _MODEL.search(head)
    return (
        _json_text(cwd.group(1)) if cwd else None,
        (_json_text(model.group(1)) or "", "unknown") if model else None,
    )


def _json_text(escaped: bytes) -> str | None:
    """A string as it sits inside a JSON text (escapes and all), decoded."""
    try:
        value = orjson.loads(b'"' + escaped + b'"')
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) and value else None


def _response(
    path: str,
    index: int,
    row: UiMessage,
    request: ApiRequest,
    tokens: Tokens,
    where: tuple[Harness, str, str, tuple[str, str] | None],
) -> Response:
    """`where`: the agent, the task (the session), the project and the (model, provider)."""
    harness, task, project, model = where
    name, provider = model or ("(unknown)", "unknown")
    return Response(
        SOURCE,
        f"{SOURCE}:{task}:{row.ts}",
        TOP_LEVEL,
        tokens,
        tokens.cache_write_5m > 0 and "claude" in name.lower(),  # only Anthropic's have a TTL
        name,
        provider,
        task,
        Agent.MAIN,
        Agent.MAIN.value,
        project,
        None,
        epoch(row.ts),
        None,
        None,
        path,
        index,
        harness=harness,
        reported_cost_usd=request.cost,
    )


FORMATS = (AgentFormat(SOURCE, Layout.DOCUMENT, claims, parse),)
