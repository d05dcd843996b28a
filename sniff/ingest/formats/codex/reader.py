"""Provides the parser of OpenAI Codex CLI rollouts (`~/.codex/sessions/**/rollout-*.jsonl`).

Codex logs usage as *cumulative* totals in `token_count` events and re-emits them unchanged
(about half of all events); summing each event's `last_token_usage` doubles the totals. One
request is therefore one growth of `total_token_usage`; a decrease is a reset (counted from
zero). Versions from about 0.15x also write a `token_usage_record` per response, with the same
numbers: when a file has those, they are the requests and `token_count` is ignored. A forked or
subagent rollout starts by replaying its parent's history as a burst of `token_count` events;
those are keyed as the parent's, so the parent's responses count once.

Codex reports cached input inside input (OpenAI's convention); it is split out here.

Timing is approximate: a rollout stamps each item when it is written, whole. A request starts
at the last input written before the model's first output item (a user message, a tool's
output, a new turn context), its first output item stands for the first token, and the usage
event that counts it for its end.

Tool calls, their outcomes, user requests and interruptions are read in the same pass
(`codex_activity`).
"""

from __future__ import annotations

import sys
from pathlib import PurePath
from typing import Any

import msgspec

from sniff.ingest.files.lines import decode_lines
from sniff.ingest.formats.codex.activity import CALL_ITEMS, RESULT_ITEMS, RolloutActivity
from sniff.ingest.formats.codex.limits import LimitSeries
from sniff.ingest.plausible import (
    SURELY_DATED,
    Count,
    Cumulative,
    Implausible,
    UsageFields,
    check_date,
    check_growth,
    counted,
    decoded,
)
from sniff.ingest.providers.openai import inclusive_tokens
from sniff.ingest.record import EMBEDDED, TOP_LEVEL, FileResult, Response, epoch
from sniff.ingest.tool_detail import codex_detail
from sniff.model import UNDATED, Agent, LineIssue

