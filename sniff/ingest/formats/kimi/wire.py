"""Provides the shape of a Kimi wire record: only the fields sniff reads.

Kimi Code writes one record a line, each with its `type` and `time` (epoch ms): `llm.request`
when a call is sent, `context.append_loop_event` wrapping the loop's events (`step.end` with the
call's usage and response id, `tool.call`, `tool.result`, `content.part`), `usage.record` with
the usage of each call again, `turn.prompt` for what starts a turn, `config.update`, ...
Usage classes are disjoint: `inputOther` is the input neither read from nor written to the
cache (kimi-cli's `TokenUsage`: "input tokens excluding input_cache_read and
input_cache_creation"). Every field is optional; a line of unexpected types is decoded
leniently (`lines.lenient`). The Python Kimi CLI, Kimi Code's predecessor, writes a wire file
of the same name whose records wrap a `message` (`StatusUpdate` with one step's `token_usage`).
"""

from __future__ import annotations

import msgspec

from sniff.ingest.plausible import Count, UsageFields, counted
from sniff.ingest.record import Tokens


class Usage(UsageFields, rename="camel", gc=False):
    """A call's usage, in `usage.record` and `step.end` alike."""

    input_other: Count = None
    output: Count = None
    input_cache_read: Count = None
    input_cache_creation: Count = None

    def counts(self) -> tuple[int, int, int, int]:
        """(uncached input, cache read, cache write, output)."""
        return (
            counted(self.input_other),
            counted(self.input_cache_read),
            counted(self.input_cache_creation),
            counted(self.output),
        )

    def tokens(self) -> Tokens:
        """In sniff's classes; Kimi logs no reasoning apart (thinking is inside output), and
        Moonshot's cache writes have no TTL to choose."""
        uncached, read, written, output = self.counts()
        return Tokens(uncached, read, written, 0, output, 0)


class StepUsage(UsageFields, gc=False):
    """The Python Kimi CLI's `StatusUpdate.token_usage`: the same classes, in snake case."""

    input_other: Count = None
    output: Count = None
    input_cache_read: Count = None
    input_cache_creation: Count = None

    def usage(self) -> Usage:
        return Usage(
            self.input_other, self.output, self.input_cache_read, self.input_cache_creation
        )


class Payload(msgspec.Struct, gc=False):
    """A Python Kimi CLI wire message's `payload` (of a `StatusUpdate`: one step's usage)."""

    token_usage: StepUsage | None = None
    message_id: str | None = None


class Envelope(msgspec.Struct, gc=False):
    """The Python Kimi CLI's `message`: `{type: <WireType>, payload}`."""

    type: str = ""
    payload: Payload | None = None


class Part(msgspec.Struct, gc=False):
    """`content.part`'s `part`: `text` or `think`."""

    type: str = ""


class ToolOutcome(msgspec.Struct, rename="camel", gc=False):
    """`tool.result`'s `result`."""

    output: str | None = None
    is_error: bool | None = None


class Event(msgspec.Struct, rename="camel", gc=False):
    """A loop event (`context.append_loop_event`'s `event`)."""

    type: str = ""
    usage: Usage | None = None
    message_id: str | None = None
    llm_first_token_latency_ms: float | None = None
    tool_call_id: str | None = None
    name: str | None = None
    result: ToolOutcome | None = None
    part: Part | None = None


class Origin(msgspec.Struct, gc=False):
    """Who started a turn: `user`, or `system_trigger` (a sub-agent's task, ...)."""

    kind: str = ""


class Text(msgspec.Struct, gc=False):
    """A piece of a turn's prompt."""

    type: str = ""
    text: str | None = None


class Record(msgspec.Struct, rename="camel", gc=False):
    """One line of a wire file."""

    type: str = ""
    time: int | float | None = None
    kind: str | None = None
    """`llm.request`: `loop`, or `compaction` for the call that summarises the context."""
    provider: str | None = None
    model: str | None = None
    usage: Usage | None = None
    usage_scope: str | None = None
    agent_id: str | None = None
    event: Event | None = None
    cwd: str | None = None
    input: list[Text] | None = None
    origin: Origin | None = None
    protocol_version: str | None = msgspec.field(default=None, name="protocol_version")
    message: Envelope | None = None
    """The Python Kimi CLI's records: `{timestamp: <epoch s>, message: {type, payload}}`."""
    timestamp: float | None = None


DECODER = msgspec.json.Decoder(Record)
