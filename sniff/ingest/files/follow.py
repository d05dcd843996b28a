"""Provides `Follower`: log folders read on as they grow, each step giving what was appended.

Why through the index: a step parses only the files that changed since the last one, and a
file that grew is read from where the last step stopped (`IndexedFiles.grown`), so following a
large archive costs what was appended, not a scan. A half-written last line is not read (the
readers stop before it) and is read when it completes; its issue is never reported. Every other
line skipped (unreadable or implausible, as a scan skips it) is reported once, with its file
and line.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sniff.errors import UserError
from sniff.ingest.files.discover import expand, root_name
from sniff.ingest.files.lines import CUT_SHORT
from sniff.ingest.files.streamed import READERS
from sniff.ingest.merge import Pricer, merge
from sniff.ingest.record import FileResult, Response
from sniff.ingest.telemetry import FIRST_HAND_SOURCES
from sniff.model import LineIssue, Request, ToolCall, ToolResult

if TYPE_CHECKING:
    from sniff.ingest.index.indexed import IndexedFiles
    from sniff.ingest.index.store import Entry


@dataclass(frozen=True, slots=True)
class Growth:
    """What one step found: requests not seen before, and the tool activity appended."""

    requests: tuple[Request, ...] = ()
    """New requests, in time order."""
    results: tuple[ToolResult, ...] = ()
    """Tool results not seen before."""
    calls: dict[str, ToolCall] = field(default_factory=dict)
    """Every tool call seen so far, by id (to name a result's tool)."""
    touched: frozenset[str] = frozenset()
    """The sessions that got new requests."""
    skipped: tuple[LineIssue, ...] = ()
    """Lines skipped that no step reported before (`LineIssue.skipped`), in file order."""
    changed: tuple[Request, ...] = ()
    """The requests the step read lines of: the new ones and new copies of earlier ones."""


class Follower:
    """The logs under `roots`, read through the on-disk index; `step` reads on."""

    def __init__(self, roots: list[Path], cost_of: Pricer, log_format: str | None = None) -> None:
        self.roots = roots
        self.cost_of = cost_of
        self.log_format = log_format
        self.requests: dict[str, Request] = {}
        """Every request seen, by key."""
        self._copies: dict[str, dict[tuple[str, int], Response]] = {}
        """Each call's copies, by file and line (a file read whole again yields them again)."""
        self._first_hand = False
        """Whether telemetry or a proxy's record was seen: their calls join copies under other
        keys (`ingest.telemetry`)."""
        self._calls: dict[str, ToolCall] = {}
        self._results: set[str] = set()
        self._skipped: set[LineIssue] = set()
        self._started = False

    def by_session(self, session_id: str) -> list[Request]:
        """The requests of one session, in time order."""
        found = [r for r in self.requests.values() if r.session_id == session_id]
        return sorted(found, key=lambda r: (r.ended_at, r.file, r.line))

    def step(self) -> Growth:
        """Read what changed since the last step (the first step reads everything, through
        the index: only files it does not know as they are are parsed).

        Raises:
            UserError: the on-disk index is disabled or cannot be opened.
        """
        from sniff.ingest.index.indexed import IndexedFiles, open_index

        store = open_index()
        if store is None:
            raise UserError("sniff watch needs the on-disk index; it is disabled or unusable")
        try:
            files = expand(self.roots)
            indexed = IndexedFiles(
                files,
                store,
                roots=[root_name(root) for root in self.roots],
                log_format=self.log_format,
            )
            wanted = range(len(files)) if not self._started else sorted(indexed.parsed_now)
            results = [_appended(indexed, at) for at in wanted]
            skipped = [
                issue for at, result in zip(wanted, results, strict=True)
                for issue in result.issues if _settled(issue, indexed.entry(at))
            ]  # fmt: skip
        finally:
            store.close()
        self._started = True
        return self._take(results, skipped)

    def _take(self, results: Iterable[FileResult], skipped: Iterable[LineIssue]) -> Growth:
        responses: list[Response] = []
        results_new: list[ToolResult] = []
        for result in results:
            responses.extend(result.responses)
            if result.activity is None:
                continue
            for call in result.activity.calls:
                self._calls.setdefault(call.id, call)
            for done in result.activity.results:
                if done.tool_use_id not in self._results:
                    self._results.add(done.tool_use_id)
                    results_new.append(done)
        keys = set()
        for response in responses:
            self._copies.setdefault(response.key, {})[response.file, response.line] = response
            keys.add(response.key)
        self._first_hand = self._first_hand or any(
            r.source in FIRST_HAND_SOURCES for r in responses
        )
        if self._first_hand:  # a first-hand call joins its transcript's copy, under another key
            keys = set(self._copies)
        merged = merge((c for key in keys for c in self._copies[key].values()), self.cost_of)
        if self._first_hand:  # a call counted alone until its transcript's copy came
            kept = {request.key for request in merged}
            self.requests = {k: r for k, r in self.requests.items() if k in kept}
        new = [request for request in merged if request.key not in self.requests]
        # a file read whole again (or its last lines again) yields what was seen: not a change
        changed = [request for request in merged if self.requests.get(request.key) != request]
        for request in merged:
            self.requests[request.key] = request  # a later copy may hold more tokens
        skipped_new = [issue for issue in dict.fromkeys(skipped) if issue not in self._skipped]
        self._skipped.update(skipped_new)  # a file read whole again lists its old ones again
        return Growth(
            tuple(new),
            tuple(results_new),
            self._calls,
            frozenset(request.session_id for request in new),
            tuple(skipped_new),
            tuple(changed),
        )


def _appended(indexed: IndexedFiles, at: int) -> FileResult:
    """What file `at` yields that the last step did not read: the appended lines of a file
    that grew, else the whole file."""
    grown = indexed.grown(at)
    return grown[1] if grown is not None else indexed.result(at)


def _settled(issue: LineIssue, entry: Entry) -> bool:
    """Whether `issue` is a line skipped for good: not a last line cut short (maybe still
    being written), which a later step reads again when it is whole."""
    if not issue.skipped:
        return False
    if entry.log_format in READERS:  # read a block at a time: the whole lines are counted
        return issue.line <= entry.lines
    return issue.reason != CUT_SHORT
