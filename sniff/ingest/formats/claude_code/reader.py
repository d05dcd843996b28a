"""Provides the parser of Claude Code transcripts (`~/.claude/projects/**/*.jsonl`).

Why it is more than `json.loads`: Claude Code writes one line per content block, so one API
response spans several lines that repeat its usage (summing them over-counts cache reads almost
twofold), early lines carry placeholder output counts, the lines of one response are not always
adjacent, subagents live in three layouts depending on the version, and a parent file repeats
its subagents' responses inside `progress` lines. This module turns one file into one
`Response` per API response it holds; `ingest.merge` then keeps one per response across files.

A reader kept between runs (`Reader.__reduce__`) holds only what lines appended later can
need: the records of its last lines and responses, and the names of every older one
(`closed`). Resumed, it yields only the responses the appended lines add or change; if those
touch an older record (repeat its uuid or response id, or continue a chain further back), it
raises `Unresumable`, and the file is read whole: either way the file's responses are those
one whole reading gives.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from itertools import islice
from pathlib import PurePath
from typing import TypedDict

import msgspec

from sniff.ingest.files.lines import decode_lines
from sniff.ingest.formats.claude_code.activity import ClaudeCodeActivity
from sniff.ingest.formats.claude_code.closed import Closed, kept_names
from sniff.ingest.formats.claude_code.group import SOURCE as SOURCE
from sniff.ingest.formats.claude_code.group import Group
from sniff.ingest.formats.claude_code.wire import (
    DECODER,
    EmbeddedLine,
    ProgressData,
    WireLine,
    WireUsage,
)
from sniff.ingest.plausible import OUT_OF_RANGE, SURELY_DATED, out_of_range
from sniff.ingest.record import (
    EMBEDDED,
    TOP_LEVEL,
    FileResult,
    epoch,
)
from sniff.model import Agent, LineIssue

SYNTHETIC_MODEL = "<synthetic>"
COMPACT_BOUNDARY = "compact_boundary"
WINDOW_RECORDS = 4096
WINDOW_GROUPS = 1024
"""Records and responses a kept reader holds whole: lines appended later continue the last."""


class Unresumable(Exception):
    """The appended lines need records a kept reader no longer holds: read the file whole."""


class Reader:
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
        self.parents: dict[str, str] = {}
        """uuid → parentUuid of every record, to find the call a request continues."""
        self.owners: dict[str, str] = {}
        """uuid → key of the response an assistant record belongs to."""
        self.sidechains: set[str] = set()
        """uuids of inline sidechain records, to find each sidechain's root."""
        self.sidechain_roots: dict[str, str] = {}
        self.turns: set[str] = set()
        """uuids of user records with new user content (not only tool results)."""
        self.boundaries: set[str] = set()
        """uuids of compaction records: `compact_boundary` lines and compaction summaries."""
        self.branches: dict[str, str] = {}
        """uuid → `gitBranch` of user records that name one, for a response whose own lines
        name none (`branch_of`)."""
        self.groups: dict[str, Group] = {}
        self.last_time = ""
        self.activity = ClaudeCodeActivity()
        self.stem = stem
        self.closed: set[str] | Closed = set()
        """Uuids and response ids of the lines before a kept reader's window (none: this
        reader read the file from its start; a plain set, its lookups the cheapest)."""
        self.kept: _Kept | None = None
        """What a resumed reader was kept with, to tell what the appended lines changed."""

    APPENDS = True
    """Resumed, `result` holds what the lines fed since yield (see the module docstring)."""

    def __reduce__(self) -> tuple[Callable[[bytes, bytes], Reader], tuple[bytes, bytes]]:
        """Pickled as msgpack of its window (`_Kept`): a big transcript's whole reader took a
        second to keep, and reading it back dwarfed reading the lines appended since."""
        uuids = (self.times, self.parents, self.owners)
        recent = {uuid for records in uuids for uuid in islice(reversed(records), WINDOW_RECORDS)}
        roots = {uuid: self.sidechain_root(uuid) for uuid in recent & self.sidechains}
        groups = {key: self.groups[key] for key in islice(reversed(self.groups), WINDOW_GROUPS)}
        named = set().union(*uuids, self.parents.values(), self.sidechains, self.turns)
        named |= self.branches.keys()
        named |= {group.parent for group in self.groups.values() if group.parent}
        named |= self.boundaries | self.groups.keys()
        kept = _Kept(
            path=self.path, file_agent=self.file_agent, project=self.project,
            project_from_cwd=self.project_from_cwd, issues=[], synthetic=0,
            times={u: self.times[u] for u in recent if u in self.times},
            parents={u: self.parents[u] for u in recent if u in self.parents},
            owners={u: self.owners[u] for u in recent if u in self.owners},
            sidechains=recent & self.sidechains, sidechain_roots=roots,
            turns=recent & self.turns, boundaries=recent & self.boundaries,
            branches={u: self.branches[u] for u in recent if u in self.branches},
            groups=dict(reversed(groups.items())),
            last_time=self.last_time, activity=ClaudeCodeActivity(), stem=self.stem,
        )  # fmt: skip
        closed = kept_names(self.closed, named - recent - groups.keys(), recent)
        return _restore, (_KEPT_ENCODER.encode(kept), closed)

    def feed(self, data: bytes, first_line: int = 1, newlines: int | None = None) -> None:
        """Read more lines of the file: `data` holds whole lines from line `first_line` on.

        Why apart from `result`: the index keeps a reader's state, so a transcript that only
        grew is read from where it ended instead of again from its start.
        """
        times = self.times
        parents = self.parents
        sidechains = self.sidechains
        earliest, latest = SURELY_DATED
        lines = decode_lines(self.path, data, WireLine, DECODER, self.issues, first_line, newlines)
        for number, entry in lines:
            # The hot loop of a scan: every line of every transcript passes here once.
            timestamp = entry.timestamp
            if timestamp:
                if not earliest <= timestamp < latest and self._out_of_range(number, timestamp):
                    continue
                self.last_time = timestamp
            uuid = entry.uuid
            if uuid is not None:
                if timestamp:
                    times.setdefault(uuid, timestamp)
                if entry.parentUuid:
                    parents[uuid] = entry.parentUuid
                if entry.isSidechain:
                    sidechains.add(uuid)
            if not self.project_from_cwd and entry.cwd:
                self.project, self.project_from_cwd = entry.cwd, True
            kind = entry.type
            if kind == "assistant" or (kind is None and entry.message is not None):
                self._assistant(number, entry, entry, TOP_LEVEL)
            elif kind == "progress" and entry.data is not None:
                self._progress(number, entry, entry.data)
            elif kind == "user":
                main = not entry.isSidechain and self.file_agent is None
                self.activity.user(entry, entry.sessionId or self.stem, main)
                if uuid is not None:
                    self._user(uuid, entry)
            elif kind == "system" and entry.subtype == COMPACT_BOUNDARY and uuid is not None:
                self.boundaries.add(uuid)

    def _out_of_range(self, number: int, timestamp: str) -> bool:
        """Whether a line's date is one no time zone can show: then it is skipped."""
        if out_of_range(timestamp):
            self.issues.append(LineIssue(self.path, number, OUT_OF_RANGE))
            return True
        return False

    def _user(self, uuid: str, entry: WireLine) -> None:
        """Remember what a user record means to the cache: a new turn, a compaction summary."""
        if entry.isCompactSummary:
            self.boundaries.add(uuid)
        if entry.gitBranch:
            self.branches[uuid] = sys.intern(entry.gitBranch)
        content = entry.message.content if entry.message is not None else None
        if isinstance(content, str):
            self.turns.add(uuid)
        elif isinstance(content, list):
            # a loop, not any(): this runs for every user line of a scan
            for part in content:
                if part.type != "tool_result":
                    self.turns.add(uuid)
                    return

    def result(self) -> FileResult:
        """What the lines read so far hold: one `Response` per API response, and activity.

        A response whose time cannot be read is dated by its file's time (`merge`): said.
        """
        groups = self.groups.values() if self.kept is None else self._changed(self.kept)
        issues = list(self.issues)
        responses = [group.response(self, issues) for group in groups]
        issues.sort(key=lambda issue: issue.line)  # as the records of lines appended later join
        activity = self.activity.freeze(self.project)
        return FileResult(responses, issues, self.synthetic, SOURCE, activity)

    def _changed(self, kept: _Kept) -> list[Group]:
        """The responses the lines fed since `kept` add or change.

        Raises:
            Unresumable: they touch a record before them, or a response whose time the lines
                before could not read: what was yielded already would change.
        """
        pairs = [
            (kept["times"].keys(), self.times.keys()),
            (kept["parents"].keys(), self.parents.keys()),
            (kept["owners"].keys(), self.owners.keys()),
            (kept["sidechains"], self.sidechains),
            (kept["turns"], self.turns),
            (kept["boundaries"], self.boundaries),
            (kept["branches"].keys(), self.branches.keys()),
        ]
        window = set().union(*(before for before, _ in pairs))
        for before, now in pairs:
            added = now - before
            if not (added.isdisjoint(window) and self.closed.isdisjoint(added)):
                raise Unresumable
        if (
            any(self.parents[uuid] != parent for uuid, parent in kept["parents"].items())
            or any(self.owners[uuid] != key for uuid, key in kept["owners"].items())
            or self.project_from_cwd != kept["project_from_cwd"]
            or not self.closed.isdisjoint(self.groups.keys())
        ):
            raise Unresumable
        held = kept["groups"]
        changed = [g for key, g in self.groups.items() if held.get(key) != g]
        for group in changed:
            old = held.get(group.key)
            if old and not all(epoch(at) or not at for at in (old.first_at, old.last_at)):
                raise Unresumable  # its undated line, said before, would be said twice
        return changed

    def _progress(self, number: int, entry: WireLine, data: ProgressData) -> None:
        """A parent's progress line that embeds a subagent's response (2.1.x)."""
        inner = data.message
        if data.type not in (None, "agent_progress") or inner is None:
            return
        if inner.timestamp and self._out_of_range(number, inner.timestamp):
            return
        if inner.type == "assistant":
            self._assistant(number, inner, entry, EMBEDDED, data.agentId)
        elif inner.type == "user":  # the subagent's tool results
            self.activity.user(inner, inner.sessionId or entry.sessionId or self.stem, False)

    def _assistant(
        self,
        number: int,
        line: WireLine | EmbeddedLine,
        envelope: WireLine,
        copy_rank: int,
        embedded_agent: str | None = None,
    ) -> None:
        message = line.message
        if message is None:
            return
        model = message.model
        session = line.sessionId or envelope.sessionId or self.stem
        timestamp = line.timestamp or envelope.timestamp or self.last_time
        if model == SYNTHETIC_MODEL or line.isApiErrorMessage:
            self.synthetic += 1
            if copy_rank == TOP_LEVEL:
                self.activity.api_error(message, session, timestamp)
            return
        key = message.id or line.requestId or line.uuid or f"{self.path}:{number}"
        self.activity.assistant(message, key, session, timestamp)
        usage = message.usage
        if usage is None:
            return
        if copy_rank == TOP_LEVEL and line.uuid:
            self.owners[line.uuid] = key
        group = self.groups.get(key)
        if group is None:
            group = self.groups[key] = self._new_group(
                key, number, line, envelope, usage, model, timestamp, copy_rank, embedded_agent
            )
        else:
            group.widen(timestamp)
            group.offer(number, usage, model, copy_rank)
            if group.branch is None and line.gitBranch:
                group.branch = sys.intern(line.gitBranch)
        group.note(timestamp, message)

    def _new_group(
        self,
        key: str,
        number: int,
        line: WireLine | EmbeddedLine,
        envelope: WireLine,
        usage: WireUsage,
        model: str | None,
        timestamp: str,
        copy_rank: int,
        embedded_agent: str | None,
    ) -> Group:
        agent, agent_id = self._agent(line, copy_rank, embedded_agent)
        session_id = line.sessionId or envelope.sessionId
        version = line.version or envelope.version
        branch = line.gitBranch or envelope.gitBranch
        tokens, ttl_assumed = usage.tokens()
        return Group(
            key,
            copy_rank,
            number,
            tokens,
            ttl_assumed,
            sys.intern(model) if model else "(unknown)",
            sys.intern(session_id) if session_id else "",
            agent,
            sys.intern(agent_id),
            timestamp,
            timestamp,
            line.parentUuid,
            sys.intern(version) if version else None,
            branch=sys.intern(branch) if branch else None,
            request_id=line.requestId,
        )

    def _agent(
        self, line: WireLine | EmbeddedLine, copy_rank: int, embedded_agent: str | None
    ) -> tuple[Agent, str]:
        """Which agent made the call, and the id of its chain within the session."""
        if copy_rank == EMBEDDED or not isinstance(line, WireLine):
            embedded_id = embedded_agent or "embedded"
            return _agent_for_id(embedded_id), embedded_id
        if line.agentId:
            return _agent_for_id(line.agentId), line.agentId
        if self.file_agent is not None:
            return self.file_agent
        if line.isSidechain:
            return Agent.SUBAGENT, ""  # the chain's root is found at the end of the file
        return Agent.MAIN, Agent.MAIN.value

    def previous_call(self, key: str, uuid: str | None) -> tuple[str | None, bool, bool]:
        """The response a request continues (the nearest assistant record up its parent
        chain), whether new user content came since, and whether a compaction did.

        The response is None at the start of a chain: a session's first record, a subagent's
        first record, and a compaction boundary all have no parent.
        """
        steps = 0
        turn = compacted = False
        while uuid is not None and steps < 100_000:
            if uuid in self.closed:
                raise Unresumable
            owner = self.owners.get(uuid)
            if owner is not None and owner != key:
                return owner, turn, compacted
            turn = turn or uuid in self.turns
            compacted = compacted or uuid in self.boundaries
            uuid = self.parents.get(uuid)
            steps += 1
        return None, turn, compacted

    def branch_of(self, uuid: str | None) -> str | None:
        """The `gitBranch` of the user record `uuid` (the one a response answers), if any.

        Raises:
            Unresumable: the record is older than a kept reader's window.
        """
        if uuid is None:
            return None
        branch = self.branches.get(uuid)
        if branch is None and uuid in self.closed:
            raise Unresumable
        return branch

    def sidechain_root(self, uuid: str | None) -> str:
        """The first record of the inline sidechain `uuid` belongs to."""
        if uuid is None:
            return "sidechain"
        path: list[str] = []
        current = uuid
        root = self.sidechain_roots.get(current)
        while root is None:
            parent = self.parents.get(current) if current in self.sidechains else None
            if current in self.closed or parent in self.closed:
                raise Unresumable
            path.append(current)
            if parent is None or parent not in self.sidechains or len(path) > 100_000:
                root = current
                break
            current = parent
            root = self.sidechain_roots.get(current)
        for member in path:  # remember the root of every record walked
            self.sidechain_roots[member] = root
        return root


