"""Provides `map_files`: run a per-file parser over many files, on all cores when it pays.

Why: parsing is CPU-bound JSON decoding, so one process uses one core. Files are independent,
so they are spread over worker processes in batches balanced by size; small inputs stay in
this process, where starting workers would cost more than it saves.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from typing import TypeVar

from sniff.ingest.discover import SourceFile

Result = TypeVar("Result")

PARALLEL_MIN_BYTES = 16 * 1024 * 1024
"""Below this much input, one process is faster than starting workers."""


def map_files(
    parse: Callable[..., Result],
    files: list[SourceFile],
    workers: int | None = None,
    while_waiting: Callable[[], object] | None = None,
) -> list[Result]:
    """`parse(path, project_hint)` for every file, results in the order of `files`.

    `while_waiting` runs in this process while the workers parse (or before parsing, when
    there are no workers): a place for slow set-up the results will need.
    """
    workers = workers if workers is not None else _usable_cores()
    total = sum(file.size for file in files)
    if workers < 2 or len(files) < 2 or total < PARALLEL_MIN_BYTES:
        if while_waiting is not None:
            while_waiting()
        return [parse(file.path, file.project_hint) for file in files]
    # This process parses a share too: it would idle otherwise, and its results need no
    # pickling. It takes the lightest share, since it also runs `while_waiting`.
    batches = _balanced_batches(files, workers)
    mine, theirs = batches[-1], batches[:-1]
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with context.Pool(len(theirs)) as pool:
        pending = pool.starmap_async(_parse_batch, [(parse, batch) for batch in theirs])
        if while_waiting is not None:
            while_waiting()
        by_index: dict[int, Result] = dict(_parse_batch(parse, mine))
        for batch_results in pending.get():
            by_index.update(batch_results)
    return [by_index[index] for index in range(len(files))]


def _parse_batch(
    parse: Callable[..., Result], batch: list[tuple[int, SourceFile]]
) -> list[tuple[int, Result]]:
    return [(index, parse(file.path, file.project_hint)) for index, file in batch]


def _balanced_batches(files: list[SourceFile], count: int) -> list[list[tuple[int, SourceFile]]]:
    """Greedy longest-first packing: each file goes to the lightest batch so far.

    Batches come out heaviest first.
    """
    batches: list[list[tuple[int, SourceFile]]] = [[] for _ in range(min(count, len(files)))]
    loads = [0] * len(batches)
    order = sorted(enumerate(files), key=lambda item: -item[1].size)
    for index, file in order:
        lightest = loads.index(min(loads))
        batches[lightest].append((index, file))
        loads[lightest] += file.size
    ordered = sorted(zip(loads, batches, strict=True), key=lambda pair: -pair[0])
    return [batch for _, batch in ordered if batch]


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1
