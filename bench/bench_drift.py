#!/usr/bin/env python3
"""Benchmark `sniff drift --json` against `sniff sessions --json` on one warm index.

Both commands run once to warm the index (and keep their answers), then `--runs` times each,
interleaved, in two ways: as a script re-running them sees it (the kept answer replayed), and
with the kept answers removed before each run (the index stays warm: each command joins the
parts its units keep there, `workspace.parts`). The target is drift within 2x sessions in both.

Usage:
    python bench/bench_drift.py --corpus DIR [--runs 5]

DIR holds `projects/` (see docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from measure import compile_sniff, sniff_in

REPO = Path(__file__).resolve().parent.parent
TARGET_RATIO = 2.0
COMMANDS = {"sessions": ["sessions", "--json"], "drift": ["drift", "--json"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="folder holding projects/")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    projects = args.corpus / "projects"
    if not projects.is_dir():
        sys.exit(f"{projects} is not a folder: build the corpus first (see docs/benchmarks.md)")
    compile_sniff()
    with tempfile.TemporaryDirectory(prefix="sniff-bench-drift-") as scratch:
        cache = Path(scratch) / "cache"
        first = {name: sniff_in(REPO, [*command, str(projects)], cache) for name, command in
                 COMMANDS.items()}  # fmt: skip
        print("first runs (cold index): " + "  ".join(
            f"{name} {run.seconds:.2f} s" for name, run in first.items()))  # fmt: skip
        failed = False
        for label, forget in (("answer replayed", False), ("index only", True)):
            seconds: dict[str, list[float]] = {name: [] for name in COMMANDS}
            for _ in range(args.runs):
                for name, command in COMMANDS.items():
                    if forget:
                        shutil.rmtree(cache / "answers", ignore_errors=True)
                    again = sniff_in(REPO, [*command, str(projects)], cache)
                    if again.stdout != first[name].stdout:
                        sys.exit(f"{name}: a re-run printed otherwise ({label})")
                    seconds[name].append(again.seconds)
            medians = {name: statistics.median(values) for name, values in seconds.items()}
            ratio = medians["drift"] / medians["sessions"]
            verdict = "ok" if ratio <= TARGET_RATIO else "MISSED"
            failed = failed or ratio > TARGET_RATIO
            print(
                f"{label:<16} sessions {medians['sessions']:.2f} s   drift {medians['drift']:.2f} s"
                f"   drift/sessions {ratio:.2f} (target <= {TARGET_RATIO}) {verdict}"
            )
        if failed:
            sys.exit(1)


if __name__ == "__main__":
    main()
