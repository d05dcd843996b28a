"""Provides `IndexedFiles`: what each file yields, parsing only what changed since the last run.

A file the index has seen with the same identity (size, modification and inode change times,
inode, and the checksum of its last 4 KiB: see `discover.SourceFile`) is not read at all: its
records come from the index. A file that only grew (same inode, the last 4 KiB before the old
end unchanged) is read from where the last run stopped, by the parser's kept state. Anything
else (new, rewritten, replaced, truncated) is read whole; a file that cannot be read now is
reported so, never served from the index. Files the index holds under the folders read but
that are gone are dropped from it. Parsing runs on all cores as a cold scan does: each
process stores the rows of what it parsed, chunk by chunk (`keep_rows`), and keeps none of the
records (readers take them from the index); a run small enough for one process stores its
rows, and forgets the deleted files, in one transaction at the end.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from functools import partial
from itertools import chain

import msgspec

from sniff.ingest import progress
from sniff.ingest.files.discover import SourceFile
from sniff.ingest.index import rows as index_rows
from sniff.ingest.index.rows import ISSUES, LINKS, Task, counted_task, keep_rows, links_of, to_read
from sniff.ingest.index.store import Entry, Holdings, IndexStore
from sniff.ingest.parallel import map_balanced
from sniff.ingest.record import FileResult, Prompts, decode_result, encode_result
from sniff.model import Activity, LineIssue, ToolCall, ToolResult
from sniff.paths import cache_folder, identity

INDEX_FORMAT = 6
"""Bump when what the index stores changes meaning."""
JOINED_PARTS = 16
"""A file whose records are stored in more parts (one per reading on) is stored in one again
when they are next read."""
WINDOW_MARGIN_SECONDS = 86_400.0
"""A file is skipped for --since/--until only when all its requests lie this far outside: the
requests just outside still give those inside their cache context (a break's previous call)."""


def fingerprint() -> str:
    """Changes whenever the records the index holds could mean something else: sniff's
    version and code, and the index format (`paths.identity`)."""
    return identity("index", INDEX_FORMAT)


def mode_of(log_format: str | None, with_prompts: Prompts) -> str:
    """The index keeps one row per file and way of reading it."""
    return f"{log_format or 'detect'}:{with_prompts}"


class IndexedFiles:
    """The files of one run, each parsed now or known to the index as unchanged.

    Creating it parses what changed and updates the index; what unchanged files yielded is
    decoded only when asked for (`result`), so a caller that kept its own analysis of them
    never pays for it. Indexed files under `roots` (the folders read) that are gone are
    forgotten.
    """

    def __init__(
        self,
        files: list[SourceFile],
        store: IndexStore,
        *,
        roots: list[str],
        log_format: str | None = None,
        with_prompts: Prompts = Prompts.NONE,
        while_waiting: Callable[[], object] | None = None,
    ) -> None:
        self.files = files
        self.store = store
        self.mode = mode_of(log_format, with_prompts)
        self._how = (log_format, with_prompts)
        self.entries: list[Entry | None] = []
        self.fresh: dict[int, FileResult] = {}
        self.parsed_now: set[int] = set()
        """Files parsed in this run; the index knew the others as they are."""
        self.appended: dict[int, tuple[Entry, FileResult]] = {}
        self.new: set[int] = set()
        """Files the index did not know before this run (a subagent's transcript that
        appeared): a unit they join grew by all they yield (`workspace.parts`)."""
        self._pid = os.getpid()
        self._forked_store: IndexStore | None = None
        self._skippable: dict[tuple[float | None, float | None], frozenset[int]] = {}
        tasks: list[tuple[int, Task]] = []
        known = store.entries([file.path for file in files], self.mode)
        for index, file in enumerate(files):
            entry = known.get(file.path)
            self.entries.append(entry)
            if entry is None or file.problem:
                tasks.append((index, Task(file)))
                if entry is None and not file.problem:
                    self.new.add(index)
            elif entry.identity == file.identity:
                continue
            elif _grown(entry, file):
                # offset and state from one read of the row: another run may rewrite it
                grown = store.entry(file.path, self.mode, with_state=True)
                usable = grown is not None and grown.state is not None and _grown(grown, file)
                tasks.append((index, Task(file, grown if usable else None, grows=True)))
            else:
                tasks.append((index, Task(file)))
        work = partial(counted_task, log_format=log_format, with_prompts=with_prompts)
        weights = [to_read(task) for _, task in tasks]
        progress.planned(len(tasks), sum(weights))
        parsed = map_balanced(
            work,
            [task for _, task in tasks],
            weights,
            while_waiting=while_waiting,
            finish=partial(keep_rows, keep_in=(store.path, store.fingerprint, self.mode)),
        )
        for (index, task), answer in zip(tasks, parsed, strict=True):
            self.parsed_now.add(index)
            if answer.entry.after is not None and answer.result is not None and task.entry:
                before = dataclasses.replace(task.entry, state=None)  # the row it read on from
                self.appended[index] = (before, answer.result)
            elif answer.result is not None:
                self.fresh[index] = answer.result
            # what the row stores is in the index or in `fresh`: held twice, a big file's
            # records and reader state would double what its analysis needs
            self.entries[index] = dataclasses.replace(answer.entry, result=b"", state=None)
        unkept = [answer.entry for answer in parsed if not answer.stored]
        del parsed
        store.write(self.mode, unkept, _gone(store, self.mode, roots, files))

    def grown(self, index: int) -> tuple[Entry, FileResult] | None:
        """File `index`'s row before it grew and what the lines appended since yield, when
        it was read on from where the last run stopped (None otherwise)."""
        return self.appended.get(index)

    def entry(self, index: int) -> Entry:
        """File `index`'s index row (without what it yielded)."""
        entry = self.entries[index]
        assert entry is not None
        return entry

    def result(
        self, index: int, window: tuple[float | None, float | None] = (None, None)
    ) -> FileResult:
        """What file `index` yields; `window`: (since, until) in epoch seconds, unchanged
        files wholly outside which are not decoded (they yield nothing)."""
        fresh = self.fresh.get(index)
        if fresh is not None:
            return fresh
        entry = self.entry(index)
        if index in self.skippable(window):
            log_format, synthetic, issues = self.account(index)
            return FileResult([], issues, synthetic, log_format)
        store = self._store()
        stored = store.result(entry.path, self.mode) if store is not None else None
        if stored is not None:
            try:
                joined = _joined([(lines, decode_result(part)) for lines, part in stored])
            except (msgspec.DecodeError, msgspec.ValidationError):
                return self._reparsed(index)
            if len(stored) > JOINED_PARTS and store is self.store:  # one part to decode next time
                store.join_records(entry.path, self.mode, stored[-1][0], encode_result(joined))
            return joined
        return self._reparsed(index)  # the row vanished or rotted

    def _reparsed(self, index: int) -> FileResult:
        """File `index` read again, its row being gone or not what the index writes (rotted,
        or written by other code); the row is written anew (by this run's own process only:
        see `_store`)."""
        answer = index_rows.parse_task(Task(self.files[index]), *self._how)
        assert answer.result is not None
        self.fresh[index] = answer.result
        if os.getpid() == self._pid:
            self.entries[index] = answer.entry
            self.store.write(self.mode, [answer.entry])
        return answer.result

    def _store(self) -> IndexStore | None:
        """The index, through a connection of this process: SQLite connections must not be
        used across `fork` (`workspace.scan` calls `result` in workers forked by `map_balanced`)."""
        if os.getpid() == self._pid:
            return self.store
        if self._forked_store is None:
            self._forked_store = IndexStore.open(self.store.path.parent, self.store.fingerprint)
        return self._forked_store

    def skippable(self, window: tuple[float | None, float | None]) -> frozenset[int]:
        """Unchanged files that need not be decoded for `window`: every file of their unit
        (`ingest.index.units`) lies well outside it, so none of their calls can count or settle
        which copy of a call inside the window is kept."""
        if window == (None, None):
            return frozenset()
        cached = self._skippable.get(window)
        if cached is None:
            from sniff.ingest.index.units import units

            cached = frozenset(
                index
                for group in units([self.links(index) for index in range(len(self.files))])
                if all(
                    member not in self.parsed_now and _outside(self.entry(member), *window)
                    for member in group
                )
                for index in group
            )
            self._skippable[window] = cached
        return cached

    def links(self, index: int) -> list[str]:
        """What ties file `index`'s calls to other files' (see `links_of`), as its row keeps it."""
        links = self.entry(index).links
        try:
            return list(LINKS.decode(links)) if links else []
        except (msgspec.DecodeError, msgspec.ValidationError):
            return links_of(self._reparsed(index))

    def account(self, index: int) -> tuple[str | None, int, list[LineIssue]]:
        """File `index`'s format, harness messages and issues, without decoding its records."""
        fresh = self.fresh.get(index)
        if fresh is not None:
            return fresh.log_format, fresh.synthetic, fresh.issues
        entry = self.entry(index)
        try:
            issues = list(ISSUES.decode(entry.issues)) if entry.issues else []
        except (msgspec.DecodeError, msgspec.ValidationError):
            fresh = self._reparsed(index)
            return fresh.log_format, fresh.synthetic, fresh.issues
        return entry.log_format, entry.synthetic, issues


def _joined(stored: list[tuple[int, FileResult]]) -> FileResult:
    """A file's records stored in parts (its first reading, then each reading on) as one:
    a later part holds the responses its lines added to or changed (`claude_code.Reader`),
    and reads again the cut last line an earlier one reported. A tool call or result is the
    first one seen of its id, as a reader of the whole file keeps it."""
    if len(stored) == 1:
        return stored[0][1]
    parts = [part for _, part in stored]
    issues = [i for lines, part in stored[:-1] for i in part.issues if i.line <= lines]
    done = [part.activity for part in parts if part.activity is not None]
    calls: dict[str, ToolCall] = {}
    results: dict[str, ToolResult] = {}
    for each in done:
        for call in each.calls:
            calls.setdefault(call.id, call)
        for result in each.results:
            results.setdefault(result.tool_use_id, result)
    events = tuple(chain.from_iterable(each.events for each in done))
    activity = Activity(tuple(calls.values()), tuple(results.values()), events)
    return FileResult(
        list({r.key: r for part in parts for r in part.responses}.values()),  # later copies win
        issues + parts[-1].issues,
        sum(part.synthetic for part in parts),
        parts[0].log_format,
        activity if done else None,
        tuple(sorted({r for part in parts for r in part.limits}, key=lambda r: (r.at, r.window))),
    )


def _grown(entry: Entry, file: SourceFile) -> bool:
    """Whether `file` may be `entry`'s file with lines appended (checked again on reading).

    A file that did not grow is read whole: if it changed at all, it was rewritten. But for
    one whose row was stored too soon after a write to be trusted (`discover.RACY_NS`): read
    on from where it ended, its last bytes checked as a grown file's are, so that a watch
    stepping again before anything more was written does not read a big transcript whole.
    """
    longer = file.size > entry.size or (file.size == entry.size and entry.mtime_ns < 0)
    return entry.inode == file.inode and longer and file.size >= entry.offset > 0


def _outside(entry: Entry, since: float | None, until: float | None) -> bool:
    """Whether every request of the file lies well outside [since, until)."""
    if entry.first_at is None or entry.last_at is None:
        return False
    too_early = since is not None and entry.last_at < since - WINDOW_MARGIN_SECONDS
    too_late = until is not None and entry.first_at > until + WINDOW_MARGIN_SECONDS
    return too_early or too_late


def _gone(store: IndexStore, mode: str, roots: list[str], files: list[SourceFile]) -> list[str]:
    present = {file.path for file in files}
    return [path for path in store.paths_under(roots, mode) if path not in present]


def open_index() -> IndexStore | None:
    """The on-disk index in the user cache folder; None when it is disabled or unusable."""
    folder = cache_folder()
    return None if folder is None else IndexStore.open(folder, fingerprint())


def holdings() -> Holdings | None:
    """What the on-disk index holds (`sniff index`); None when it is off or cannot be opened."""
    store = open_index()
    if store is None:
        return None
    try:
        return store.stats()
    finally:
        store.close()
