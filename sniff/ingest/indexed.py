"""Provides `parse_indexed`: what each file yields, parsing only what changed since the last run.

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
import hashlib
import os
import pickle
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import msgspec

from sniff import __version__
from sniff.ingest import progress
from sniff.ingest.discover import CHECK_BYTES, SourceFile
from sniff.ingest.formats import parse_source, read_log
from sniff.ingest.index_store import Entry, IndexStore
from sniff.ingest.parallel import map_balanced
from sniff.ingest.record import FileResult, Prompts, decode_result, encode_result
from sniff.ingest.regular import open_regular, read_at
from sniff.ingest.streamed import Resumable, read_lines
from sniff.model import LineIssue

INDEX_FORMAT = 3
"""Bump when what the index stores changes meaning."""
RACY_NS = 2_000_000_000
"""A file modified this recently (ns) may change again within its timestamp's resolution, size
unchanged: its row is stored as never matching, so the next run checks it (from its offset)."""
STATE_RECENT_NS = 86_400 * 10**9
"""A reader's state is kept for files modified this recently (ns), and for files seen to grow:
the files a status line sees grow. Keeping it for every old file would double what a first
run writes, for files that are almost never appended to; one that is gets read whole once."""
STATE_MIN_BYTES = 1 << 20
"""Nor is it kept for files smaller than this: reading one whole again takes a few ms (about
2 ms a MiB), little more than loading its state would, while pickling and storing the states
of every small file costs a first run about a tenth of its time."""
WINDOW_MARGIN_SECONDS = 86_400.0
"""A file is skipped for --since/--until only when all its requests lie this far outside: the
requests just outside still give those inside their cache context (a break's previous call)."""

_ENCODER = msgspec.msgpack.Encoder()
_LINKS = msgspec.msgpack.Decoder(list[str])
_ISSUES = msgspec.msgpack.Decoder(list[LineIssue])


@dataclass(frozen=True, slots=True)
class Task:
    """One file to parse in a worker: whole, or from `entry.offset` with its kept state."""

    file: SourceFile
    entry: Entry | None = None
    grows: bool = False
    """The file grew since the index last saw it: keep its reader's state whatever its age."""


@dataclass(frozen=True, slots=True)
class Parsed:
    """A worker's answer: what the file yields, and its new index row."""

    result: FileResult | None
    """None when it is in the index (`stored`), read and decoded where it is needed."""
    entry: Entry
    stored: bool = False
    """Whether the row is in the index already (written by the process that parsed it)."""


def fingerprint() -> str:
    """Changes whenever the records the index holds could mean something else.

    sniff's version, the index format, and the parsers' own source files (so an edited parser
    in a development checkout never reads records it would no longer produce).
    """
    digest = hashlib.sha256(f"{__version__}:{INDEX_FORMAT}".encode())
    ingest = Path(__file__).parent
    for source in sorted(ingest.glob("*.py")):
        status = source.stat()
        digest.update(f"{source.name}:{status.st_size}:{status.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


def mode_of(log_format: str | None, with_prompts: Prompts) -> str:
    """The index keeps one row per file and way of reading it."""
    return f"{log_format or 'detect'}:{with_prompts}"


def parse_indexed(
    files: list[SourceFile],
    store: IndexStore,
    *,
    roots: list[str],
    log_format: str | None = None,
    with_prompts: Prompts = False,
    window: tuple[float | None, float | None] = (None, None),
    while_waiting: Callable[[], object] | None = None,
) -> list[FileResult]:
    """What each of `files` yields, in their order (see the module docstring).

    Args:
        roots: the folders read; indexed files under them that are gone are forgotten.
        window: (since, until) in epoch seconds: unchanged files wholly outside are not
            decoded (they yield nothing).
    """
    indexed = IndexedFiles(
        files,
        store,
        roots=roots,
        log_format=log_format,
        with_prompts=with_prompts,
        while_waiting=while_waiting,
    )
    return [indexed.result(index, window) for index in range(len(files))]


class IndexedFiles:
    """The files of one run, each parsed now or known to the index as unchanged.

    Creating it parses what changed and updates the index; what unchanged files yielded is
    decoded only when asked for (`result`), so a caller that kept its own analysis of them
    never pays for it.
    """

    def __init__(
        self,
        files: list[SourceFile],
        store: IndexStore,
        *,
        roots: list[str],
        log_format: str | None = None,
        with_prompts: Prompts = False,
        while_waiting: Callable[[], object] | None = None,
    ) -> None:
        self.files = files
        self.store = store
        self.mode = mode_of(log_format, with_prompts)
        self.entries: list[Entry | None] = []
        self.fresh: dict[int, FileResult] = {}
        self.parsed_now: set[int] = set()
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
            elif entry.identity == file.identity:
                continue
            elif _grown(entry, file):
                # offset and state from one read of the row: another run may rewrite it
                grown = store.entry(file.path, self.mode, with_result=False, with_state=True)
                usable = grown is not None and grown.state is not None and _grown(grown, file)
                tasks.append((index, Task(file, grown if usable else None, grows=True)))
            else:
                tasks.append((index, Task(file)))
        work = partial(_counted_task, log_format=log_format, with_prompts=with_prompts)
        weights = [_to_read(task) for _, task in tasks]
        progress.planned(len(tasks), sum(weights))
        parsed = map_balanced(
            work,
            [task for _, task in tasks],
            weights,
            while_waiting=while_waiting,
            finish=partial(keep_rows, keep_in=(store.path, store.fingerprint, self.mode)),
        )
        for (index, _), answer in zip(tasks, parsed, strict=True):
            self.parsed_now.add(index)
            if answer.result is not None:
                self.fresh[index] = answer.result
            self.entries[index] = answer.entry
        unkept = [answer.entry for answer in parsed if not answer.stored]
        store.write(self.mode, unkept, _gone(store, self.mode, roots, files))

    def unchanged(self, index: int) -> bool:
        """Whether file `index` was known to the index as it is (not parsed in this run)."""
        return index not in self.parsed_now

    def entry(self, index: int) -> Entry:
        """File `index`'s index row (without what it yielded)."""
        entry = self.entries[index]
        assert entry is not None
        return entry

    def result(
        self, index: int, window: tuple[float | None, float | None] = (None, None)
    ) -> FileResult:
        """What file `index` yields (see `parse_indexed` for `window`)."""
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
                return decode_result(stored)
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass
        return self._reparsed(index)  # the row vanished or rotted

    def _reparsed(self, index: int) -> FileResult:
        """File `index` read again, its row being gone or not what the index writes (rotted,
        or written by other code); the row is written anew (by this run's own process only:
        see `_store`)."""
        answer = parse_task(Task(self.files[index]), *self._how())
        assert answer.result is not None
        self.fresh[index] = answer.result
        if os.getpid() == self._pid:
            self.entries[index] = answer.entry
            self.store.write(self.mode, [answer.entry])
        return answer.result

    def _store(self) -> IndexStore | None:
        """The index, through a connection of this process: SQLite connections must not be
        used across `fork` (`scan_run` calls `result` in workers forked by `map_balanced`)."""
        if os.getpid() == self._pid:
            return self.store
        if self._forked_store is None:
            self._forked_store = IndexStore.open(self.store.path.parent, self.store.fingerprint)
        return self._forked_store

    def skippable(self, window: tuple[float | None, float | None]) -> frozenset[int]:
        """Unchanged files that need not be decoded for `window`: every file of their unit
        (`analyses.units`) lies well outside it, so none of their calls can count or settle
        which copy of a call inside the window is kept."""
        if window == (None, None):
            return frozenset()
        cached = self._skippable.get(window)
        if cached is None:
            from sniff.analyses.units import units

            cached = frozenset(
                index
                for group in units([self.links(index) for index in range(len(self.files))])
                if all(
                    self.unchanged(member) and _outside(self.entry(member), *window)
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
            return list(_LINKS.decode(links)) if links else []
        except (msgspec.DecodeError, msgspec.ValidationError):
            return links_of(self._reparsed(index))

    def account(self, index: int) -> tuple[str | None, int, list[LineIssue]]:
        """File `index`'s format, harness messages and issues, without decoding its records."""
        fresh = self.fresh.get(index)
        if fresh is not None:
            return fresh.log_format, fresh.synthetic, fresh.issues
        entry = self.entry(index)
        try:
            issues = list(_ISSUES.decode(entry.issues)) if entry.issues else []
        except (msgspec.DecodeError, msgspec.ValidationError):
            fresh = self._reparsed(index)
            return fresh.log_format, fresh.synthetic, fresh.issues
        return entry.log_format, entry.synthetic, issues

    def _how(self) -> tuple[str | None, Prompts]:
        log_format, _, prompts = self.mode.partition(":")
        parsed: Prompts = {"True": True, "False": False}.get(prompts, "sized")
        return (None if log_format == "detect" else log_format), parsed


def _grown(entry: Entry, file: SourceFile) -> bool:
    """Whether `file` may be `entry`'s file with lines appended (checked again on reading).

    A file that did not grow is read whole: if it changed at all, it was rewritten.
    """
    return entry.inode == file.inode and file.size > entry.size and file.size >= entry.offset > 0


def links_of(result: FileResult) -> list[str]:
    """The sessions and call keys of a file's calls, and the calls they continue.

    Files that share any of these must be analysed together: the merge keeps one copy of a
    call, and a chain of calls (a session, a resumed session) is followed across files.
    """
    found: set[str] = set()
    for response in result.responses:
        found.add("s:" + response.session_id)
        found.add("k:" + response.key)
        if response.previous:
            found.add("k:" + response.previous)
    return sorted(found)


def keep_rows(parsed: list[Parsed], keep_in: tuple[Path, str, str]) -> list[Parsed]:
    """Store a batch's rows from the process that parsed them, in one transaction.

    Why there: a file's stored records and parser state are as large as what it yields;
    sending them to the main process only to be written would double the memory and the
    copying. The answers come back with neither: whoever needs a file's records reads them
    from the index, as for a file that did not change (sending them took a first scan of the
    benchmark corpus 60 ms with both cores idle). Rows that could not be stored here come
    back whole, for the main process to write.
    """
    path, fingerprint, mode = keep_in
    store = IndexStore.open(path.parent, fingerprint)  # this process's own connection
    if store is None:
        return parsed
    try:
        store.write(mode, [answer.entry for answer in parsed])
        kept = not store.broken
    finally:
        store.close()
    if not kept:
        return parsed
    return [
        Parsed(None, dataclasses.replace(answer.entry, result=b"", state=None), stored=True)
        for answer in parsed
    ]


def _to_read(task: Task) -> int:
    """The bytes `task` reads: from where the last run stopped, or the whole file."""
    return task.file.size - (task.entry.offset if task.entry else 0)


def _counted_task(task: Task, log_format: str | None, with_prompts: Prompts) -> Parsed:
    """`parse_task`, counted as read (`progress`)."""
    answer = parse_task(task, log_format, with_prompts)
    progress.read(_to_read(task), len(answer.result.responses) if answer.result else 0)
    return answer


def parse_task(task: Task, log_format: str | None, with_prompts: Prompts) -> Parsed:
    """Parse one file as `task` says (in a worker process).

    A `sniff export` folder is read whole; its row matches while the identity `discover`
    gave it (that of all its tables) is unchanged.
    """
    file, entry = task.file, task.entry
    if file.problem:  # never opened; its row never matches, so the next run looks again
        result = parse_source(file, log_format, with_prompts)
        return Parsed(result, _entry(dataclasses.replace(file, mtime_ns=-1), result, 0, 0, None))
    if entry is not None and entry.state is not None:
        resumed = _resume(file, entry)
        if resumed is not None:
            return resumed
    recent = file.mtime_ns > time.time_ns() - STATE_RECENT_NS
    keep_state = file.size >= STATE_MIN_BYTES and (task.grows or recent)
    read = read_log(file.path, file.project_hint, log_format, with_prompts, keep_state=keep_state)
    if read.problem is not None and read.problem in read.result.issues:  # try next run
        file = dataclasses.replace(file, mtime_ns=-1)
    return Parsed(read.result, _entry(file, read.result, read.offset, read.lines, read.state))


def _resume(file: SourceFile, entry: Entry) -> Parsed | None:
    """Read on from where the last run stopped; None when the file is not what it was: the
    last `CHECK_BYTES` it had then (up to `entry.size`) must be as they were."""
    checked = max(0, entry.size - CHECK_BYTES)
    try:
        descriptor, _ = open_regular(file.path)
        with open(descriptor, "rb", buffering=0):  # closes it
            if zlib.crc32(read_at(descriptor, entry.size - checked, checked)) != entry.tail_crc:
                return None  # rewritten in place, not appended to
            assert entry.state is not None
            reader: Resumable = pickle.loads(entry.state)
            read = read_lines(descriptor, reader, entry.offset, entry.lines, keep_state=True)
    except Exception:  # unreadable file or state: read it whole instead
        return None
    return Parsed(read.result, _entry(file, read.result, read.offset, read.lines, read.state))


def _entry(
    file: SourceFile, result: FileResult, offset: int, lines: int, state: bytes | None
) -> Entry:
    """`file`'s row: its identity as listed, with what it yielded read from `offset` on."""
    first, last = _time_range(result)
    mtime_ns = -1 if file.mtime_ns > time.time_ns() - RACY_NS else file.mtime_ns
    return Entry(
        file.path, file.size, mtime_ns, file.inode, file.ctime_ns, offset, lines, file.tail_crc,
        first, last, encode_result(result), state, result.log_format,
        _ENCODER.encode(links_of(result)), _ENCODER.encode(result.issues), result.synthetic,
    )  # fmt: skip


def _time_range(result: FileResult) -> tuple[float | None, float | None]:
    times = [
        moment
        for response in result.responses
        for moment in (response.started_at, response.first_at, response.last_at)
        if moment is not None
    ]
    return (min(times), max(times)) if times else (None, None)


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


def default_index_folder() -> Path | None:
    """Where the index lives: the user cache folder (`SNIFF_CACHE_DIR` overrides it)."""
    from sniff.price_table import default_cache_folder

    return default_cache_folder()


def open_index() -> IndexStore | None:
    """The on-disk index in the user cache folder; None when it is disabled or unusable."""
    folder = default_index_folder()
    return None if folder is None else IndexStore.open(folder, fingerprint())
