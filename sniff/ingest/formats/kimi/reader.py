"""Provides the parser of Kimi Code's wire files: format `kimi`.

Kimi Code keeps a session in `~/.kimi-code/sessions/wd_<project>_<hash>/session_<uuid>/`:
its manifest `state.json` (`workDir`, and its agents) and one `wire.jsonl` per agent under
`agents/<agent>/`. What the guide (`docs/agent-formats/kimi.md`) warns of, and how it is met:

- Each call's usage is logged twice, in a `step.end` loop event and in a `usage.record`: only
  `usage.record` counts. Its `step.end` twin gives the call its id (`messageId`) and its
  first-token latency.
- The `usage.record` of scope `session`, after `full_compaction.begin`, is the compaction call:
  counted, as agent COMPACTION.
- A cancelled request (`llm.request` with no usage after it) logged no usage: no request.
- A sub-agent's calls are in its own file (`agents/<id>/wire.jsonl`, or `subagent_<id>.jsonl`
  where a copy is named so): agent SUBAGENT with that id.
- Nothing in a wire file names its session: the session folder does (`session_<uuid>`); a file
  outside that layout is a session of its own, named by the file.

The Python Kimi CLI's `~/.kimi/sessions/<group>/<session>/wire.jsonl` (`$KIMI_DATA_DIR`) is read
too, from its documentation (no real file was found): each `StatusUpdate` with `token_usage`
is one step's call, keyed by its `message_id`; the file names no model.
"""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any, NamedTuple

import orjson

from sniff.ingest.activity import EXCERPT
from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files.lines import decode_lines
from sniff.ingest.formats.kimi.wire import DECODER, Event, Record, Usage
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, epoch
from sniff.model import Activity, Agent, AgentEvent, Harness, LineIssue, ToolCall, ToolResult

SOURCE = "kimi"
RECORD_TYPES = frozenset(
    {"llm.request", "usage.record", "context.append_loop_event", "turn.prompt"}
)
MANIFEST_BYTES = 1 << 20
"""The most of a `state.json` read: a manifest is a few hundred bytes."""
MAIN = "main"
UNKNOWN_MODEL = "(unknown)"
WIRE, STATE = "wire.jsonl", "state.json"


def claims(record: dict[str, Any]) -> bool:
    """A wire file's `metadata` head with its protocol version, or a record of Kimi Code's own
    types, which carry their time as `time` (epoch ms)."""
    kind = record.get("type")
    if kind == "metadata":
        return "protocol_version" in record and "message" not in record
    return kind in RECORD_TYPES and "time" in record and "uuid" not in record


class Place(NamedTuple):
    """What a wire file's location says: its session, its agent, and the session's manifest."""

    session_id: str
    agent_id: str
    manifest: Path


def place_of(path: str) -> Place:
    """Session and agent of a wire file from where it lies (see the module docstring)."""
    file = PurePath(path)
    stem = file.name.removesuffix(".jsonl")
    agent = stem.removeprefix("subagent_") if stem.startswith("subagent_") else MAIN
    parents = file.parents
    if file.name == WIRE and len(parents) >= 3 and parents[1].name == "agents":
        # session_<uuid>/agents/<id>/wire.jsonl
        folder = parents[2]
        return Place(folder.name.removeprefix("session_"), parents[0].name, Path(folder, STATE))
    if file.name == WIRE:  # the Python CLI's sessions/<group>/<session>/wire.jsonl
        return Place(parents[0].name, MAIN, Path(parents[0], STATE))
    return Place(stem, agent, Path(file.with_name(f"{stem}.{STATE}")))


def parse(path: str, data: bytes, project_hint: str, with_prompts: Prompts) -> FileResult:
    """Read one wire file (`with_prompts` is moot: Kimi's prompts are not read)."""
    del with_prompts
    place = place_of(path)
    work_dir, subagent = _manifest(place)
    issues: list[LineIssue] = []
    wire = _Wire(path, place, work_dir or project_hint, subagent or place.agent_id != MAIN)
    wire.named = work_dir is not None
    for number, record in decode_lines(path, data, Record, DECODER, issues):
        wire.add(number, record)
    return FileResult(wire.responses, issues, 0, SOURCE, wire.activity())


def _manifest(place: Place) -> tuple[str | None, bool]:
    """The session's folder and whether the agent is a sub-agent, from the manifest beside the
    wire file, if there is one that can be read."""
    try:
        with place.manifest.open("rb") as handle:
            state = orjson.loads(handle.read(MANIFEST_BYTES))
    except (OSError, orjson.JSONDecodeError):
        return None, False
    if not isinstance(state, dict):
        return None, False
    work_dir = state.get("workDir")
    agents = state.get("agents")
    agent = agents.get(place.agent_id) if isinstance(agents, dict) else None
    sub = isinstance(agent, dict) and agent.get("type") == "sub"
    return (work_dir if isinstance(work_dir, str) else None), sub


