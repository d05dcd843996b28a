"""Work spread over processes (`sniff.ingest.parallel`): the same results, in order, whoever
did the work, in chunks that shrink towards the end, with the cyclic collector paused; and a
scan whose units are analysed in forked workers prints what one process prints, the workers
reading from the index the records the parsers stored there."""

from __future__ import annotations

import gc
import json
import os
import threading
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest import parallel
from sniff.ingest.parallel import collector_paused, map_balanced, shrinking_chunks
from tests.unit.test_index import corpus, transcript


def slow_square(item: int) -> tuple[int, int]:
    time.sleep(0.02)  # long enough that the other process surely takes some chunks
    return item * item, os.getpid()


def tag_batch(results: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """A `finish`: must run in the process that made the results."""
    assert all(pid == os.getpid() for _, pid in results)
    return [(square, -pid) for square, pid in results]


def test_map_balanced_shares_chunks_and_keeps_the_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sniff.ingest.parallel.PARALLEL_MIN_BYTES", 0)
    waited: list[int] = []
    items = list(range(24))
    results = map_balanced(
        slow_square, items, [1] * len(items), workers=2,
        while_waiting=lambda: waited.append(os.getpid()), finish=tag_batch,
    )  # fmt: skip
    assert [square for square, _ in results] == [item * item for item in items]
    assert waited == [os.getpid()]
    assert {-pid for _, pid in results} == {os.getpid(), worker_of(results)}  # both took chunks


def worker_of(results: list[tuple[int, int]]) -> int:
    return next(-pid for _, pid in results if -pid != os.getpid())


def test_everything_run_here_comes_back_unfinished() -> None:
    results = map_balanced(slow_square, [1, 2], [1, 1], workers=1, finish=tag_batch)
    assert results == [(1, os.getpid()), (4, os.getpid())]


def test_inheriting_workers_read_what_this_process_holds() -> None:
    held = {index: f"value {index}" for index in range(16)}  # never pickled: inherited

    def work(index: int) -> tuple[str, int]:
        time.sleep(0.02)
        return held[index], os.getpid()

    results = map_balanced(work, list(held), [1] * len(held), workers=2, minimum=0, inherit=True)
    assert [value for value, _ in results] == [held[index] for index in range(16)]
    assert len({pid for _, pid in results}) == 2


def scan(folder: Path, *options: str) -> dict[str, Any]:
    result = CliRunner().invoke(app, ["scan", "--json", "--verbose", str(folder), *options])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_units_analysed_in_forked_workers_give_the_one_process_numbers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus(tmp_path)
    for number in range(12):
        transcript(tmp_path, f"more{number}", 2, start=4_000 + 600 * number)
    monkeypatch.setattr("sniff.ingest.parallel._usable_cores", lambda: 2)  # even on one core
    monkeypatch.setattr("sniff.workspace.parts.PARALLEL_ANALYSIS_BYTES", 0)
    monkeypatch.setattr("sniff.ingest.parallel.PARALLEL_MIN_BYTES", 0)
    for zone in ("UTC", "Asia/Kolkata"):  # another zone: every unit again, from the index
        assert scan(tmp_path, "--tz", zone) == scan(tmp_path, "--tz", zone, "--no-index")
    for by in ("day", "week"):  # drift's parts are analysed by the same workers
        drifted = [
            CliRunner().invoke(app, ["drift", "--json", str(tmp_path), "--by", by, *extra])
            for extra in ([], ["--no-index"])
        ]
        assert all(result.exit_code == 0 for result in drifted), drifted[0].output
        forked, alone = (json.loads(result.stdout) for result in drifted)
        assert forked["requests"] == alone["requests"] > 0
        assert forked["summary"][0]["measures"]["hit_rate"]["level"] == pytest.approx(
            alone["summary"][0]["measures"]["hit_rate"]["level"], rel=1e-12
        )


def test_chunks_take_every_item_once_heaviest_first_and_end_small() -> None:
    weights = [(index * 7919) % 1_000_003 for index in range(900)]  # 0 B to 1 MB, shuffled
    chunks = shrinking_chunks(weights, 2)
    taken = [index for chunk in chunks for index in chunk]
    assert sorted(taken) == list(range(900))
    assert [weights[index] for index in taken] == sorted(weights, reverse=True)
    costs = [sum(weights[index] + parallel.ITEM_BYTES for index in chunk) for chunk in chunks]
    whole = sum(costs)
    assert costs[0] >= whole / 4  # a quarter of everything: half of one process's share
    finest = whole / (parallel.FINEST_CHUNKS_PER_PROCESS * 2)
    assert all(cost <= finest * 1.1 for cost in costs[-3:])  # the end is cut finely
    assert all(later <= earlier * 1.01 for earlier, later in pairwise(costs[:-1]))
    assert len(chunks) < 20  # each chunk costs a commit


def test_chunks_of_nothing_and_of_one_heavy_item() -> None:
    assert shrinking_chunks([], 2) == []
    assert shrinking_chunks([10**9, 1, 1], 2) == [[0], [1, 2]]  # the rest is below the finest


def collector_state(_: int) -> tuple[bool, int]:
    return gc.isenabled(), os.getpid()


def test_the_collector_is_paused_while_work_runs_here_and_in_workers() -> None:
    assert gc.isenabled()
    results = map_balanced(collector_state, list(range(8)), [1] * 8, workers=2, minimum=0)
    assert {enabled for enabled, _ in results} == {False}
    assert gc.isenabled()  # and on again after
    assert map_balanced(collector_state, [1], [1], workers=1)[0][0] is False


def test_what_outlives_a_pause_on_the_main_thread_is_frozen_and_on_another_is_not() -> None:
    gc.unfreeze()
    try:
        with collector_paused():
            kept = [{"record": number} for number in range(1000)]
        assert gc.get_freeze_count() >= len(kept)  # neither walked again nor at exit
        gc.unfreeze()

        def load() -> None:
            with collector_paused():
                kept.extend({"record": number} for number in range(1000))

        thread = threading.Thread(target=load)
        thread.start()
        thread.join(5)
        assert gc.get_freeze_count() == 0 and gc.isenabled()  # left to the collector
    finally:
        gc.unfreeze()


def test_pauses_that_overlap_end_with_the_last() -> None:
    inside = threading.Event()
    release = threading.Event()

    def other() -> None:
        with collector_paused():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=other)
    with collector_paused():
        thread.start()
        inside.wait(5)
    assert not gc.isenabled()  # the other pause is still on
    release.set()
    thread.join(5)
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # a collector that was off stays off
    finally:
        gc.enable()
