#!/usr/bin/env python3
"""Measure `sniff tui` on a corpus: when the overview has data, when loading ends, and how fast
a 1,000-row table answers keys.

Headless (Textual's test driver, which renders every frame but writes no terminal), in this
process, with a cache folder of its own: each run launches cold (the index emptied), then
again over the index that launch filled (a second `sniff tui` on unchanged logs):
- first data: from before `sniff.tui` is imported to the first archive on the overview;
- loaded: to the last batch shown; `sniff scan`'s own load of the same corpus (no index) for
  comparison;
- keys: a session timeline of ROWS requests (the corpus's first requests, relabelled as one
  session), then `down` and `pagedown` presses, a sort (`s`) and a filter (`/`), each awaited
  until the screen has processed it; median and worst per key; and the same presses on a stock
  Textual DataTable of as many rows and columns, the floor this harness can measure.

usage: python bench/bench_tui.py DIR [--rows 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from datetime import UTC
from pathlib import Path
from typing import Any


async def _launch(corpus: Path) -> tuple[float, float]:
    start = time.perf_counter()
    from sniff.tui import make_app
    from sniff.workspace import Workspace

    app = make_app(Workspace(corpus, tz="UTC"))
    first: list[float] = []
    show = app._show

    def timed_show(archive: Any, progress: Any) -> None:
        show(archive, progress)
        first.append(time.perf_counter() - start)

    app._show = timed_show  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)):
        while not app.loaded:
            await asyncio.sleep(0.01)
        app.workers.cancel_group(app, "lint")
    return first[0], first[-1]


async def _keys(corpus: Path, rows: int) -> dict[str, list[float]]:
    import msgspec

    from sniff.logs import load
    from sniff.tui import make_app
    from sniff.tui.screens.session import SessionScreen

    dataset = load([corpus], with_prompts="sized")
    ordered = sorted(dataset.requests, key=lambda request: request.when)[:rows]
    one_session = tuple(
        msgspec.structs.replace(request, session_id="long", agent_id="main") for request in ordered
    )
    app = make_app(msgspec.structs.replace(dataset, requests=one_session), zone=UTC)
    timings: dict[str, list[float]] = {"down": [], "pagedown": [], "s": [], "filter": []}
    async with app.run_test(size=(120, 40)) as pilot:
        await app.workers.wait_for_complete()
        app.push_screen(SessionScreen("long"))
        await pilot.pause()
        for key, times in (("down", 300), ("pagedown", 30), ("s", 6)):
            for _ in range(times):
                started = time.perf_counter()
                await pilot.press(key)
                await pilot.pause()
                timings[key].append(time.perf_counter() - started)
        started = time.perf_counter()
        await pilot.press("slash", *"opus")
        await pilot.pause()
        timings["filter"].append(time.perf_counter() - started)
    return timings


async def _stock(rows: int, columns: int) -> dict[str, list[float]]:
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    class Stock(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable(cursor_type="row", zebra_stripes=True)

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            for column in range(columns):
                table.add_column(f"column {column}")
            for row in range(rows):
                table.add_row(*(f"{row * column:,}" for column in range(columns)))

    timings: dict[str, list[float]] = {"down": [], "pagedown": []}
    async with Stock().run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for key, times in (("down", 300), ("pagedown", 30)):
            for _ in range(times):
                started = time.perf_counter()
                await pilot.press(key)
                await pilot.pause()
                timings[key].append(time.perf_counter() - started)
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    cache = Path(tempfile.mkdtemp(prefix="bench-tui-"))
    os.environ["SNIFF_CACHE_DIR"] = str(cache)
    cold, warm = [], []
    for _ in range(args.runs):
        for index_file in cache.glob("index.*"):
            index_file.unlink()
        cold.append(asyncio.run(_launch(args.corpus)))
        warm.append(asyncio.run(_launch(args.corpus)))
    from sniff.logs import load

    scans = []
    for _ in range(args.runs):
        started = time.perf_counter()
        load([args.corpus], with_prompts="sized", use_index=False)  # cold, as the TUI reads
        scans.append(time.perf_counter() - started)
    for name, launches in (("cold", cold), ("warm index", warm)):
        first = statistics.median(launch[0] for launch in launches)
        loaded = statistics.median(launch[1] for launch in launches)
        print(f"{name:10s}: first data on the overview {first:.2f} s   all loaded {loaded:.2f} s")
    print(f"(scan's load alone {statistics.median(scans):.2f} s)")
    timings = asyncio.run(_keys(args.corpus, args.rows))
    stock = asyncio.run(_stock(args.rows, 11))
    shutil.rmtree(cache, ignore_errors=True)
    for key, times in timings.items():
        line = (
            f"{args.rows:,}-row timeline, {key:8s}: median {statistics.median(times) * 1000:.0f} ms"
            f"   worst {max(times) * 1000:.0f} ms   ({len(times)} presses)"
        )
        if key in stock:
            floor = statistics.median(stock[key])
            line += (
                f"   stock DataTable {floor * 1000:.0f} ms"
                f" = {statistics.median(times) / floor:.2f}x"
            )
        print(line)


if __name__ == "__main__":
    main()
