#!/usr/bin/env python3
"""Measure sniff's ingest speed on a folder of logs, in MB/s of log read.

Two figures: `sniff scan --json` as a user runs it (a fresh process: start-up, parsing,
pricing, summary), and the ingest alone with prompts read into blocks (as the cache and lint
analyses need them), in this process.

usage: python bench/bench_ingest.py DIR [--runs 5]
Build a ~200 MB claude-trace corpus first with bench/gen_trace_corpus.py (see docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size = sum(f.stat().st_size for f in args.corpus.rglob("*.jsonl"))
    print(f"corpus: {size / 1e6:.0f} MB in {sum(1 for _ in args.corpus.rglob('*.jsonl'))} files")
    command = [sys.executable, "-m", "sniff", "scan", "--json", str(args.corpus)]
    subprocess.run(command, check=True, capture_output=True)  # warm the page cache
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"scan          median {median:5.2f} s  = {size / 1e6 / median:6.0f} MB/s"
        f"   runs: {', '.join(f'{t:.2f}' for t in times)}"
    )

    from sniff.ingest.record import Prompts
    from sniff.logs import load

    start = time.perf_counter()
    dataset = load([args.corpus], with_prompts=Prompts.COUNTED)
    seconds = time.perf_counter() - start
    blocks = sum(len(request.blocks) for request in dataset.requests)
    print(
        f"with prompts  {seconds:5.2f} s  = {size / 1e6 / seconds:6.0f} MB/s"
        f"   ({len(dataset.requests):,} requests, {blocks:,} blocks)"
    )


if __name__ == "__main__":
    main()
