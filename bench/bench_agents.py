#!/usr/bin/env python3
"""Benchmark what agent analytics add to `sniff scan`, against sniff from before them.

Agent analytics (tool calls, tool results, user requests) are read in the same pass as the
usage, so every scan pays for them. This script times `sniff scan --json --no-index` of this
checkout against the same command of a baseline revision (checked out into a temporary git
worktree, so both run in the same environment on the same machine), alternately, and also
`sniff agents --json --no-index`; it prints medians and the scan's overhead.

Usage:
    python bench/bench_agents.py CORPUS --baseline REV [--runs 5]

REV is a revision from before agent analytics, e.g. the commit that added Parquet input.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import Run, compile_sniff, run  # bench/ is on the path when a script runs

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus")
    parser.add_argument("--baseline", required=True, help="a revision from before the change")
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    compile_sniff()
    with tempfile.TemporaryDirectory() as scratch:
        baseline = Path(scratch) / "baseline"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(baseline),
             options.baseline],
            check=True,
        )  # fmt: skip
        try:
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(baseline / "sniff")])
            measure(options.corpus, baseline, options.runs)
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(baseline)],
                check=False,
            )


def measure(corpus: str, baseline: Path, runs: int) -> None:
    env = {**os.environ, "SNIFF_CACHE_DIR": ""}  # no index, no kept answers: every file parsed
    # -P: `-m` would otherwise put the working folder (this checkout) before PYTHONPATH
    scan = [sys.executable, "-P", "-m", "sniff", "scan", "--json", "--no-index", corpus]
    agents = [sys.executable, "-P", "-m", "sniff", "agents", "--json", "--no-index", corpus]
    before_env = {**env, "PYTHONPATH": str(baseline)}
    now_env = {**env, "PYTHONPATH": str(REPO)}
    results: dict[str, list[Run]] = {"scan before": [], "scan now": [], "agents now": []}
    run(scan, before_env)  # warm the page cache
    for _ in range(runs):
        results["scan before"].append(run(scan, before_env))
        results["scan now"].append(run(scan, now_env))
        results["agents now"].append(run(agents, now_env))
    medians = {}
    for name, timed in results.items():
        times = [r.seconds for r in timed]
        medians[name] = statistics.median(times)
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name:12} median {medians[name]:6.2f} s  best {min(times):6.2f} s  runs: {shown}")
    overhead = medians["scan now"] / medians["scan before"] - 1
    print(f"agent analytics add {overhead:+.1%} to a scan (target <= +15%)")
    same = results["scan before"][0].stdout == results["scan now"][0].stdout
    print("check: same scan output" if same else "check: scan output differs (expected only if "
          "the baseline reports something else)")  # fmt: skip


if __name__ == "__main__":
    main()
