#!/usr/bin/env python3
"""Time `sniff watch --json` from a line appended to a live transcript to its event.

A session of the Claude Code corpus is copied to a scratch folder, sniff's index is warmed on
it (`sniff scan`), and `sniff watch --json` follows it in a subprocess. The script then
appends N real assistant response lines of that session, one at a time, each a copy with a
fresh uuid, message id and requestId (`fresh_ids.Fresh`) and the time of now, and measures how
long each takes to come out as a `response` event (read by a thread as soon as it is written).
Each event's tokens must equal the appended line's usage, and the session's cost by `sniff
scan --json` must have grown by the events' costs. It prints the latency's median and max.

Usage:
    python bench/bench_watch.py --corpus DIR [--events 20] [--session FILE] [--poll]

DIR holds `projects/` (a Claude Code config folder; docs/benchmarks.md says how
to build the ~200 MB corpus). The largest transcript is used unless `--session` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

from fresh_ids import Fresh, fresh_response  # bench/ is on the path when a script runs
from measure import chosen_session, compile_sniff

WAIT = 10.0
"""Seconds an event may take before the run counts it as missing."""


def responses(session: Path, count: int) -> list[dict[str, Any]]:
    """Up to `count` assistant lines with usage, the last line of each response (its final
    usage), spread over the session."""
    last: dict[str, dict[str, Any]] = {}
    for text in session.read_text().splitlines():
        line = json.loads(text) if text.strip() else {}
        message = line.get("message") if line.get("type") == "assistant" else None
        if isinstance(message, dict) and message.get("usage") and message.get("id"):
            last[message["id"]] = line
    found = list(last.values())
    step = max(1, len(found) // count)
    return found[::step][:count]


def expected_tokens(usage: dict[str, Any]) -> tuple[int, int, int, int]:
    """(input, cache read, cache writes, output) as the line states them."""
    return (
        usage.get("input_tokens") or 0,
        usage.get("cache_read_input_tokens") or 0,
        usage.get("cache_creation_input_tokens") or 0,
        usage.get("output_tokens") or 0,
    )


def event_tokens(tokens: dict[str, int]) -> tuple[int, int, int, int]:
    writes = tokens["cache_write_5m"] + tokens["cache_write_1h"]
    return tokens["input"], tokens["cache_read"], writes, tokens["output"]


def reader(stream: IO[str], into: queue.Queue[tuple[float, dict[str, Any]]]) -> None:
    for text in stream:
        into.put((time.perf_counter(), json.loads(text)))


def session_cost(sniff: list[str], folder: Path, env: dict[str, str]) -> float:
    done = subprocess.run(
        [*sniff, "scan", str(folder), "--json", "--no-progress"],
        env=env, capture_output=True, check=True,
    )  # fmt: skip
    return sum(row["cost_usd"] or 0.0 for row in json.loads(done.stdout)["sessions"])


def measure(
    log: Path, lines: list[dict[str, Any]], events: queue.Queue[tuple[float, dict[str, Any]]]
) -> tuple[list[float], list[str], float]:
    """Append each line, wait for its response event; (latencies, mismatches, events' cost)."""
    ids = Fresh(random.Random(21), timedelta(0), set())
    parent: str | None = None
    latencies: list[float] = []
    wrong: list[str] = []
    cost = 0.0
    for number, line in enumerate(lines):
        copy = fresh_response(line, ids, parent)
        parent = copy["uuid"]
        with log.open("ab") as out:
            appended = time.perf_counter()
            out.write(json.dumps(copy, separators=(",", ":")).encode() + b"\n")
        while True:
            try:
                at, event = events.get(timeout=WAIT)
            except queue.Empty:
                sys.exit(f"line {number}: no response event within {WAIT:.0f} s")
            if event["kind"] == "response":
                break
        latencies.append(at - appended)
        cost += event["cost_usd"] or 0.0
        want = expected_tokens(copy["message"]["usage"])
        if event_tokens(event["tokens"]) != want:
            wrong.append(f"line {number}: event {event['tokens']} != usage {want}")
        time.sleep(0.2)  # each append on its own, as an agent writes them
    return latencies, wrong, cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--session", type=Path)
    parser.add_argument("--poll", action="store_true", help="pass --poll to sniff watch")
    arguments = parser.parse_args()
    session = chosen_session(arguments.corpus, arguments.session)
    scratch = Path(tempfile.mkdtemp(prefix="bench-watch-"))
    log = scratch / "projects" / session.parent.name / session.name
    log.parent.mkdir(parents=True)
    shutil.copyfile(session, log)
    env = {**os.environ, "HOME": str(scratch), "SNIFF_CACHE_DIR": str(scratch / "sniff-cache")}
    sniff = [sys.executable, "-m", "sniff"]
    compile_sniff()
    before = session_cost(sniff, scratch, env)  # warms the index
    lines = responses(session, arguments.events)
    started = time.perf_counter()
    watching = subprocess.Popen(
        [*sniff, "watch", str(scratch), "--json", *(["--poll"] if arguments.poll else [])],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert watching.stdout is not None and watching.stderr is not None
    ready = watching.stderr.readline()
    if "watching" not in ready:
        sys.exit(f"sniff watch did not start: {ready}")
    start_seconds = time.perf_counter() - started
    events: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
    threading.Thread(target=reader, args=(watching.stdout, events), daemon=True).start()
    try:
        latencies, wrong, cost = measure(log, lines, events)
    finally:
        watching.terminate()
        watching.wait(10)
    grown = session_cost(sniff, scratch, env) - before
    mode = "--poll (1 s)" if arguments.poll else "file events"
    print(f"{session.name} ({session.stat().st_size / 1e6:.1f} MB), {mode}")
    print(f"sniff watch start (warm index): {start_seconds * 1000:.0f} ms to 'watching'")
    print(
        f"append to event, {len(latencies)} responses: median"
        f" {statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms"
    )
    print(f"tokens equal to the appended usage: {len(latencies) - len(wrong)}/{len(latencies)}")
    print(f"events' cost ${cost:.6f}, session cost grew ${grown:.6f} by sniff scan --json")
    for line in wrong:
        print(line)
    shutil.rmtree(scratch, ignore_errors=True)
    if wrong or abs(grown - cost) > 1e-6:
        sys.exit(1)


if __name__ == "__main__":
    main()
