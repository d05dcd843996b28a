"""Provides the parser of Claude Code transcripts (`~/.claude/projects/**/*.jsonl`).

Why it is more than `json.loads`: Claude Code writes one line per content block, so one API
response spans several lines that repeat its usage (summing them over-counts cache reads almost
twofold), early lines carry placeholder output counts, the lines of one response are not always
adjacent, subagents live in three layouts depending on the version, and a parent file repeats
its subagents' responses inside `progress` lines. This module turns one file into one
`Response` per API response it holds; `ingest.merge` then keeps one per response across files.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any, NamedTuple

from sniff.ingest.lines import json_objects, read_bytes
from sniff.model import Agent, LineIssue

SOURCE = "claude-code"
SYNTHETIC_MODEL = "<synthetic>"

# How sure a copy of a response is to be the real one, when copies tie on tokens:
# a line of the transcript itself beats a copy embedded in a parent's progress line.
TOP_LEVEL, EMBEDDED = 0, 1


class Response(NamedTuple):
    """One API response as one file holds it: the line kept and what its other lines tell.

    A plain tuple, so results of files parsed in worker processes travel cheaply.
    """

    key: str
    """`message.id`, else `requestId`, else the line's `uuid`."""
    copy_rank: int
    """TOP_LEVEL or EMBEDDED."""
    usage: tuple[int, int, int, int, int, int]
    """input, cache read, 5m write, 1h write, output, reasoning."""
    ttl_assumed: bool
    model: str
    session_id: str
    agent: str
    agent_id: str
    project: str
    first_at: float | None
    """Time (epoch seconds) of the response's first line (its first streamed content)."""
    last_at: float | None
    """Time of the response's last line."""
    started_at: float | None
    """Time of the record the response answers (its parent), where this file holds it."""
    version: str | None
    file: str
    line: int
    """Line number of the kept line."""

    @property
    def total(self) -> int:
        """All tokens of the response, the measure by which the fullest copy is kept."""
        return sum(self.usage[:5])


class FileResult(NamedTuple):
    """What one file yielded."""

    responses: list[Response]
    issues: list[LineIssue]
    synthetic: int
    """Harness-generated messages seen (API errors): not billable."""


def parse_file(path: str, project_hint: str) -> FileResult:
    """Read one Claude Code transcript.

    Args:
        path: the file.
        project_hint: the project to use when no line names its working directory.
    """
    data, problem = read_bytes(path)
    if data is None:
        return FileResult([], [problem] if problem else [], 0)
    return _Reader(path, project_hint).read(data)


