"""Provides `map_files` and `map_balanced`: independent work on all cores, with the cyclic
garbage collector paused (`collector_paused`).

Why: parsing is CPU-bound JSON decoding, so one process uses one core. Files are independent,
so they are spread over worker processes in chunks that shrink towards the end
(`shrinking_chunks`); small inputs stay in this process, where starting workers would cost
more than it saves. Work on data this process already holds (the records of a whole scan)
goes to workers forked from it, which inherit the data instead of receiving it.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from sniff.ingest import progress
from sniff.ingest.files.discover import SourceFile
from sniff.ingest.record import FileResult, decode_result, encode_result

Item = TypeVar("Item")
Result = TypeVar("Result")

PARALLEL_MIN_BYTES = 16 * 1024 * 1024
"""Below this much input, one process is faster than starting workers."""


def map_files(
    parse: Callable[[SourceFile], FileResult],
    files: list[SourceFile],
    workers: int | None = None,
    while_waiting: Callable[[], object] | None = None,
) -> list[FileResult]:
    """`parse(file)` for every file, results in the order of `files`.

    `while_waiting` runs in this process while the workers parse (or before parsing, when
    there are no workers): a place for slow set-up the results will need. Workers send their
    results back as msgpack (`record.encode_result`), not pickled. Each file read is counted
    (`progress`).
    """
    progress.planned(len(files), sum(file.size for file in files))
    parsed: list[FileResult | bytes] = map_balanced(
        partial(_parse_file, parse),
        files,
        [file.size for file in files],
        workers=workers,
        while_waiting=while_waiting,
        finish=_encoded,
    )
    return [decode_result(item) if isinstance(item, bytes) else item for item in parsed]


def _encoded(results: list[FileResult | bytes]) -> list[FileResult | bytes]:
    """A worker's results as msgpack; this process's stay as they are (nothing to send)."""
    import multiprocessing

    if multiprocessing.parent_process() is None:
        return results
    return [encode_result(item) if isinstance(item, FileResult) else item for item in results]


_pauses = 0
_pauses_lock = threading.Lock()
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector for the block (in this process and the
    workers forked inside it); nested and concurrent pauses end with the last one.

    Why: parsing and analysing build a heap of long-lived records that hold no reference
    cycles, and the collector would walk that growing heap again and again: about a tenth of
    a large scan. Reference counting still frees everything that is not a cycle.

    A pause that ends on the main thread (a command-line run) also freezes what outlived it
    (`gc.freeze`): otherwise the first collection after it, and the one at exit, would walk
    every object made during the pause once more. One that ends on another thread (the TUI's
    loaders) leaves them to the collector: a long-running app must reclaim its cycles.
    """
    global _pauses, _was_enabled
    with _pauses_lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pauses_lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                if threading.current_thread() is threading.main_thread():
                    gc.freeze()
                gc.enable()


@collector_paused()  # in the workers forked inside too
def map_balanced(
    work: Callable[[Item], Result],
    items: list[Item],
    weights: list[int],
    workers: int | None = None,
    while_waiting: Callable[[], object] | None = None,
    finish: Callable[[list[Result]], list[Result]] | None = None,
    *,
    minimum: int | None = None,
    inherit: bool = False,
) -> list[Result]:
    """`work(item)` for every item, on all cores when the total weight (bytes) is worth it.

    Results come in the order of `items`; `while_waiting` as in `map_files`. `finish`, when
    given and the work is shared out, runs on each batch's results in the process that made
    them and returns what is kept instead (to store them where they were made and hold less,
    say); when everything runs here, results come back as they are.

    Args:
        minimum: the total weight below which everything runs here (`PARALLEL_MIN_BYTES`).
        inherit: `work` and `items` must reach the workers by `fork`, never pickled (a closure
            over this process's data, say): only results travel. Without `fork` (not on
            POSIX), everything then runs here.
    """
    workers = workers if workers is not None else _usable_cores()
    minimum = PARALLEL_MIN_BYTES if minimum is None else minimum
    cannot_fork = inherit and os.name != "posix"
    if workers < 2 or len(items) < 2 or sum(weights) < minimum or cannot_fork:
        if while_waiting is not None:
            while_waiting()
        return [work(item) for item in items]
    # This process takes work too: it would idle otherwise, and its results need no pickling.
    # With `fork` the workers find `shared` in their copy of this process: nothing is pickled.
    # Work goes out in chunks, heaviest items first, to whichever process is free (this one
    # starts late, after `while_waiting`); chunks shrink as the work left does, so the last
    # ones are small and all processes finish at about the same time.
    chunks = shrinking_chunks(weights, workers)
    import multiprocessing  # only when there is enough to share out

    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    shared = _Shared(context.Value("i", 0), work, items, chunks, finish)
    _use(shared)
    try:
        with context.Pool(workers - 1, initializer=_use, initargs=(shared,)) as pool:
            pending = pool.map_async(_drain, range(workers - 1))
            if while_waiting is not None:
                while_waiting()
            by_index: dict[int, Result] = dict(_drain(0))
            for batch_results in pending.get():
                by_index.update(batch_results)
    finally:
        _use(None)
    return [by_index[index] for index in range(len(items))]


