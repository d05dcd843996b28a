#!/usr/bin/env python3
"""Benchmark `sniff scan` local against `sniff scan --dask local:N`, in one run.

Both read the same corpus without the on-disk index (`--no-index`: every run parses every
file), alternately, several times; the script prints each one's median and best wall time, the
ratio, and whether both printed the same JSON. `--dask local:N` starts a LocalCluster of N
worker processes inside the run, so its time includes starting the cluster: that is what a user
of one machine pays.

Usage:
    python bench/bench_dask.py CORPUS [--workers 2] [--runs 3] [--command scan|breaks]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from measure import run  # bench/ is on the path when a script runs

COMMANDS = {"scan": ["scan", "--json"], "breaks": ["cache", "--breaks", "--json"]}


def timed(arguments: list[str]) -> tuple[float, str]:
    env = {**os.environ, "SNIFF_CACHE_DIR": ""}  # no index, no kept answers
    done = run([sys.executable, "-m", "sniff", *arguments], env)
    return done.seconds, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--command", choices=sorted(COMMANDS), default="scan")
    options = parser.parse_args()
    base = [*COMMANDS[options.command], options.corpus]
    local_times: list[float] = []
    dask_times: list[float] = []
    outputs: set[str] = set()
    for _ in range(options.runs):
        seconds, out = timed([*base, "--no-index"])
        local_times.append(seconds)
        outputs.add(out)
        seconds, out = timed([*base, "--dask", f"local:{options.workers}"])
        dask_times.append(seconds)
        outputs.add(out)
    for name, times in (("local", local_times), (f"dask local:{options.workers}", dask_times)):
        runs = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name:16} median {statistics.median(times):6.2f} s  best {min(times):6.2f} s"
              f"  runs: {runs}")  # fmt: skip
    ratio = statistics.median(dask_times) / statistics.median(local_times)
    print(f"dask / local     {ratio:.2f}x")
    print("check: same output" if len(outputs) == 1 else "check: OUTPUTS DIFFER")


if __name__ == "__main__":
    main()
