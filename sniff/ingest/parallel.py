"""Provides `map_files` and `map_balanced`: per-file work over many files, on all cores.

Why: parsing is CPU-bound JSON decoding, so one process uses one core. Files are independent,
so they are spread over worker processes in batches balanced by size; small inputs stay in
this process, where starting workers would cost more than it saves.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from sniff.ingest.discover import SourceFile

Item = TypeVar("Item")
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
    return map_balanced(
        partial(_parse_file, parse),
        files,
        [file.size for file in files],
        workers=workers,
        while_waiting=while_waiting,
    )


def map_balanced(
    work: Callable[[Item], Result],
    items: list[Item],
    weights: list[int],
    workers: int | None = None,
    while_waiting: Callable[[], object] | None = None,
    finish: Callable[[list[Result]], list[Result]] | None = None,
) -> list[Result]:
    """`work(item)` for every item, on all cores when the total weight (bytes) is worth it.

    Results come in the order of `items`; `while_waiting` as in `map_files`. `finish`, when
    given, runs once on each batch's results in the process that made them (to store them
    there, say) and returns what travels back instead.
    """
    workers = workers if workers is not None else _usable_cores()
    if workers < 2 or len(items) < 2 or sum(weights) < PARALLEL_MIN_BYTES:
        if while_waiting is not None:
            while_waiting()
        results = [work(item) for item in items]
        return finish(results) if finish is not None and results else results
    # This process does a share too: it would idle otherwise, and its results need no
    # pickling. It takes the lightest share, since it also runs `while_waiting`.
    batches = balanced_batches(weights, workers)
    mine, theirs = batches[-1], batches[:-1]
    import multiprocessing  # only when there is enough to share out

    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with context.Pool(len(theirs)) as pool:
        pending = pool.starmap_async(
            _work_batch,
            [(work, [(index, items[index]) for index in batch], finish) for batch in theirs],
        )
        if while_waiting is not None:
            while_waiting()
        by_index: dict[int, Result] = dict(_work_batch(work, [(i, items[i]) for i in mine], finish))
        for batch_results in pending.get():
            by_index.update(batch_results)
    return [by_index[index] for index in range(len(items))]


def _parse_file(parse: Callable[..., Result], file: SourceFile) -> Result:
    return parse(file.path, file.project_hint)


def _work_batch(
    work: Callable[[Item], Result],
    batch: list[tuple[int, Item]],
    finish: Callable[[list[Result]], list[Result]] | None = None,
) -> list[tuple[int, Result]]:
    results = [work(item) for _, item in batch]
    if finish is not None and results:
        results = finish(results)
    return [(index, result) for (index, _), result in zip(batch, results, strict=True)]


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