SOURCE = "codex"
PROVIDER = "openai"
OUTPUT_ITEMS = frozenset(
    {"reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
)
"""Response items the model writes (besides assistant messages)."""
INPUT_EVENTS = frozenset({"user_message", "task_started"})

# The wire structs below are untracked by the cyclic collector, as Claude Code's are
# (`claude_code_wire`): a decoded line is a tree, never a cycle.


class CodexUsage(UsageFields, gc=False):
    """One response's usage (`last_token_usage`, a `token_usage_record`)."""

    input_tokens: Count = None
    cached_input_tokens: Count = None
    cache_write_input_tokens: Count = None
    output_tokens: Count = None
    reasoning_output_tokens: Count = None


class CodexTotals(UsageFields, gc=False):
    """`total_token_usage`: the session's running totals, checked by their growth."""

    input_tokens: Cumulative = None
    cached_input_tokens: Cumulative = None
    cache_write_input_tokens: Cumulative = None
    output_tokens: Cumulative = None
    reasoning_output_tokens: Cumulative = None


def _counts(usage: CodexUsage | CodexTotals) -> tuple[int, int, int, int, int]:
    """input (cached included), cached, cache writes, output, reasoning."""
    return (
        counted(usage.input_tokens),
        counted(usage.cached_input_tokens),
        counted(usage.cache_write_input_tokens),
        counted(usage.output_tokens),
        counted(usage.reasoning_output_tokens),
    )


class TokenInfo(msgspec.Struct, gc=False):
    total_token_usage: CodexTotals | None = None
    last_token_usage: CodexUsage | None = None
    model: str | None = None


class Git(msgspec.Struct, gc=False):
    """`session_meta.payload.git`: the checkout the session ran in."""

    branch: str | None = None
    repository_url: str | None = None


class Payload(msgspec.Struct, gc=False):
    """Any line's payload: the fields of every line type sniff reads (texts stay raw JSON)."""

    type: str | None = None
    role: str | None = None
    id: str | None = None
    cwd: str | None = None
    cli_version: str | None = None
    git: Git | None = None
    source: msgspec.Raw = msgspec.Raw(b"")
    """Decoded only where read (`session_meta`), after its depth is checked."""
    model: str | None = None
    info: TokenInfo | None = None
    response_id: str | None = None
    usage: CodexUsage | None = None
    call_id: str | None = None
    name: str | None = None
    output: msgspec.Raw = msgspec.Raw(b"")
    arguments: msgspec.Raw = msgspec.Raw(b"")
    """A function call's input (a JSON string holding JSON), read for shell calls only."""
    action: msgspec.Raw = msgspec.Raw(b"")
    """A `local_shell_call`'s command."""
    message: msgspec.Raw = msgspec.Raw(b"")
    exit_code: int | None = None
    reason: msgspec.Raw = msgspec.Raw(b"")
    rate_limits: msgspec.Raw = msgspec.Raw(b"")
    """A `token_count`'s official limit readings, read apart (`codex.limits`)."""


class RolloutLine(msgspec.Struct, gc=False):
    timestamp: str | None = None
    type: str | None = None
    payload: Payload | None = None


DECODER = msgspec.json.Decoder(RolloutLine)


class Reader:
    """The state of reading one rollout; it can be kept, and fed the lines appended since."""

    APPENDS = False

    def __init__(self, path: str, project_hint: str) -> None:
        self.path = path
        self.issues: list[LineIssue] = []
        self.project = project_hint
        self.session_id = PurePath(path).stem
        self.parent_id: str | None = None
        self.agent, self.agent_id = Agent.MAIN, Agent.MAIN.value
        self.version: str | None = None
        self.git = Git()
        self.model = "(unknown)"
        self.metas = 0
        self.previous: tuple[int, int, int, int, int] | None = None
        self.burst_second: str | None = None
        self.from_counts: list[Response] = []
        self.from_records: list[Response] = []
        self.request_start: str | None = None
        """The last input written before the model answered: when the request went out."""
        self.first_output: str | None = None
        """The model's first output item of the request being answered."""
        self.activity = RolloutActivity()
        self.limits = LimitSeries()

    def feed(self, data: bytes, first_line: int = 1, newlines: int | None = None) -> None:
        """Read more whole lines of the rollout, the first of them being line `first_line`."""
        earliest, latest = SURELY_DATED
        for number, line in decode_lines(
            self.path, data, RolloutLine, DECODER, self.issues, first_line, newlines
        ):
            timestamp = line.timestamp
            try:
                if timestamp and not earliest <= timestamp < latest:
                    check_date(timestamp)
                self.line(number, line)
            except Implausible as error:  # the line is skipped, as if it were not there
                self.issues.append(LineIssue(self.path, number, str(error)))

    def result(self) -> FileResult:
        """What the lines read so far hold: the responses, and the activity."""
        responses = self.responses()
        keys = [response.key for response in responses]
        family = 1 if self.from_records else 0  # the index into a call's `asking`
        activity = self.activity.freeze(self.session_id, self.project, keys, family)
        return FileResult(
            list(responses), list(self.issues), 0, SOURCE, activity, self.limits.all()
        )

    def responses(self) -> list[Response]:
        # Newer rollouts write each response twice; the records are the ones with ids.
        return self.from_records or self.from_counts

    def line(self, number: int, line: RolloutLine) -> None:
        payload = line.payload
        if payload is None:
            return
        self._clock(line.type, payload, line.timestamp)
        if line.type == "session_meta":
            self._meta(payload)
        elif line.type == "turn_context" and payload.model:
            self.model = sys.intern(payload.model)
        elif line.type == "token_usage_record" and payload.usage is not None:
            key = payload.response_id or f"{self.path}:{number}"
            counts = _counts(payload.usage)
            self.from_records.append(
                self._response(key, TOP_LEVEL, counts, line.timestamp, number, record=True)
            )
        elif line.type == "event_msg" and payload.type == "token_count" and payload.info:
            self._token_count(number, payload.info, line.timestamp)
        elif line.type == "response_item" or line.type == "event_msg":
            self._activity(payload, line.timestamp or "")
        if payload.rate_limits and payload.type == "token_count" and line.type == "event_msg":
            self._limits(payload.rate_limits, line.timestamp or "")

    def _limits(self, raw: msgspec.Raw, timestamp: str) -> None:
        """The official limit readings of a `token_count` (a heartbeat's too), but for those a
        fork replays from its parent: they would date the parent's old shares now."""
        if not self._in_replay(timestamp):
            self.limits.read(raw, timestamp)

    def _activity(self, payload: Payload, timestamp: str) -> None:
        """Tool calls and their outputs, user requests and interruptions (`codex_activity`)."""
        kind = payload.type
        if kind in CALL_ITEMS:
            call_id = payload.call_id or payload.id
            name = payload.name or ("local_shell" if kind == "local_shell_call" else None)
            if call_id:
                asking = (len(self.from_counts), len(self.from_records))
                purpose = codex_detail(name or "", bytes(payload.arguments), bytes(payload.action))
                self.activity.call(call_id, name, timestamp, asking, purpose)
        elif kind in RESULT_ITEMS:
            if payload.call_id:
                self.activity.output(payload.call_id, payload.output, timestamp)
        elif kind == "exec_command_end":
            if payload.call_id and payload.exit_code is not None:
                self.activity.exit(payload.call_id, payload.exit_code, timestamp)
        elif kind == "user_message":
            if self._users_own(timestamp):
                self.activity.user_message(payload.message, timestamp)
        elif kind == "turn_aborted" and self._users_own(timestamp):
            self.activity.aborted(payload.reason, timestamp)

    def _users_own(self, timestamp: str) -> bool:
        """Whether a message is the user's: not in a subagent's rollout (its messages come from
        the agent that spawned it), nor in a fork's copy of its parent's history."""
        return self.agent == Agent.MAIN and not self._in_replay(timestamp)

    def _in_replay(self, timestamp: str) -> bool:
        """Whether an item of a forked rollout belongs to the parent's history it opens with:
        written before its first usage event, or in the same second (see `_replayed`)."""
        if self.parent_id is None:
            return False
        if self.burst_second is None:
            return not self.from_counts and not self.from_records
        return timestamp[:19] == self.burst_second

    def _clock(self, kind: str | None, payload: Payload, timestamp: str | None) -> None:
        """Follow when the pending request went out and when its answer began."""
        if timestamp is None:
            return
        if kind == "response_item":
            output = payload.type in OUTPUT_ITEMS or (
                payload.type == "message" and payload.role == "assistant"
            )
            if output:
                self.first_output = self.first_output or timestamp
            elif self.first_output is None:
                self.request_start = timestamp
        elif self.first_output is None and (
            kind == "turn_context" or (kind == "event_msg" and payload.type in INPUT_EVENTS)
        ):
            self.request_start = timestamp

    def _meta(self, payload: Payload) -> None:
        source = decoded(
            payload.source, 2
        )  # the line, the payload  # first: a line too deep to read changes nothing
        self.metas += 1
        if self.metas > 1:  # a forked rollout names its parent in a second session_meta
            self.parent_id = self.parent_id or payload.id
            return
        self.session_id = payload.id or self.session_id
        self.project = payload.cwd or self.project
        self.version = payload.cli_version
        self.git = payload.git or self.git
        parent = _spawning_parent(source)
        if parent is not None or _is_subagent(source):
            self.agent, self.agent_id = Agent.SUBAGENT, self.session_id
            self.parent_id = parent
            self.session_id = parent or self.session_id

    def _token_count(self, number: int, info: TokenInfo, timestamp: str | None) -> None:
        total = None if info.total_token_usage is None else _counts(info.total_token_usage)
        delta = None if total is None or total == self.previous else _growth(self.previous, total)
        if delta is not None:
            check_growth(delta)  # first: an implausible event changes nothing
        if info.model:
            self.model = sys.intern(info.model)
        if total is None:
            if info.last_token_usage is not None:
                last = _counts(info.last_token_usage)
                key = f"{self.path}:{number}"
                self.from_counts.append(self._response(key, TOP_LEVEL, last, timestamp, number))
            return
        if delta is None:
            return  # Codex re-emits unchanged totals: no new response
        self.previous = total
        owner, rank = self.session_id, TOP_LEVEL
        if self._replayed(timestamp):
            owner, rank = self.parent_id or owner, EMBEDDED
        key = f"codex:{owner}:{':'.join(map(str, total))}"
        self.from_counts.append(self._response(key, rank, delta, timestamp, number))

    def _replayed(self, timestamp: str | None) -> bool:
        """Whether this event belongs to the burst a forked rollout opens with."""
        if self.parent_id is None or timestamp is None:
            return False
        second = timestamp[:19]
        if self.burst_second is None and not self.from_counts:
            self.burst_second = second
        return second == self.burst_second

    def _response(
        self,
        key: str,
        rank: int,
        counts: tuple[int, int, int, int, int],
        timestamp: str | None,
        number: int,
        record: bool = False,
    ) -> Response:
        """A response; it continues the one before it in the rollout (one conversation)."""
        family = self.from_records if record else self.from_counts
        previous = family[-1].key if family else None
        started, first = self.request_start, self.first_output
        # the next request starts no earlier than this one ended
        self.request_start, self.first_output = timestamp, None
        if rank != TOP_LEVEL:  # a fork's replay of its parent: these times are the replay's
            started = first = None
        ended = epoch(timestamp)
        if ended is None and timestamp:
            self.issues.append(LineIssue(self.path, number, UNDATED, True))
        return Response(
            SOURCE,
            key,
            rank,
            inclusive_tokens(*counts),
            False,
            self.model,
            PROVIDER,
            self.session_id,
            self.agent,
            self.agent_id,
            self.project,
            epoch(first),
            ended,
            epoch(started),
            self.version,
            self.path,
            number,
            previous=previous,
            git_branch=self.git.branch or None,
            repository=self.git.repository_url or None,
        )


def _growth(
    previous: tuple[int, int, int, int, int] | None, total: tuple[int, int, int, int, int]
) -> tuple[int, int, int, int, int]:
    """What one response added to the cumulative totals; a decrease is a reset from zero."""
    if previous is None or any(now < before for now, before in zip(total, previous, strict=True)):
        return total
    grown = [now - before for now, before in zip(total, previous, strict=True)]
    return (grown[0], grown[1], grown[2], grown[3], grown[4])


def _spawning_parent(source: Any) -> str | None:
    if isinstance(source, dict):
        subagent = source.get("subagent")
        if isinstance(subagent, dict):
            spawn = subagent.get("thread_spawn")
            if isinstance(spawn, dict) and isinstance(spawn.get("parent_thread_id"), str):
                return str(spawn["parent_thread_id"])
    return None


def _is_subagent(source: Any) -> bool:
    return isinstance(source, dict) and "subagent" in source