class _Wire:
    """What one wire file says, record by record."""

    def __init__(self, path: str, place: Place, project: str, subagent: bool) -> None:
        self.path, self.place, self.project = path, place, project
        self.agent = Agent.SUBAGENT if subagent else Agent.MAIN
        self.named = False
        """Whether the manifest named the project (over the `cwd` a record may give)."""
        self.responses: list[Response] = []
        self.provider = "kimi"
        self.asked_at: float | None = None
        self.compacting = self.compacted = self.new_turn = self.thinks = False
        self.step: Event | None = None
        """The last `step.end`, until its `usage.record` comes."""
        self.calls: list[tuple[str, str, float | None, int]] = []
        """(call id, tool, time, index of the response that asked for it)."""
        self.results: list[ToolResult] = []
        self.events: list[AgentEvent] = []

    def add(self, number: int, record: Record) -> None:
        kind = record.type
        if kind == "usage.record" and record.usage is not None:
            self._counted(number, record, record.usage)
        elif kind == "context.append_loop_event" and record.event is not None:
            self._event(record.event, record.time)
        elif kind == "llm.request":
            self.asked_at = epoch(record.time)
            self.provider = record.provider or self.provider
            self.compacting = self.compacting or record.kind == "compaction"
        elif kind == "full_compaction.begin":
            self.compacting = True
        elif kind == "context.apply_compaction":
            self.compacted = True
        elif kind == "config.update" and record.cwd and not self.named:
            self.project, self.named = record.cwd, True
        elif kind == "turn.prompt":
            self._prompt(record)
        elif record.message is not None and record.message.type == "StatusUpdate":
            self._status(number, record)

    def _event(self, event: Event, time: float | None) -> None:
        kind = event.type
        if kind == "step.end":
            self.step = event
        elif kind == "tool.call" and event.tool_call_id:
            asking = len(self.responses)
            self.calls.append((event.tool_call_id, event.name or "(unnamed)", epoch(time), asking))
        elif kind == "tool.result" and event.tool_call_id:
            outcome = event.result
            error = None
            if outcome is not None and outcome.is_error:
                error = (outcome.output or "error")[:EXCERPT]
            call_id = self._call_id(event.tool_call_id)
            self.results.append(ToolResult(call_id, self.place.session_id, epoch(time), error))
        elif kind == "content.part" and event.part is not None and event.part.type == "think":
            self.thinks = True

    def _prompt(self, record: Record) -> None:
        if record.origin is None or record.origin.kind != "user":
            return
        self.new_turn = True
        text = "\n".join(part.text for part in record.input or () if part.text).strip()
        if text and self.agent is Agent.MAIN:
            command = text.split(maxsplit=1)[0] if text.startswith("/") else None
            identity = f"{SOURCE}:{self.place.session_id}:{record.time}"
            self.events.append(
                AgentEvent(
                    "instruction",
                    self.place.session_id,
                    self.project,
                    epoch(record.time),
                    text[:EXCERPT],
                    command,
                    identity,
                )  # fmt: skip
            )

    def _counted(self, number: int, record: Record, usage: Usage) -> None:
        step, self.step = self.step, None
        twin = step if step is not None and step.usage == usage else None
        compaction = self.compacting or record.usage_scope == "session"
        ended = epoch(record.time)
        latency = twin.llm_first_token_latency_ms if twin is not None else None
        first = self.asked_at + latency / 1000 if self.asked_at is not None and latency else None
        previous = self.responses[-1].key if self.responses else None
        session, agent_id = self.place.session_id, self.place.agent_id
        message_id = twin.message_id if twin is not None else None
        key = (
            f"{SOURCE}:{message_id}"
            if message_id
            else f"{SOURCE}:{session}:{agent_id}:{record.time}"
        )
        self.responses.append(
            Response(
                SOURCE,
                key,
                TOP_LEVEL,
                usage.tokens(),
                False,
                record.model or "(unknown)",
                self.provider,
                session,
                Agent.COMPACTION if compaction else self.agent,
                agent_id,
                self.project,
                first,
                ended,
                self.asked_at,
                None,
                self.path,
                number,
                previous=previous,
                opens_turn=self.new_turn,
                thinks=self.thinks,
                compacted=self.compacted and not compaction,
                harness=Harness.KIMI,
            )  # fmt: skip
        )
        if not compaction:
            self.compacted = False
        self.compacting = self.new_turn = self.thinks = False
        self.asked_at = None

    def _status(self, number: int, record: Record) -> None:
        """A Python Kimi CLI step's usage: it names no model (only the CLI's config does)."""
        payload = record.message.payload if record.message is not None else None
        if payload is None or payload.token_usage is None:
            return  # a context-only update
        usage = payload.token_usage.usage()
        if not any(usage.counts()):
            return
        time = record.timestamp
        key = f"{SOURCE}:{payload.message_id or f'{self.place.session_id}:{time}'}"
        previous = self.responses[-1].key if self.responses else None
        self.responses.append(
            Response(
                SOURCE,
                key,
                TOP_LEVEL,
                usage.tokens(),
                False,
                UNKNOWN_MODEL,
                "kimi",
                self.place.session_id,
                self.agent,
                self.place.agent_id,
                self.project,
                None,
                epoch(time),
                None,
                None,
                self.path,
                number,
                previous=previous,
                harness=Harness.KIMI,
            )  # fmt: skip
        )

    def _call_id(self, tool_call_id: str) -> str:
        """Kimi numbers tool calls per agent (`Bash_0`, `Read_1`): unique only with both."""
        return f"{SOURCE}:{self.place.session_id}:{self.place.agent_id}:{tool_call_id}"

    def activity(self) -> Activity:
        keys = [response.key for response in self.responses]
        session = self.place.session_id
        calls = tuple(
            ToolCall(
                self._call_id(call_id),
                name,
                keys[asking] if asking < len(keys) else "",
                session,
                self.project,
                at,
            )  # fmt: skip
            for call_id, name, at, asking in self.calls
        )
        return Activity(calls, tuple(self.results), tuple(self.events))


FORMATS: tuple[AgentFormat, ...] = (AgentFormat(SOURCE, Layout.LINES, claims, parse),)
