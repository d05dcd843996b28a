"""Provides `parse_task`: one file read in a worker, into what it yields and its index row.

A file is read whole, or, when it only grew, from where the last run stopped by the reader's
kept state (`Resumable`): a reader that `APPENDS` then yields only what the appended lines
hold, stored after what the file yielded before. Its row holds its identity as listed, the
records it yielded (msgpack, `record.encode_result`), what ties its calls to other files'
(`links_of`) and, for a large file modified lately, its reader's state. A worker stores the
rows of what it parsed itself (`keep_rows`): see `indexed` for how a run puts these together.
"""

from __future__ import annotations

import dataclasses
import pickle
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import msgspec

from sniff.ingest import progress
from sniff.ingest.files.discover import CHECK_BYTES, RACY_NS, SourceFile
from sniff.ingest.files.log_formats import parse_source, read_log
from sniff.ingest.files.regular import open_regular, read_at
from sniff.ingest.files.streamed import Resumable, read_lines
from sniff.ingest.index.store import Entry, IndexStore
from sniff.ingest.record import FileResult, Prompts, encode_result
from sniff.model import LineIssue

STATE_RECENT_NS = 86_400 * 10**9
"""A reader's state is kept for files modified this recently (ns), and for files seen to grow:
the files a status line sees grow. Keeping it for every old file would double what a first
run writes, for files that are almost never appended to; one that is gets read whole once."""
STATE_MIN_BYTES = 1 << 20
"""Nor is it kept for files smaller than this: reading one whole again takes a few ms (about
2 ms a MiB), little more than loading its state would, while pickling and storing the states
of every small file costs a first run about a tenth of its time."""

_ENCODER = msgspec.msgpack.Encoder()
LINKS = msgspec.msgpack.Decoder(list[str])
ISSUES = msgspec.msgpack.Decoder(list[LineIssue])


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
        Parsed(
            None if answer.entry.after is None else answer.result,  # small: what lines added
            dataclasses.replace(answer.entry, result=b"", state=None),
            stored=True,
        )
        for answer in parsed
    ]


def to_read(task: Task) -> int:
    """The bytes `task` reads: from where the last run stopped, or the whole file."""
    return task.file.size - (task.entry.offset if task.entry else 0)


def counted_task(task: Task, log_format: str | None, with_prompts: Prompts) -> Parsed:
    """`parse_task`, counted as read (`progress`)."""
    answer = parse_task(task, log_format, with_prompts)
    progress.read(to_read(task), len(answer.result.responses) if answer.result else 0)
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
        if entry.size > entry.offset and not any(  # a cut last line was read: if it yielded
            issue.line == entry.lines + 1 and not issue.kept
            for issue in ISSUES.decode(entry.issues)
        ):  # anything but its skipping, an appending reader would count it twice
            return None
        descriptor, _ = open_regular(file.path)
        with open(descriptor, "rb", buffering=0):  # closes it
            if zlib.crc32(read_at(descriptor, entry.size - checked, checked)) != entry.tail_crc:
                return None  # rewritten in place, not appended to
            assert entry.state is not None
            reader: Resumable = pickle.loads(entry.state)
            read = read_lines(descriptor, reader, entry.offset, entry.lines, keep_state=True)
        new = _entry(file, read.result, read.offset, read.lines, read.state)
        return Parsed(read.result, _after(entry, new) if reader.APPENDS else new)
    except Exception:  # an unreadable file, state or row, or `claude_code.Unresumable`: the
        return None  # file is read whole


def _after(old: Entry, new: Entry) -> Entry:
    """The row of `old`'s file grown, from `new`, the row of what the appended lines yield."""
    links = LINKS.decode(old.links)
    links += sorted(set(LINKS.decode(new.links)).difference(links))
    times = [t for t in (old.first_at, old.last_at, new.first_at, new.last_at) if t is not None]
    return dataclasses.replace(
        new,
        first_at=min(times, default=None),
        last_at=max(times, default=None),
        links=_ENCODER.encode(links),
        issues=_ENCODER.encode(
            [i for i in ISSUES.decode(old.issues) if i.line <= old.lines]
            + ISSUES.decode(new.issues)
        ),
        synthetic=old.synthetic + new.synthetic,
        after=old.lines,
    )


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
