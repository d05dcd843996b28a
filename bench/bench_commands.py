#!/usr/bin/env python3
"""Benchmark every command that reads logs, re-run on unchanged logs with a warm index.

Each command runs once to warm the index and keep its answer, then `--runs` more times, its
output into a pipe (as a script or a status line reads it); the script prints each command's
median and whether it is within `TARGET_SECONDS`, and checks that every re-run printed what the
first run did. With --baseline REV, sniff at that revision (a temporary git worktree) runs the
same commands, interleaved run by run, on an index of its own.

Usage:
    python bench/bench_commands.py --corpus DIR [--runs 5] [--baseline REV]

DIR holds `projects/` (see docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from measure import checkouts, compile_sniff, sniff_in

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 0.5
COMMANDS = (
    ["scan", "--json"],
    ["sessions", "--json"],
    ["agents", "--json"],
    ["cache", "--breaks", "--json"],
    ["cache", "--json"],
    ["latency", "--json"],
    ["report", "-f", "html"],
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="folder holding projects/")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", help="also run sniff at this revision, interleaved")
    args = parser.parse_args()
    projects = args.corpus / "projects"
    if not projects.is_dir():
        sys.exit(f"{projects} is not a folder: build the corpus first (see docs/benchmarks.md)")
    compile_sniff()
    with (
        tempfile.TemporaryDirectory(prefix="sniff-bench-commands-") as scratch,
        checkouts(REPO, args.baseline, Path(scratch)) as trees,
    ):
        caches = {name: Path(scratch) / f"cache-{name}" for name in trees}
        print(f"{'command':<22}" + "".join(f"{name:>12}" for name in trees) + "   target")
        failed = []
        for command in COMMANDS:
            arguments = [*command, str(projects)]
            first = {name: sniff_in(tree, arguments, caches[name]) for name, tree in trees.items()}
            seconds: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.runs):
                for name, tree in trees.items():
                    again = sniff_in(tree, arguments, caches[name])
                    if again.stdout != first[name].stdout:
                        failed.append(f"{name} {' '.join(command)}: a re-run printed otherwise")
                    seconds[name].append(again.seconds)
            medians = {name: statistics.median(values) for name, values in seconds.items()}
            verdict = "ok" if medians["now"] <= TARGET_SECONDS else "MISSED"
            print(
                f"{' '.join(command):<22}"
                + "".join(f"{medians[name]:>11.2f}s" for name in trees)
                + f"   <= {TARGET_SECONDS} s {verdict}"
            )
            first_runs = "  ".join(f"{name} {run.seconds:.2f} s" for name, run in first.items())
            print(f"{'  first run':<22}{first_runs}")
        for line in failed:
            print(line)
        if failed:
            sys.exit(1)


if __name__ == "__main__":
    main()
