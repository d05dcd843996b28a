"""Provides what a parser hands to the merge: one `Response` per API call a file holds.

A plain tuple, so results of files parsed in worker processes travel cheaply; `merge` turns the
copies of each call found across files into exactly one `Request`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

import msgspec

from sniff.first_hand import CacheDiagnosis, FirstHand
from sniff.ingest.plausible import epoch as epoch  # where parsers have always found it
from sniff.model import (
    Activity,
    Agent,
    Block,
    Harness,
    LimitReading,
    LineIssue,
    Sent,
)


class Tokens(NamedTuple):
    """One call's tokens as a parser read them, in Anthropic's disjoint classes (`Usage`'s)."""

    input: int
    """Prompt tokens neither read from nor written to the cache."""
    cache_read: int
    cache_write_5m: int
    cache_write_1h: int
    output: int
    reasoning: int
    """Output tokens spent thinking (part of `output`, where the provider says)."""


NO_TOKENS = Tokens(0, 0, 0, 0, 0, 0)


class Prompts(StrEnum):
    """How much of logged prompts to read."""

    NONE = "none"
    """Nothing: usage only."""
    SIZED = "sized"
    """Blocks with sizes estimated from their length (enough to compare and apportion)."""
    COUNTED = "counted"
    """Blocks with their tokens counted by the tokenizer."""
    TEXT = "text"
    """Blocks with their text and place in the request, sized, and what else the request
    body says (`Sent`): what lint reads."""


HARNESS_OF: dict[str, Harness] = {
    "claude-code": Harness.CLAUDE_CODE,
    "claude-trace": Harness.CLAUDE_CODE,
    "codex": Harness.CODEX,
    "request-log": Harness.API,
    "proxy": Harness.API,
}
"""The agent a log format belongs to, for formats that name one agent (the others say theirs
on each `Response`)."""

# How sure a copy of a call is to be the real one, when copies tie on tokens: a record of the
# call itself beats a copy embedded in another record (a parent's progress line, a replay).
TOP_LEVEL, EMBEDDED = 0, 1


class Response(NamedTuple):
    """One API call as one file holds it."""

    source: str
    """The log format, e.g. `claude-code`, `claude-trace`, `codex`, `request-log`."""
    key: str
    """The call's identity across files: message id, request id, response id, ..."""
    copy_rank: int
    """TOP_LEVEL or EMBEDDED."""
    usage: Tokens
    ttl_assumed: bool
    model: str
    provider: str
    session_id: str
    agent: Agent
    agent_id: str
    project: str
    first_at: float | None
    """Time (epoch seconds) the first content arrived, where known."""
    last_at: float | None
    """Time the response was complete."""
    started_at: float | None
    """Time the request was sent, where known."""
    version: str | None
    file: str
    line: int
    """Line number of the record kept."""
    blocks: tuple[Block, ...] = ()
    """The prompt, where the log holds it."""
    error: str | None = None
    """Why the call failed (no response, an error status); None when it succeeded."""
    previous: str | None = None
    """Key of the call whose conversation this one continues, where the log links them."""
    opens_turn: bool = False
    """Its prompt ends with new user content, not only tool results."""
    thinks: bool = False
    """Its response holds thinking blocks."""
    compacted: bool = False
    """It is the first call after a compaction the log marks."""
    sent: Sent | None = None
    """What its request body said beside the blocks, read under `Prompts.TEXT`."""
    harness: Harness | None = None
    """The agent whose log it is; None: the one its `source` names (`HARNESS_OF`)."""
    reported_cost_usd: float | None = None
    """The call's cost in dollars as the agent logged it."""
    reported_units: tuple[float, str] | None = None
    """An amount the agent logged in a unit of its own: (value, unit)."""
    rollup: bool = False
    """It holds the totals of many calls (a session's, a segment's), not one call's."""
    reasoning_apart: bool = False
    """Its reasoning tokens are not part of its output (Gemini's thoughts, OpenCode's and
    Droid's reasoning): billed beside the output, at the output's price."""
    calls: int = 1
    """The model calls it stands for: one, or a rollup's count as its agent logged it (0 where
    the agent logs none)."""
    git_branch: str | None = None
    """The git branch the call was made on, where the log names one (empty: None)."""
    repository: str | None = None
    """The git repository (its remote's URL) the call was made in, where the log names one."""
    visible_at: float | None = None
    """Time the first visible content (text, else a tool call) arrived, where known."""
    thinking_share: float | None = None
    """Thinking's estimated share of the output tokens, where the log holds the generated text
    (`thinking_share`)."""
    request_id: str | None = None
    """The provider's id of the HTTP request (Claude Code's `requestId`, OpenTelemetry's
    `request_id`): what joins a call's telemetry to its transcript (`ingest.telemetry`)."""
    first_hand: FirstHand | None = None
    """What the agent's own telemetry reported of the call, once joined (`ingest.telemetry`)."""
    cache_diagnosis: CacheDiagnosis | None = None
    """What the provider said of the call's prompt cache, where the log keeps it."""

    @property
    def total(self) -> int:
        """All tokens of the call, the measure by which the fullest copy is kept."""
        return sum(self.usage[:5])


class FileResult(NamedTuple):
    """What one file yielded."""

    responses: list[Response]
    issues: list[LineIssue]
    synthetic: int = 0
    """Harness-generated messages seen (API errors): not billable."""
    log_format: str | None = None
    """The format the file was read as; None when it is of no format sniff reads."""
    activity: Activity | None = None
    """Tool calls, results and user requests, where the log holds them."""
    limits: tuple[LimitReading, ...] = ()
    """The agent's own readings of its usage limits, where the log holds them (Codex's)."""


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(FileResult)


def encode_result(result: FileResult) -> bytes:
    """A file's yield as msgpack: how it is stored in the index and sent between processes
    (several times cheaper both ways than pickling its objects)."""
    return _ENCODER.encode(result)


def decode_result(data: bytes) -> FileResult:
    """The inverse of `encode_result`.

    Raises:
        msgspec.DecodeError, msgspec.ValidationError: `data` is not an encoded result.
    """
    return _DECODER.decode(data)
