"""Provides `analyze_agents`: which tools agents used, which failed and why, and what each
user request led to.

Counts are exact: each tool call is one `tool_use` block of a deduplicated response (a Codex
function or custom tool call), each failure one `tool_result` marked `is_error` (a Codex output
stating a failure, or an API error entry, or an interruption), each user request one message the
user typed (see `ingest.formats.claude_code.activity`, `ingest.formats.codex.activity`); the
texts of requests and failures are shown with their credentials redacted (`redact_secrets`). A
call whose outcome the log does not state is counted as such, never as a success; a call
cancelled because a parallel one failed is listed with the failures but is none of them
(`tool_errors.NOT_FAILURES`). What a tool's results added to the context comes from usage: the
prompt of the request that carried the results, less the prompt and output of the request that
asked for the tools. It is exact when that request asked for one tool; shared equally among its
tools (and labelled so) otherwise.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo

from sniff.analyses.agents.attribution import Attribution, ServerUse, attribute
from sniff.analyses.agents.tool_errors import (
    API_ERROR,
    CANCELLED_SIBLING,
    ERROR_CLASSES,
    NOT_FAILURES,
    USER_INTERRUPTED,
    classify,
)
from sniff.analyses.cost.summary import LocalDays
from sniff.ingest.formats.claude_code import reader as claude_code
from sniff.ingest.formats.cline import reader as cline
from sniff.ingest.formats.codex import reader as codex
from sniff.ingest.formats.opencode import calls as opencode_calls
from sniff.model import Activity, AgentEvent, Request, ToolCall
from sniff.redact_secrets import redact_secrets

BUILT_IN = "built-in"
SUBAGENTS = "subagents"
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
EXAMPLES = 3
ACTIVITY_FORMATS = frozenset(
    {
        claude_code.SOURCE,
        codex.SOURCE,
        cline.SOURCE,
        opencode_calls.SOURCE,
        "pi",
        "kimi",
        "copilot",
        "amp",
        "droid",
        "gemini-cli",
        "qwen-code",
        "otel",  # Claude Code's `tool_decision` and `tool_result` events
    }
)
"""Log formats that record what agents did (their tool calls and results); the others (API
request logs, agents that log usage only) hold requests only."""


OUTCOMES = ("ok", "failed", "cancelled", "unknown")
"""A tool call's outcome: succeeded, failed, cancelled for a failed sibling (no failure of its
own), or not stated by the log (no result, or one outside the window read)."""


@dataclass(frozen=True, slots=True)
class ToolUse:
    """One tool call, its outcome, and what its results added to the context."""

    call: ToolCall
    server: str
    outcome: str
    """One of `OUTCOMES`."""
    error_class: str | None
    """The class (`tool_errors.ERROR_CLASSES`) of a failed or cancelled call."""
    result_tokens: int
    """Its share of the prompt tokens its results added to the next request (see the module
    docstring); 0 where that is not known (no next request, or the context shrank)."""
    exact: bool
    """`result_tokens` is exact: the request asked for no other tool."""
    at: datetime | None
    """When the response asking for it was logged, where the log tells."""


@dataclass(slots=True)
class ToolRow:
    """One tool: how often it ran, failed, and what its results added to the context."""

    tool: str
    server: str
    """`built-in`, `subagents` (Task launches) or the MCP server (`mcp__<server>__<tool>`)."""
    calls: int = 0
    errors: int = 0
    """Failed calls (not counting the cancelled ones)."""
    result_tokens: int = 0
    """Prompt tokens its results added to the next request (see the module docstring)."""
    exact_calls: int = 0
    """Calls whose `result_tokens` share is exact (the request asked for no other tool)."""
    cost_usd: float | None = None
    """Its share of the cost of the requests that asked for it, each shared equally among the
    tools it asked for (as an MCP server's is: `analyses.agents.attribution`); None when none of
    them is priced."""


@dataclass(slots=True)
class ErrorRow:
    """One class of failure."""

    error_class: str
    description: str
    count: int = 0
    examples: list[tuple[str, str, float | None]] = field(default_factory=list)
    """Up to three (tool, text excerpt, time in epoch seconds)."""


@dataclass(frozen=True, slots=True)
class CommandRow:
    """One user request and what it led to, until the next request of its session."""

    at: float
    """When the user made it (epoch seconds)."""
    session_id: str
    project: str
    text: str
    command: str | None
    model_calls: int
    tool_calls: int
    cost_usd: float
    unpriced_calls: int
    interrupted: bool
    request_keys: tuple[str, ...] = ()
    """The model calls it led to (`model_calls` of them), by request key, in time order."""


@dataclass(frozen=True, slots=True)
class Spread:
    """A distribution's middle, tail and top."""

    median: float
    p90: float
    maximum: float


@dataclass(frozen=True, slots=True)
class AgentReport:
    """`sniff agents`."""

    tools: list[ToolRow]
    servers: list[tuple[str, int, int]]
    """(server, calls, errors), most calls first."""
    tools_by_project: dict[str, dict[str, int]]
    tools_by_day: dict[str, dict[str, int]]
    results: int
    """Tool results seen (successes and failures)."""
    errors: list[ErrorRow]
    errors_by_day: list[tuple[str, int, int]]
    """(day, tool results, failures)."""
    interruptions: int
    """User requests the user interrupted."""
    commands: list[CommandRow]
    steps: Spread | None
    """Model calls per user request that reached the model."""
    cost: Spread | None
    """Dollars per user request that reached the model."""
    unknown_outcomes: int = 0
    """Tool calls whose outcome the log does not state (no result, or one stating none)."""
    without_activity: tuple[str, ...] = ()
    """Log formats of the requests that record no agent activity at all."""
    attribution: Attribution = field(default_factory=Attribution)
    """Cost by subagent type, subagent run, skill and MCP server."""

    @property
    def calls(self) -> int:
        """Tool calls."""
        return sum(row.calls for row in self.tools)

    @property
    def has_activity(self) -> bool:
        """Whether the logs hold any tool call, result or user request."""
        return bool(self.tools or self.results or self.commands or self.errors)

    @property
    def failures(self) -> int:
        """Failed tool results and API errors (calls cancelled for a sibling's failure are not)."""
        return sum(row.count for row in self.errors if row.error_class not in NOT_FAILURES)

    @property
    def cancelled(self) -> int:
        """Parallel calls cancelled because another one failed."""
        return sum(row.count for row in self.errors if row.error_class == CANCELLED_SIBLING)

    @property
    def api_errors(self) -> int:
        """API errors (not tool results)."""
        return sum(row.count for row in self.errors if row.error_class == API_ERROR)

    @property
    def tool_failures(self) -> int:
        """Failed tool results: the failures that were not API errors."""
        return self.failures - self.api_errors

    @property
    def tool_failure_rate(self) -> float | None:
        """Failed tool results per tool result."""
        return self.tool_failures / self.results if self.results else None

    @property
    def interruption_rate(self) -> float | None:
        """Interruptions per user request."""
        return self.interruptions / len(self.commands) if self.commands else None


def tool_server(name: str) -> str:
    """Where a tool comes from: an MCP server, a subagent launch, or Claude Code itself."""
    if name.startswith("mcp__"):
        server, _, _ = name[len("mcp__") :].partition("__")
        return server or name
    return SUBAGENTS if name in SUBAGENT_TOOLS else BUILT_IN


def analyze_agents(requests: Sequence[Request], activity: Activity, zone: tzinfo) -> AgentReport:
    """The agent analytics of `requests` and the activity read with them."""
    names = {call.id: call.name for call in activity.calls}
    day = LocalDays(zone)
    tools: dict[str, ToolRow] = {}
    by_project: dict[str, Counter[str]] = {}
    by_day: dict[str, Counter[str]] = {}
    uses = tool_uses(requests, activity)
    by_key = {request.key: request for request in requests}
    asked = Counter(call.key for call in activity.calls)
    for use in uses:
        name = use.call.name
        row = tools.get(name)
        if row is None:
            row = tools[name] = ToolRow(name, use.server)
        asking = by_key.get(use.call.key)
        if asking is not None and asking.cost is not None:
            row.cost_usd = (row.cost_usd or 0.0) + asking.cost.total_usd / asked[use.call.key]
        row.calls += 1
        row.errors += use.outcome == "failed"
        row.result_tokens += use.result_tokens
        row.exact_calls += use.exact
        by_project.setdefault(use.call.project, Counter())[name] += 1
        if use.at is not None:
            by_day.setdefault(day(use.at), Counter())[name] += 1
    errors, per_day = _failures(activity, names, day)
    servers: dict[str, list[int]] = {}
    for row in tools.values():
        totals = servers.setdefault(row.server, [0, 0])
        totals[0] += row.calls
        totals[1] += row.errors
    commands = _commands(requests, activity)
    return AgentReport(
        tools=sorted(tools.values(), key=lambda row: (-row.calls, row.tool)),
        servers=sorted(((s, c, e) for s, (c, e) in servers.items()), key=lambda r: (-r[1], r[0])),
        tools_by_project={p: dict(c.most_common()) for p, c in sorted(by_project.items())},
        tools_by_day={d: dict(c.most_common()) for d, c in sorted(by_day.items())},
        results=len(activity.results),
        errors=[row for row in errors.values() if row.count],
        errors_by_day=per_day,
        interruptions=sum(command.interrupted for command in commands),
        commands=commands,
        # requests that reached the model: a local command (/cost, /model) calls none
        steps=_spread([float(c.model_calls) for c in commands if c.model_calls]),
        cost=_spread([c.cost_usd for c in commands if c.model_calls]),
        unknown_outcomes=sum(use.outcome == "unknown" for use in uses),
        without_activity=tuple(sorted({r.source for r in requests} - ACTIVITY_FORMATS)),
        attribution=attribute(requests, activity, _mcp(uses)),
    )


def _mcp(uses: list[ToolUse]) -> list[ServerUse]:
    """The calls of MCP servers' tools."""
    return [
        ServerUse(use.call, use.server, use.outcome == "failed", use.result_tokens)
        for use in uses
        if use.call.name.startswith("mcp__")
    ]


def _failed(error: str | None) -> bool:
    """Whether a result with this failure text (None: it succeeded) is a failure of its call."""
    return error is not None and classify(error) not in NOT_FAILURES


def tool_uses(requests: Sequence[Request], activity: Activity) -> list[ToolUse]:
    """Every tool call of `activity`, in its order, with its outcome and result tokens: the
    rows `analyze_agents` sums per tool."""
    by_id = {result.tool_use_id: result for result in activity.results}
    shares = _result_shares(activity.calls, requests)
    uses = []
    for call, (tokens, exact) in zip(activity.calls, shares, strict=True):
        result = by_id.get(call.id)
        error = None if result is None else result.error
        error_class = None if error is None else classify(error, call.name)
        if result is None:
            outcome = "unknown"
        elif error is None:
            outcome = "ok"
        else:
            outcome = "failed" if _failed(error) else "cancelled"
        server = tool_server(call.name)
        uses.append(ToolUse(call, server, outcome, error_class, tokens, exact, _moment(call.at)))
    return uses


def _result_shares(
    calls: Sequence[ToolCall], requests: Sequence[Request]
) -> list[tuple[int, bool]]:
    """Each call's share of the context its results added (from the next request's usage),
    and whether that share is exact."""
    by_key = {request.key: request for request in requests}
    asked: dict[str, list[int]] = {}
    for index, call in enumerate(calls):
        asked.setdefault(call.key, []).append(index)
    carried_by: dict[str, Request] = {}
    for request in sorted(requests, key=lambda r: r.when):
        if request.previous and request.previous not in carried_by:
            carried_by[request.previous] = request
    shares = [(0, False)] * len(calls)
    for key, its_calls in asked.items():
        asking, carrying = by_key.get(key), carried_by.get(key)
        if asking is None or carrying is None:
            continue
        added = (
            carrying.usage.prompt_tokens - asking.usage.prompt_tokens - asking.usage.output_tokens
        )
        if added <= 0:  # the context was compacted or cleared in between
            continue
        share, rest = divmod(added, len(its_calls))
        for position, index in enumerate(its_calls):
            shares[index] = (share + (1 if position < rest else 0), len(its_calls) == 1)
    return shares


def _failures(
    activity: Activity, names: dict[str, str], day: LocalDays
) -> tuple[dict[str, ErrorRow], list[tuple[str, int, int]]]:
    """Failures by class (with examples), and tool results and failures per day."""
    rows = {name: ErrorRow(name, description) for name, description in ERROR_CLASSES.items()}
    per_day: dict[str, list[int]] = {}
    for result in activity.results:
        when = _moment(result.at)
        counts = per_day.setdefault(day(when), [0, 0]) if when is not None else [0, 0]
        counts[0] += 1
        if result.error is None:
            continue
        counts[1] += _failed(result.error)
        tool = names.get(result.tool_use_id, "")
        _count(rows[classify(result.error, tool or None)], tool, result.error, result.at)
    for event in activity.events:
        if event.kind == "api_error":
            _count(rows["api_error"], "", event.text, event.at)
    return rows, [(key, counts[0], counts[1]) for key, counts in sorted(per_day.items())]


def _count(row: ErrorRow, tool: str, text: str, at: float | None) -> None:
    row.count += 1
    if len(row.examples) < EXAMPLES:
        row.examples.append((tool, redact_secrets(text), at))


def _commands(requests: Sequence[Request], activity: Activity) -> list[CommandRow]:
    """Each user request with the model calls, tool calls and cost until the next one."""
    asked_by_key = Counter(call.key for call in activity.calls)
    by_session: dict[str, list[tuple[float, int, object]]] = {}
    for event in activity.events:
        if event.at is not None and event.kind in ("instruction", "interrupt"):
            by_session.setdefault(event.session_id, []).append((event.at, 0, event))
    for request in requests:
        if request.session_id in by_session:
            by_session[request.session_id].append((request.when.timestamp(), 1, request))
    for result in activity.results:
        interrupted = result.error is not None and classify(result.error) == USER_INTERRUPTED
        if interrupted and result.at is not None and result.session_id in by_session:
            by_session[result.session_id].append((result.at, 2, None))
    rows: list[CommandRow] = []
    for timeline in by_session.values():
        timeline.sort(key=lambda item: (item[0], item[1]))
        current: _Open | None = None
        for _, _, item in timeline:
            if isinstance(item, AgentEvent) and item.kind == "instruction":
                if current is not None:
                    rows.append(current.row())
                current = _Open(item)
            elif current is None:
                continue
            elif isinstance(item, Request):
                current.add(item, asked_by_key.get(item.key, 0))
            else:  # an interruption, as an event or as a tool result
                current.interrupted = True
        if current is not None:
            rows.append(current.row())
    rows.sort(key=lambda row: (row.at, row.session_id))
    return rows


class _Open:
    """A user request still collecting what it led to."""

    def __init__(self, event: AgentEvent) -> None:
        assert event.at is not None  # only dated requests open one
        self.event, self.at = event, event.at
        self.tool_calls = self.unpriced = 0
        self.cost = 0.0
        self.interrupted = False
        self.keys: list[str] = []

    def add(self, request: Request, tool_calls: int) -> None:
        self.keys.append(request.key)
        self.tool_calls += tool_calls
        if request.cost is None:
            self.unpriced += 1
        else:
            self.cost += request.cost.total_usd

    def row(self) -> CommandRow:
        event = self.event
        text = redact_secrets(event.text)
        return CommandRow(
            self.at, event.session_id, event.project, text, event.command,
            len(self.keys), self.tool_calls, self.cost, self.unpriced, self.interrupted,
            tuple(self.keys),
        )  # fmt: skip


def _spread(values: list[float]) -> Spread | None:
    if not values:
        return None
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return Spread(statistics.median(ordered), p90, ordered[-1])


def _moment(at: float | None) -> datetime | None:
    return None if at is None else datetime.fromtimestamp(at, UTC)


def command_requests(requests: Sequence[Request], command: CommandRow) -> list[Request]:
    """The model calls `command` led to (its `request_keys`, the ones its `model_calls` counts),
    out of `requests` (those it was analysed from), in time order."""
    keys = set(command.request_keys)
    return sorted(
        (request for request in requests if request.key in keys), key=lambda request: request.when
    )