class _Reader:
    """The state of reading one file: responses so far, and the records they point to."""

    def __init__(self, path: str, project_hint: str) -> None:
        self.path = path
        stem = PurePath(path).stem
        self.file_agent = _agent_from_file_name(stem)
        self.project = project_hint
        self.project_from_cwd = False
        self.issues: list[LineIssue] = []
        self.synthetic = 0
        self.times: dict[str, str] = {}
        """uuid → timestamp of every record, to find when a request started."""
        self.sidechain_parents: dict[str, str | None] = {}
        """uuid → parentUuid of inline sidechain records, to find each sidechain's root."""
        self.sidechain_roots: dict[str, str] = {}
        self.groups: dict[str, _Group] = {}
        self.last_time = ""

    def read(self, data: bytes) -> FileResult:
        times = self.times
        sidechain_parents = self.sidechain_parents
        for number, entry in json_objects(self.path, data, self.issues):
            # The hot loop of a scan: every line of every transcript passes here once.
            timestamp = entry.get("timestamp")
            if timestamp.__class__ is str and timestamp:
                self.last_time = timestamp
            uuid = entry.get("uuid")
            if uuid.__class__ is str:
                if timestamp.__class__ is str:
                    times.setdefault(uuid, timestamp)
                if entry.get("isSidechain") is True:
                    parent = entry.get("parentUuid")
                    sidechain_parents[uuid] = parent if parent.__class__ is str else None
            if not self.project_from_cwd:
                cwd = entry.get("cwd")
                if isinstance(cwd, str) and cwd:
                    self.project, self.project_from_cwd = cwd, True
            kind = entry.get("type")
            if kind == "assistant" or (kind is None and isinstance(entry.get("message"), dict)):
                self._assistant(number, entry, entry, TOP_LEVEL)
            elif kind == "progress":
                self._progress(number, entry)
        return FileResult(
            [group.response(self) for group in self.groups.values()], self.issues, self.synthetic
        )

    def _progress(self, number: int, entry: dict[str, Any]) -> None:
        """A parent's progress line that embeds a subagent's response (2.1.x)."""
        data = entry.get("data")
        if isinstance(data, dict) and data.get("type", "agent_progress") == "agent_progress":
            inner = data.get("message")
            if isinstance(inner, dict) and inner.get("type") == "assistant":
                self._assistant(number, inner, entry, EMBEDDED, data.get("agentId"))

    def _assistant(
        self,
        number: int,
        line: dict[str, Any],
        envelope: dict[str, Any],
        copy_rank: int,
        embedded_agent: Any = None,
    ) -> None:
        message = line.get("message")
        if message.__class__ is not dict:
            return
        usage = message.get("usage")
        model = message.get("model")
        if model == SYNTHETIC_MODEL or line.get("isApiErrorMessage") is True:
            self.synthetic += 1
            return
        if usage.__class__ is not dict:
            return
        key = message.get("id") or line.get("requestId") or line.get("uuid")
        if key.__class__ is not str:
            key = f"{self.path}:{number}"
        timestamp = line.get("timestamp") or envelope.get("timestamp") or self.last_time
        group = self.groups.get(key)
        if group is None:
            self.groups[key] = self._new_group(
                key, number, line, envelope, usage, model, timestamp, copy_rank, embedded_agent
            )
        elif usage == group.raw_usage and copy_rank == group.copy_rank:
            group.widen(timestamp)  # a split line repeating the usage already kept
        else:
            group.widen(timestamp)
            group.offer(number, usage, model, copy_rank)

    def _new_group(
        self,
        key: str,
        number: int,
        line: dict[str, Any],
        envelope: dict[str, Any],
        usage: dict[str, Any],
        model: Any,
        timestamp: str,
        copy_rank: int,
        embedded_agent: Any,
    ) -> _Group:
        agent, agent_id = self._agent(line, envelope, copy_rank, embedded_agent)
        parent = line.get("parentUuid")
        session_id = line.get("sessionId") or envelope.get("sessionId")
        version = line.get("version") or envelope.get("version")
        tokens, ttl_assumed = _usage(usage)
        return _Group(
            key,
            copy_rank,
            number,
            usage,
            tokens,
            ttl_assumed,
            sys.intern(model) if model.__class__ is str and model else "(unknown)",
            sys.intern(session_id) if session_id.__class__ is str else "",
            agent,
            sys.intern(agent_id),
            timestamp,
            parent if parent.__class__ is str else None,
            sys.intern(version) if version.__class__ is str else None,
        )

    def _agent(
        self, line: dict[str, Any], envelope: dict[str, Any], copy_rank: int, embedded_agent: Any
    ) -> tuple[str, str]:
        """Which agent made the call, and the id of its chain within the session."""
        if copy_rank == EMBEDDED:
            embedded_id = embedded_agent if isinstance(embedded_agent, str) else "embedded"
            return _agent_for_id(embedded_id), embedded_id
        agent_id = line.get("agentId")
        if isinstance(agent_id, str) and agent_id:
            return _agent_for_id(agent_id), agent_id
        if self.file_agent is not None:
            return self.file_agent
        if line.get("isSidechain") is True:
            return Agent.SUBAGENT.value, ""  # the chain's root is found at the end of the file
        return Agent.MAIN.value, Agent.MAIN.value

    def sidechain_root(self, uuid: str | None) -> str:
        """The first record of the inline sidechain `uuid` belongs to."""
        if uuid is None:
            return "sidechain"
        path: list[str] = []
        current = uuid
        root = self.sidechain_roots.get(current)
        while root is None:
            parent = self.sidechain_parents.get(current)
            path.append(current)
            if parent is None or parent not in self.sidechain_parents or len(path) > 100_000:
                root = current
                break
            current = parent
            root = self.sidechain_roots.get(current)
        for member in path:  # remember the root of every record walked
            self.sidechain_roots[member] = root
        return root


