"""Provides the msgspec shapes of OpenCode's stored messages and parts, and their decoding.

OpenCode (and its fork Kilo CLI) keeps one JSON object per message and per part: in the `data`
column of its SQLite tables, or as one file each in the legacy `storage/` tree. Only the fields
sniff reads are declared; texts stay raw JSON until a user's request needs one.
"""

from __future__ import annotations

from typing import TypeVar

import msgspec

from sniff.ingest.files.lines import decode_lines
from sniff.ingest.plausible import IMPLAUSIBLE_USAGE, Count, Implausible, UsageFields, counted
from sniff.ingest.record import Tokens
from sniff.model import LineIssue

MOST_DOLLARS = 10**6
"""The most one call can plausibly have cost: a logged cost above it, negative or not a
number makes its row implausible."""

# Untracked by the cyclic collector, as the other wire structs: a decoded row is a tree.


class Cache(UsageFields, gc=False):
    read: Count = None
    write: Count = None


class StepTokens(UsageFields, gc=False):
    """`tokens` of a message or a `step-finish` part: disjoint classes as stored."""

    input: Count = None
    output: Count = None
    reasoning: Count = None
    cache: Cache | None = None

    def as_tokens(self) -> Tokens:
        """In sniff's classes: cache writes of unknown TTL as 5-minute writes (the caller
        says whether that was assumed); output and reasoning apart, as OpenCode stores them."""
        cache = self.cache or Cache()
        return Tokens(
            counted(self.input),
            counted(cache.read),
            counted(cache.write),
            0,
            counted(self.output),
            counted(self.reasoning),
        )


class Times(msgspec.Struct, gc=False):
    """Epoch milliseconds: a message's `created`/`completed`, a part's `start`/`end`."""

    created: float | None = None
    completed: float | None = None
    start: float | None = None
    end: float | None = None


class Where(msgspec.Struct, gc=False):
    cwd: str | None = None
    root: str | None = None


class ErrorData(msgspec.Struct, gc=False):
    message: str | None = None


class MessageError(msgspec.Struct, gc=False):
    """A failed message's error (`MessageAbortedError`, `APIError`, ...)."""

    name: str | None = None
    data: ErrorData | None = None


class MessageData(msgspec.Struct, gc=False):
    """A message (`message.data`, a legacy `storage/message/<session>/<id>.json`)."""

    id: str | None = None
    sessionID: str | None = None  # noqa: N815 (OpenCode's name)
    role: str | None = None
    time: Times | None = None
    modelID: str | None = None  # noqa: N815
    providerID: str | None = None  # noqa: N815
    mode: str | None = None
    agent: str | None = None
    path: Where | None = None
    summary: msgspec.Raw = msgspec.Raw(b"")
    """`true` on a compaction's summary (a user message's summary is an object)."""
    cost: msgspec.Raw = msgspec.Raw(b"")
    """Dollars (`dollars` checks them: a schema would drop a bad one unsaid)."""
    tokens: StepTokens | None = None
    error: MessageError | None = None


class ToolState(msgspec.Struct, gc=False):
    status: str | None = None
    error: str | None = None
    time: Times | None = None


class PartData(msgspec.Struct, gc=False):
    """A part (`part.data`, a legacy `storage/part/<message>/<id>.json`)."""

    id: str | None = None
    messageID: str | None = None  # noqa: N815
    type: str | None = None
    cost: msgspec.Raw = msgspec.Raw(b"")
    tokens: StepTokens | None = None
    time: Times | None = None
    callID: str | None = None  # noqa: N815
    tool: str | None = None
    state: ToolState | None = None
    text: msgspec.Raw = msgspec.Raw(b"")
    synthetic: bool | None = None
    ignored: bool | None = None


Shape = TypeVar("Shape", bound=msgspec.Struct)
MESSAGE = msgspec.json.Decoder(MessageData)
PART = msgspec.json.Decoder(PartData)
TEXT = msgspec.json.Decoder(str)


def decode_message(
    path: str, number: int, raw: bytes, issues: list[LineIssue]
) -> MessageData | None:
    """One message's JSON; None (and an issue at `number`) when it cannot be read."""
    return _decode(path, number, raw, MessageData, MESSAGE, issues)


def decode_part(path: str, number: int, raw: bytes, issues: list[LineIssue]) -> PartData | None:
    """One part's JSON; None (and an issue at `number`) when it cannot be read."""
    return _decode(path, number, raw, PartData, PART, issues)


def _decode(
    path: str,
    number: int,
    raw: bytes,
    shape: type[Shape],
    decoder: msgspec.json.Decoder[Shape],
    issues: list[LineIssue],
) -> Shape | None:
    # As one line of a log, so a row gets the same checks and reasons as a line (depth, bad
    # UTF-8, counts out of bounds, fields of other types read leniently). A newline outside a
    # string is only whitespace in JSON (legacy files are indented): it becomes a space.
    line = raw.replace(b"\r", b" ").replace(b"\n", b" ") + b"\n"
    for _, value in decode_lines(path, line, shape, decoder, issues, number):
        return value
    return None


def text_of(raw: msgspec.Raw) -> str:
    """A text part's text; "" when absent or not a string."""
    if not raw:
        return ""
    try:
        return TEXT.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return ""


DOLLARS = msgspec.json.Decoder(float | None)


def dollars(raw: msgspec.Raw) -> float | None:
    """A logged cost in dollars; None when absent.

    Raises:
        Implausible: it is not a number, negative, or above `MOST_DOLLARS`.
    """
    if not raw:
        return None
    try:
        value = DOLLARS.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise Implausible(IMPLAUSIBLE_USAGE) from None
    if value is not None and not 0 <= value <= MOST_DOLLARS:  # NaN is not either
        raise Implausible(IMPLAUSIBLE_USAGE)
    return value
