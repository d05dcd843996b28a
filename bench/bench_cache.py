#!/usr/bin/env python3
"""Measure the cost of cache simulation: `sniff cache` against `sniff scan` on the same logs.

Both commands read the same corpus in the same run, alternately; `sniff cache` simulates every
request under each provider's own policy and five what-if policies. Given a second corpus twice
the size (`--double`), the script also reports how the simulation's time grows with the corpus.

usage: python bench/bench_cache.py --corpus DIR [--double DIR2] [--runs 3]
DIR holds `projects/` (docs/benchmarks.md says how to build it with gen_corpus.py).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def folder_of(corpus: Path) -> Path:
    return corpus / "projects" if (corpus / "projects").is_dir() else corpus


def run_once(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--double", type=Path, help="a corpus twice the size of --corpus")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    corpora = [folder_of(args.corpus)] + ([folder_of(args.double)] if args.double else [])
    commands = {
        (corpus, name): [sys.executable, "-m", "sniff", name, "--json", str(corpus)]
        for corpus in corpora
        for name in ("scan", "cache")
    }
    from bench_scan import compile_sniff

    compile_sniff()
    for command in commands.values():  # warm the page cache
        run_once(command)
    times: dict[tuple[Path, str], list[float]] = {key: [] for key in commands}
    for _ in range(args.runs):  # interleaved, so a slow spell of the machine hits all alike
        for key, command in commands.items():
            times[key].append(run_once(command))
    median = {key: statistics.median(values) for key, values in times.items()}
    for corpus in corpora:
        size = sum(f.stat().st_size for f in corpus.rglob("*.jsonl"))
        scan, cache = median[(corpus, "scan")], median[(corpus, "cache")]
        print(
            f"{corpus}: {size / 1e6:.0f} MB   scan {scan:.2f} s   cache {cache:.2f} s   "
            f"cache/scan {cache / scan:.2f}x"
        )
    if args.double is not None:
        small, large = corpora
        print(
            "doubling the corpus: "
            f"scan x{median[(large, 'scan')] / median[(small, 'scan')]:.2f}, "
            f"cache x{median[(large, 'cache')] / median[(small, 'cache')]:.2f}"
        )


if __name__ == "__main__":
    main()
