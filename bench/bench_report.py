#!/usr/bin/env python3
"""Benchmark a cold `sniff report` in each format on the bundled sample logs, beside `scan`.

Cold: a fresh cache folder each run, so nothing read or answered before is reused (what a
first report on a machine costs). The script prints each command's median and whether
`report -f html` is within `TARGET_SECONDS`, and its ratio to a cold `scan --json` in the
same runs. With --baseline REV, sniff at that revision runs the same commands, interleaved.

Usage:
    python bench/bench_report.py [--logs sample_logs] [--runs 5] [--baseline REV]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from measure import checkouts, compile_sniff, sniff_in

REPO = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 1.5
"""`report -f html`, cold, on the sample logs."""
COMMANDS = (
    ["scan", "--json"],
    ["report", "-f", "html", "-o", "-"],
    ["report", "-f", "md", "-o", "-"],
    ["report", "-f", "json", "-o", "-"],
    ["report", "-f", "csv", "-o", "-"],
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=Path, default=REPO / "sample_logs")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", help="also run sniff at this revision, interleaved")
    args = parser.parse_args()
    compile_sniff()
    with (
        tempfile.TemporaryDirectory(prefix="sniff-bench-report-") as scratch,
        checkouts(REPO, args.baseline, Path(scratch)) as trees,
    ):
        medians: dict[str, dict[str, float]] = {}
        print(f"{'command (cold)':<26}" + "".join(f"{name:>12}" for name in trees))
        for command in COMMANDS:
            seconds: dict[str, list[float]] = {name: [] for name in trees}
            for run in range(args.runs):
                for name, tree in trees.items():
                    cache = Path(scratch) / f"cache-{name}-{' '.join(command)}-{run}"
                    seconds[name].append(sniff_in(tree, [*command, str(args.logs)], cache).seconds)
            label = " ".join(command[:3])
            medians[label] = {name: statistics.median(values) for name, values in seconds.items()}
            print(f"{label:<26}" + "".join(f"{medians[label][n]:>11.2f}s" for n in trees))
        html, scan = medians["report -f html"]["now"], medians["scan --json"]["now"]
        verdict = "ok" if html <= TARGET_SECONDS else "MISSED"
        print(f"report -f html: {html:.2f} s (target <= {TARGET_SECONDS} s: {verdict}), "
              f"{html / scan:.1f}x a cold scan --json")  # fmt: skip
        if verdict != "ok":
            sys.exit(1)


if __name__ == "__main__":
    main()
