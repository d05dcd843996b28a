"""Provides the normalized records every parser produces and every analysis reads.

Why: the logs of different tools disagree on almost everything (what "input" means, where a
session starts, how a response is split across lines). Parsers settle those differences once,
here, into provider-neutral records; nothing downstream ever sees a raw JSON dict.

The records are frozen `msgspec.Struct`s: immutable and typed like frozen dataclasses, but built
in C. A scan creates several records per API call, hundreds of thousands per run, and frozen
dataclasses spent more time being constructed than the JSON took to parse.

Lint's findings are records of another kind: `sniff.findings`.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

import msgspec

from sniff.first_hand import CacheDiagnosis, FirstHand


class Agent(StrEnum):
    """Which part of an agent harness made a request."""

    MAIN = "main"
    """The conversation the user is typing into."""
    SUBAGENT = "subagent"
    """A delegated agent (Claude Code's Task tool, sidechains)."""
    COMPACTION = "compaction"
    """The call that summarises a conversation when it is compacted."""
    OTHER = "other"
    """Background calls of a harness (quota probes, titles) and calls of unknown role."""


class Harness(StrEnum):
    """Which agent (or client) made a request: the tool whose log it is."""

    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    GEMINI_CLI = "gemini-cli"
    QWEN_CODE = "qwen-code"
    OPENCODE = "opencode"
    KILO = "kilo"
    """Kilo CLI, OpenCode's fork (`kilo.db`)."""
    PI = "pi"
    OPENCLAW = "openclaw"
    KIMI = "kimi"
    CLINE = "cline"
    ROO_CODE = "roo-code"
    KILO_CODE = "kilo-code"
    """The Kilo Code extension (Cline's classic task store)."""
    COPILOT = "copilot"
    AMP = "amp"
    DROID = "droid"
    GOOSE = "goose"
    API = "api"
    """A client of the API itself (request logs)."""


class Reported(msgspec.Struct, frozen=True, gc=False):
    """An amount an agent logged in a unit of its own (Amp's credits, Copilot's nano-AIU)."""

    value: float
    unit: str


class TokenSums:
    """The sums of Anthropic's disjoint token classes, for whatever holds the classes: one
    call's `Usage`, or a group's `analyses.cost.summary.Totals`."""

    __slots__ = ()
    input_tokens: int
    cache_read_tokens: int
    cache_write_5m_tokens: int
    cache_write_1h_tokens: int
    output_tokens: int

    @property
    def cache_write_tokens(self) -> int:
        """All cache writes, whatever their lifetime."""
        return self.cache_write_5m_tokens + self.cache_write_1h_tokens

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt: uncached input, cache reads and cache writes."""
        return (
            self.input_tokens
            + self.cache_read_tokens
            + self.cache_write_5m_tokens
            + self.cache_write_1h_tokens
        )

    @property
    def total_tokens(self) -> int:
        """Prompt plus output."""
        return self.prompt_tokens + self.output_tokens


class Usage(msgspec.Struct, TokenSums, frozen=True, gc=False):
    """Tokens of one API call in Anthropic's disjoint classes, whatever the provider reported.

    `input_tokens` is *uncached* input only; providers that report cached tokens as a subset of
    input (OpenAI, Codex, Gemini) are converted on ingest.
    """

    input_tokens: int = 0
    """Prompt tokens neither read from nor written to the cache."""
    cache_read_tokens: int = 0
    """Prompt tokens read from the cache."""
    cache_write_5m_tokens: int = 0
    """Prompt tokens written to the cache with a 5-minute lifetime."""
    cache_write_1h_tokens: int = 0
    """Prompt tokens written to the cache with a 1-hour lifetime."""
    output_tokens: int = 0
    """Generated tokens, reasoning included."""
    reasoning_tokens: int = 0
    """The reasoning share of `output_tokens`, where the provider reports it."""


class Cost(msgspec.Struct, frozen=True, gc=False):
    """The dollar cost of one request, split by token class, or why it has none."""

    input_usd: float
    cache_read_usd: float
    cache_write_5m_usd: float
    cache_write_1h_usd: float
    output_usd: float
    uncached_usd: float
    """What the same request would have cost with every prompt token at the base input price."""

    @property
    def total_usd(self) -> float:
        """The request's cost."""
        return (
            self.input_usd
            + self.cache_read_usd
            + self.cache_write_5m_usd
            + self.cache_write_1h_usd
            + self.output_usd
        )

    @property
    def savings_usd(self) -> float:
        """Money caching saved on this request (negative when writes cost more than reads saved)."""
        return self.uncached_usd - self.total_usd


class Block(msgspec.Struct, frozen=True, gc=False):
    """One block of a prompt: a tool definition, a system block or a message content block."""

    kind: str
    """`tool`, `system`, `text`, `image`, `tool_use`, `tool_result`, `thinking`, ..."""
    role: str
    """`tools`, `system`, `user` or `assistant`."""
    content_hash: str
    """Canonical hash of the block's content."""
    tokens: int
    """Token count of the block."""
    cache_control: str | None = None
    """The cache-control mark on the block (`5m`, `1h`), if any."""
    text: str | None = None
    """What the model reads of it: its text, or for tools and structured blocks their JSON as
    written (keys in their order, no cache-control mark); read under `Prompts.TEXT` only."""
    path: str | None = None
    """Where it sits in the request: `system[0]`, `tools[2]`, `messages[3].content[0]`, ...
    (under `Prompts.TEXT` only)."""


class Sent(msgspec.Struct, frozen=True, gc=False):
    """What a logged request body says beside its prompt's blocks (under `Prompts.TEXT`)."""

    api: str
    """The API its body's shape is of: `anthropic-messages`, `openai-chat`, `openai-responses`."""
    model: str | None
    """The model the body asked for (the response may name another)."""
    params: dict[str, Any]
    """Settings that change the cached prefix: tool_choice, thinking, prompt_cache_key, ..."""
    label: str | None = None
    """The id the log gives the HTTP call (logged id, response id, request-id header)."""


class LimitReading(msgspec.Struct, frozen=True, gc=False):
    """An agent's own reading of one of its usage limits, at one moment: Claude Code's
    status-line `rate_limits`, Codex's `token_count` events' `rate_limits`."""

    harness: Harness
    window: str
    """Claude Code's `five_hour`, `seven_day`, `spend_limit`; Codex's `primary`, `secondary`."""
    used_percent: float
    at: float
    """When it was read (epoch seconds)."""
    resets_at: float | None = None
    """When the window resets (epoch seconds), where said."""
    window_minutes: int | None = None
    """The window's length, where said (Codex's `window_minutes`)."""


class Request(msgspec.Struct, frozen=True, gc=False):
    """One model API call, whatever log it came from."""

    source: str
    """The log format it was read from, e.g. `claude-code`."""
    key: str
    """The identity of the call within its source (message id, request id, ...)."""
    project: str
    """The project (working directory) the call was made for."""
    session_id: str
    agent: Agent
    agent_id: str
    """The agent chain within the session: `main`, or a subagent's id."""
    model: str
    provider: str
    ended_at: datetime
    """When the response was complete (timezone-aware, UTC)."""
    usage: Usage
    file: str
    """Provenance: the file the kept line came from."""
    line: int
    """Provenance: the 1-based line number within `file`."""
    started_at: datetime | None = None
    """When the request was sent (for Claude Code: when the record it answers was written)."""
    first_token_at: datetime | None = None
    """When the first content of the response arrived, where the log tells."""
    ttl_assumed: bool = False
    """True when the log does not say which TTL cache writes used and 5 minutes was assumed."""
    version: str | None = None
    """The agent's version (Claude Code's `version` field)."""
    cost: Cost | None = None
    """The priced cost, or None when the model has no known price."""
    blocks: tuple[Block, ...] = ()
    """The prompt as ordered blocks, where the log holds the prompt."""
    error: str | None = None
    """Why the call failed (no response, an error status); None when it succeeded."""
    previous: str | None = None
    """Key of the call whose conversation this one continues, where the log links them
    (Claude Code's `parentUuid` chain); None at the start of a chain."""
    opens_turn: bool = False
    """Its prompt ends with new user content (not only tool results), where the log tells:
    the point where older models drop earlier thinking blocks from the context."""
    thinks: bool = False
    """Its response holds thinking blocks, where the log tells."""
    compacted: bool = False
    """It is the first call after the log marks its conversation compacted."""
    sent: Sent | None = None
    """What its request body said beside the blocks, where the log holds it (`Prompts.TEXT`)."""
    harness: Harness = Harness.CLAUDE_CODE
    """The agent whose log it is (`agent` says which part of that agent made it)."""
    reported_cost_usd: float | None = None
    """What the agent itself logged the call cost in dollars, where it logs one."""
    reported_units: Reported | None = None
    """What the agent logged in a unit that is not dollars (credits, AIU), where it logs one."""
    rollup: bool = False
    """It is the totals of many calls as the agent logged them (a session's, a segment's), not
    one call: counted in the bill, left out of every per-request analysis (breaks, latency)."""
    reasoning_apart: bool = False
    """Its `usage.reasoning_tokens` are not part of its `usage.output_tokens` (Gemini's
    thoughts, OpenCode's, Droid's and Goose's reasoning): billed beside the output, at its
    price. Elsewhere reasoning is the part of the output spent thinking."""
    calls: int = 1
    """The model calls it stands for: one, or a rollup's count as its agent logged it (0 where
    the agent logs none: Droid's and Goose's session totals)."""
    git_branch: str | None = None
    """The git branch the call was made on, where the log names one (Claude Code's
    `gitBranch`, Codex's `session_meta.git.branch`); None where it is absent or empty."""
    repository: str | None = None
    """The git repository the call was made in, where the log names one (Codex's
    `session_meta.git.repository_url`); None elsewhere."""
    visible_at: datetime | None = None
    """When the first content a user sees arrived (text, else a tool call, not thinking), where
    the log tells: for Claude Code, the time of the response's first line holding a `text`
    block, else its first `tool_use` line. An upper bound, as each line is written when its
    block is complete: approximate, as `first_token_at` is."""
    thinking_share: float | None = None
    """Thinking's share of its output tokens, estimated from the generated text where the log
    holds it (claude-trace's streamed deltas or bodies: `ingest.thinking_share`); None elsewhere."""
    first_hand: FirstHand | None = None
    """Where the agent's own telemetry reported the call: its times and cost are the agent's
    (`started_at`, `first_token_at`, `ended_at`, `reported_cost_usd`), and how it was joined."""
    cache_diagnosis: CacheDiagnosis | None = None
    """What the provider said of its prompt cache, where the log keeps it."""

    @property
    def when(self) -> datetime:
        """The time the request is booked at: its start where known, else its end."""
        return self.started_at or self.ended_at


NO_USAGE = "read as a log of its format, but it holds no usage and no record sniff reads"
"""The reason given, as an issue of the whole file (line 0, kept), for another agent's log that
yields nothing: reported, never counted silently."""
NO_TOKENS = "read as a log of its format, but its assistant messages record no token usage"
"""The reason given for a log whose model calls are there (their tool calls are counted) but
say nothing of their tokens, as OpenClaw's sessions: no request to count, and it is said."""
UNDATED = "unparseable timestamp"
"""The reason of a line kept although a time it holds could not be read: its call is dated by
the line's other times, or by its file's."""


class LineIssue(msgspec.Struct, frozen=True, gc=False):
    """A line (or, at line 0, a whole file) that could not be read as it stood."""

    file: str
    line: int
    """1-based line number; 0 when the whole file could not be read."""
    reason: str
    kept: bool = False
    """True when the line was repaired and still counted, False when it was skipped."""

    @property
    def skipped(self) -> bool:
        """Whether it is a line left out of the numbers (not a repaired line, not a file)."""
        return not self.kept and self.line > 0


class ToolCall(msgspec.Struct, frozen=True, gc=False):
    """One tool use the model asked for (a `tool_use` block of a response)."""

    id: str
    name: str
    key: str
    """The API call (response) that asked for it."""
    session_id: str
    project: str
    at: float | None
    """When the response holding it was logged (epoch seconds; None when unknown)."""
    detail: str | None = None
    """What it was for, kept small: a shell call's command (its start), a subagent launch's
    `subagent_type`, a skill's name; None for other tools. Shown only redacted."""


class ToolResult(msgspec.Struct, frozen=True, gc=False):
    """What came back for a tool use (a `tool_result` block)."""

    tool_use_id: str
    session_id: str
    at: float | None
    """When it was logged (epoch seconds; None when unknown)."""
    error: str | None = None
    """The failure's text (an excerpt) when the result is an error; None when it succeeded."""
    head: str | None = None
    """The start of a shell call's output (what `git commit` printed), for the commands that run
    git or gh (`tool_detail.keeps_output`); None for other calls.
    Shown only redacted."""
    agent_id: str | None = None
    """The subagent run a subagent launch's result names (Claude Code's `agentId`)."""


class AgentEvent(msgspec.Struct, frozen=True, gc=False):
    """Something that happened to a conversation outside tool calls."""

    kind: str
    """`instruction` (a real user request), `interrupt` (the user stopped the agent),
    `api_error` (the harness logged a failed API call) or `compaction` (the agent's telemetry
    reported the conversation compacted)."""
    session_id: str
    project: str
    at: float | None
    """When it was logged (epoch seconds; None when unknown)."""
    text: str = ""
    """An excerpt of what was said (instructions, API errors)."""
    command: str | None = None
    """For an instruction given as a slash command: its name, e.g. `/review`."""
    uuid: str = ""


class Activity(msgspec.Struct, frozen=True, gc=False):
    """What agents did besides calling the model: tool calls, their results, user requests."""

    calls: tuple[ToolCall, ...] = ()
    results: tuple[ToolResult, ...] = ()
    events: tuple[AgentEvent, ...] = ()


NO_ACTIVITY = Activity()


class Dataset(msgspec.Struct, frozen=True):
    """Everything one run read: the requests and an account of what could not be read."""

    requests: tuple[Request, ...]
    files: tuple[str, ...] = ()
    """Every file that was read."""
    issues: tuple[LineIssue, ...] = ()
    """Lines skipped or repaired, and files that could not be read."""
    synthetic: int = 0
    """Harness-generated messages (API errors, `<synthetic>`): events, not billable calls."""
    roots: tuple[str, ...] = ()
    """The paths the files were found under."""
    sample: bool = False
    """True when no logs were found and the bundled sample logs were read instead."""
    formats: dict[str, int] = {}
    """How many files were read as each log format."""
    unknown_files: tuple[str, ...] = ()
    """Files of no format sniff reads (reported once each, by name)."""
    activity: Activity = NO_ACTIVITY
    """Tool calls, tool results and user requests, each once across files."""
    limits: tuple[LimitReading, ...] = ()
    """The agents' own readings of their usage limits the logs hold (Codex's), in time order."""

    @property
    def skipped(self) -> tuple[LineIssue, ...]:
        """Lines that were skipped (not counted)."""
        return tuple(issue for issue in self.issues if issue.skipped)

    @property
    def undated(self) -> tuple[LineIssue, ...]:
        """Lines kept whose timestamp could not be read: dated by their file's time."""
        return tuple(issue for issue in self.issues if issue.kept and issue.reason == UNDATED)

    @property
    def repaired(self) -> tuple[LineIssue, ...]:
        """Lines kept after a repair of their bytes (invalid UTF-8 replaced)."""
        return tuple(
            issue
            for issue in self.issues
            if issue.kept and issue.line > 0 and issue.reason != UNDATED
        )

    @property
    def unreadable(self) -> tuple[LineIssue, ...]:
        """Files that could not be read at all."""
        return tuple(issue for issue in self.issues if issue.line == 0 and not issue.kept)

    @property
    def empty_files(self) -> tuple[str, ...]:
        """Files read as another agent's log that held nothing to count (`NO_USAGE`)."""
        return tuple(issue.file for issue in self.issues if issue.reason in (NO_USAGE, NO_TOKENS))