class _Group:
    """The lines of one response within one file."""

    __slots__ = (
        "key", "copy_rank", "number", "raw_usage", "tokens", "ttl_assumed", "model",
        "session_id", "agent", "agent_id", "first_at", "last_at", "parent", "version",
    )  # fmt: skip

    def __init__(
        self,
        key: str,
        copy_rank: int,
        number: int,
        raw_usage: dict[str, Any],
        tokens: tuple[int, int, int, int, int, int],
        ttl_assumed: bool,
        model: str,
        session_id: str,
        agent: str,
        agent_id: str,
        timestamp: str,
        parent: str | None,
        version: str | None,
    ) -> None:
        self.key, self.copy_rank, self.number = key, copy_rank, number
        self.raw_usage, self.tokens, self.ttl_assumed = raw_usage, tokens, ttl_assumed
        self.model, self.session_id = model, session_id
        self.agent, self.agent_id = agent, agent_id
        self.first_at = self.last_at = timestamp
        self.parent, self.version = parent, version

    def widen(self, timestamp: str) -> None:
        """Stretch the response's time span to cover another of its lines."""
        if timestamp:
            if not self.first_at or timestamp < self.first_at:
                self.first_at = timestamp
            if timestamp > self.last_at:
                self.last_at = timestamp

    def offer(self, number: int, usage: dict[str, Any], model: Any, copy_rank: int) -> None:
        """Keep another line of the response instead, if it holds more tokens.

        One whole line is kept, never a maximum per field: a mid-stream model fallback can
        change the model and cache counts between lines of one response.
        """
        tokens, ttl_assumed = _usage(usage)
        if (sum(tokens[:5]), -copy_rank) > (sum(self.tokens[:5]), -self.copy_rank):
            self.number, self.raw_usage, self.tokens = number, usage, tokens
            self.ttl_assumed, self.copy_rank = ttl_assumed, copy_rank
            if model.__class__ is str and model:
                self.model = sys.intern(model)

    def response(self, reader: _Reader) -> Response:
        agent_id = self.agent_id
        if not agent_id:
            agent_id = "sidechain-" + reader.sidechain_root(self.parent)[:8]
        started = epoch(reader.times.get(self.parent)) if self.parent else None
        return Response(
            self.key,
            self.copy_rank,
            self.tokens,
            self.ttl_assumed,
            self.model,
            self.session_id or PurePath(reader.path).stem,
            self.agent,
            agent_id,
            reader.project,
            epoch(self.first_at),
            epoch(self.last_at),
            started,
            self.version,
            reader.path,
            self.number,
        )


def _usage(usage: dict[str, Any]) -> tuple[tuple[int, int, int, int, int, int], bool]:
    """Anthropic usage → (input, read, 5m write, 1h write, output, reasoning), TTL assumed?"""
    written = _count(usage.get("cache_creation_input_tokens", 0))
    split = usage.get("cache_creation")
    if split.__class__ is dict:
        one_hour = _count(split.get("ephemeral_1h_input_tokens", 0))
        if "cache_creation_input_tokens" not in usage:
            written = one_hour + _count(split.get("ephemeral_5m_input_tokens", 0))
        one_hour = min(one_hour, written)
        ttl_assumed = False
    else:
        one_hour = 0
        ttl_assumed = written > 0
    details = usage.get("output_tokens_details")
    reasoning = _count(details.get("thinking_tokens", 0)) if details.__class__ is dict else 0
    return (
        _count(usage.get("input_tokens", 0)),
        _count(usage.get("cache_read_input_tokens", 0)),
        written - one_hour,
        one_hour,
        _count(usage.get("output_tokens", 0)),
        reasoning,
    ), ttl_assumed


def _count(value: Any) -> int:
    """A token count as logged; anything that is not a non-negative number counts as 0."""
    if type(value) is int:
        return value if value >= 0 else 0
    if isinstance(value, float) and value >= 0:
        return int(value)
    return 0


def epoch(timestamp: str | None) -> float | None:
    """An ISO-8601 timestamp as seconds since the epoch (UTC when no offset is given)."""
    if not timestamp:
        return None
    try:
        moment = datetime.fromisoformat(timestamp)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _agent_for_id(agent_id: str) -> str:
    return Agent.COMPACTION.value if agent_id.startswith("acompact") else Agent.SUBAGENT.value


def _agent_from_file_name(stem: str) -> tuple[str, str] | None:
    """Subagent files are named `agent-<id>.jsonl`; compaction agents `agent-acompact-<id>`."""
    if not stem.startswith("agent-"):
        return None
    agent_id = stem[len("agent-") :]
    return _agent_for_id(agent_id), agent_id