ITEM_BYTES = 48 * 1024
"""What taking one more item costs beyond its weight, in bytes of parsing: opening a file,
starting its reader, encoding and storing its row take about as long as parsing this much."""
FINEST_CHUNKS_PER_PROCESS = 16
"""The smallest chunk is this fraction of a process's share: finer chunks balance the end
better, and each costs a commit (`finish`)."""


@dataclass(frozen=True)
class _Shared:
    """What `map_balanced`'s processes share: the next chunk to take, and the work."""

    next_chunk: Any  # a multiprocessing.Value("i")
    work: Callable[[Any], Any]
    items: list[Any]
    chunks: list[list[int]]
    finish: Callable[[list[Any]], list[Any]] | None


_SHARED: _Shared | None = None


def _use(shared: _Shared | None) -> None:
    global _SHARED
    _SHARED = shared


def _drain(_: int) -> list[tuple[int, Any]]:
    """Take chunks until none is left; the finished results of every chunk taken."""
    shared = _SHARED
    assert shared is not None, "set by map_balanced in every process it uses"
    done: list[tuple[int, Any]] = []
    while True:
        with shared.next_chunk.get_lock():
            taken = shared.next_chunk.value
            shared.next_chunk.value = taken + 1
        if taken >= len(shared.chunks):
            return done
        chunk = shared.chunks[taken]
        results = [shared.work(shared.items[index]) for index in chunk]
        if shared.finish is not None and results:
            results = shared.finish(results)
        done += zip(chunk, results, strict=True)


def _parse_file(parse: Callable[[SourceFile], FileResult], file: SourceFile) -> FileResult:
    result = parse(file)
    progress.read(file.size, len(result.responses))
    return result


def shrinking_chunks(weights: list[int], processes: int) -> list[list[int]]:
    """Item indexes cut into chunks to take in order, heaviest items first (guided
    self-scheduling): each chunk weighs a share of the work still left (`1 / (2 processes)`),
    but never less than `1 / (FINEST_CHUNKS_PER_PROCESS * processes)` of it all. An item
    weighs its weight plus `ITEM_BYTES`.

    Why shrinking: whichever process takes the last chunk finishes last; equal chunks leave
    the others idle for up to one chunk, small last chunks for a moment.
    """
    costs = [weight + ITEM_BYTES for weight in weights]
    left = sum(costs)
    finest = left / (FINEST_CHUNKS_PER_PROCESS * processes)
    chunks: list[list[int]] = []
    chunk: list[int] = []
    load = 0
    for index in sorted(range(len(costs)), key=lambda i: -costs[i]):
        chunk.append(index)
        load += costs[index]
        if load >= max(left / (2 * processes), finest):
            chunks.append(chunk)
            left -= load
            chunk, load = [], 0
    if chunk:
        chunks.append(chunk)
    return chunks


def balanced_batches(weights: list[int], count: int) -> list[list[int]]:
    """Greedy longest-first packing of item indexes: each goes to the lightest batch so far.

    Batches come out heaviest first.
    """
    batches: list[list[int]] = [[] for _ in range(min(count, len(weights)))]
    loads = [0] * len(batches)
    for index in sorted(range(len(weights)), key=lambda i: -weights[i]):
        lightest = loads.index(min(loads))
        batches[lightest].append(index)
        loads[lightest] += weights[index]
    ordered = sorted(zip(loads, batches, strict=True), key=lambda pair: -pair[0])
    return [batch for _, batch in ordered if batch]


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1
