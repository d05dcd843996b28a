#!/usr/bin/env python3
"""Measure the cost of cache simulation: `sniff cache` against `sniff scan` on the same logs.

Both commands read the same corpus in the same run, alternately; `sniff cache` simulates every
request under each provider's own policy and five what-if policies. Given a second corpus twice
the size (`--double`), the script also reports how the simulation's time grows with the corpus.

usage: python bench/bench_cache.py --corpus DIR [--double DIR2] [--runs 3]
DIR holds `projects/` (see the README on building it with gen_corpus.py).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(command: list[str], runs: int) -> float:
    """The median wall time of `command` over `runs` runs (after one warm-up)."""
    subprocess.run(command, check=True, capture_output=True)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(corpus: Path, runs: int) -> tuple[float, float]:
    folder = corpus / "projects" if (corpus / "projects").is_dir() else corpus
    size = sum(f.stat().st_size for f in folder.rglob("*.jsonl"))
    scan = timed([sys.executable, "-m", "sniff", "scan", "--json", str(folder)], runs)
    cache = timed([sys.executable, "-m", "sniff", "cache", "--json", str(folder)], runs)
    print(
        f"{folder}: {size / 1e6:.0f} MB   scan {scan:.2f} s   cache {cache:.2f} s   "
        f"cache/scan {cache / scan:.2f}x"
    )
    return scan, cache


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--double", type=Path, help="a corpus twice the size of --corpus")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    scan, cache = measure(args.corpus, args.runs)
    if args.double is not None:
        scan2, cache2 = measure(args.double, args.runs)
        print(
            f"doubling the corpus: scan x{scan2 / scan:.2f}, cache x{cache2 / cache:.2f}, "
            f"simulation alone (cache - scan) x{(cache2 - scan2) / (cache - scan):.2f}"
        )


if __name__ == "__main__":
    main()