class _Kept(TypedDict):
    """A `Reader`'s attributes, as kept between runs."""

    path: str
    file_agent: tuple[Agent, str] | None
    project: str
    project_from_cwd: bool
    issues: list[LineIssue]
    synthetic: int
    times: dict[str, str]
    parents: dict[str, str]
    owners: dict[str, str]
    sidechains: set[str]
    sidechain_roots: dict[str, str]
    turns: set[str]
    boundaries: set[str]
    branches: dict[str, str]
    groups: dict[str, Group]
    last_time: str
    activity: ClaudeCodeActivity
    stem: str


_KEPT_ENCODER = msgspec.msgpack.Encoder()
_KEPT_DECODER = msgspec.msgpack.Decoder(_Kept)


def _restore(kept: bytes, closed: bytes) -> Reader:
    """The `Reader` whose window `kept` and older names `closed` hold (see `__reduce__`)."""
    reader = Reader.__new__(Reader)
    vars(reader).update(_KEPT_DECODER.decode(kept), closed=Closed(closed))
    reader.kept = _KEPT_DECODER.decode(kept)  # as kept: the reader's own grow as it reads
    return reader


def _agent_for_id(agent_id: str) -> Agent:
    return Agent.COMPACTION if agent_id.startswith("acompact") else Agent.SUBAGENT


def _agent_from_file_name(stem: str) -> tuple[Agent, str] | None:
    """Subagent files are named `agent-<id>.jsonl`; compaction agents `agent-acompact-<id>`."""
    if not stem.startswith("agent-"):
        return None
    agent_id = stem[len("agent-") :]
    return _agent_for_id(agent_id), agent_id
