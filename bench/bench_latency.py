#!/usr/bin/env python3
"""Measure what `sniff latency` adds to a warm `sniff scan` on the same corpus.

Both commands run as a user runs them (`sniff … --json`, a fresh process each), alternately,
after one warm-up run each (so the price cache and the page cache are warm); the medians and
their difference are printed, for each metric.

usage: python bench/bench_latency.py DIR [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _run(arguments: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sniff", *arguments, "--json"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    corpus = str(args.corpus)
    commands = {
        "scan": ["scan", corpus, "--verbose"],  # --verbose: read, never a kept answer replayed
        "latency ttft": ["latency", corpus, "--metric", "ttft", "--slo-ttft", "5"],
        "latency e2e": ["latency", corpus, "--metric", "e2e"],
    }
    for arguments in commands.values():
        _run(arguments)  # warm-up
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, arguments in commands.items():
            times[name].append(_run(arguments))
    scan = statistics.median(times["scan"])
    print(f"sniff scan          median {scan:.2f} s")
    for name in list(commands)[1:]:
        took = statistics.median(times[name])
        print(f"sniff {name:13s} median {took:.2f} s   adds {took - scan:+.2f} s to scan")


if __name__ == "__main__":
    main()
