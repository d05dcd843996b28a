#!/usr/bin/env python3
"""Benchmark `sniff scan` on one big session file: cold, after 1 % more lines, against ccusage.

The file is built by `gen_big_session.py` (one session, the sample transcript repeated). Each
run, interleaved: the file is cut back to its built size, `sniff scan --json` runs cold (a
fresh SNIFF_CACHE_DIR), `ccusage daily --json --offline` runs on the same folder, 1 % more
lines (the next copies of the session) are appended, and `sniff scan --json` runs again on the
index the cold scan left. With --baseline REV, the same cold and append scans of sniff at
that revision (a temporary git worktree) run beside this checkout's, in the same loop. It
prints medians, peak RSS of each process tree, the ratios against the targets, and checks
that the cold and append totals and breaks equal `sniff scan --json --no-index`'s.

Usage:
    python bench/bench_big_session.py [--size-mb 315] [--runs 3] [--out DIR]
                                      [--ccusage PATH] [--baseline REV]

The file is built under the temp folder (or --out) once and reused.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from gen_big_session import Copies, session_file, write
from measure import Run, checkouts, compile_sniff, run, sniff_in, sniff_totals, summary

REPO = Path(__file__).resolve().parent.parent
APPENDED_SHARE = 0.01
RACY_SECONDS = 2.1
"""sniff trusts a file's row only once its modification is this old (`discover.RACY_NS`)."""


def build(out: Path, size_mb: float) -> tuple[Path, Copies, int, int]:
    """The session file (built once), the copies it repeats, its size and copies when built."""
    copies = Copies()
    path = session_file(out, copies)
    marker = out / "gen_big_session.json"
    described = json.loads(marker.read_text()) if marker.is_file() else {}
    if described.get("size_mb") != size_mb:
        print(f"building a ~{size_mb:.0f} MB session file in {out} ...", flush=True)
        described = {"size_mb": size_mb, **write(out, size_mb)}
        marker.write_text(json.dumps(described))
    return path, copies, int(str(described["bytes"])), int(str(described["copies"]))


def appended_lines(copies: Copies, count: int) -> bytes:
    """The lines after the last of `count` copies: the next copies, 1 % of their lines."""
    wanted = round(APPENDED_SHARE * count * copies.lines_per_copy)
    lines: list[bytes] = []
    number = count
    while len(lines) < wanted:
        lines += copies.copy(number).splitlines(keepends=True)
        number += 1
    return b"".join(lines[:wanted])


def verdict(label: str, value: float, target: float) -> None:
    passed = "PASS" if value <= target else "FAIL"
    print(f"{label:40} {value:6.2f}x   target <= {target}x   {passed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=315)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, help="folder for the file (default: temp folder)")
    parser.add_argument("--ccusage", default="ccusage", help="ccusage executable")
    parser.add_argument("--baseline", help="also run sniff at this revision, interleaved")
    args = parser.parse_args()
    out = args.out or Path(tempfile.gettempdir()) / f"sniff-big-session-{args.size_mb:.0f}"
    path, copies, built, count = build(out, args.size_mb)
    ccusage = shutil.which(args.ccusage)
    if ccusage is None:
        sys.exit(f"ccusage not found ({args.ccusage}): see docs/benchmarks.md")
    compile_sniff()
    with (
        tempfile.TemporaryDirectory(prefix="sniff-bench-big-") as scratch,
        checkouts(REPO, args.baseline, Path(scratch)) as trees,
    ):
        bench(path, copies, (built, count), out, ccusage, trees, Path(scratch), args.runs)


def bench(
    path: Path,
    copies: Copies,
    size: tuple[int, int],
    out: Path,
    ccusage: str,
    trees: dict[str, Path],
    scratch: Path,
    runs: int,
) -> None:
    built, count = size
    added = appended_lines(copies, count)
    lines = added.count(b"\n")
    print(
        f"session file {path}: {built / 1e6:.0f} MB, {count} copies; "
        f"appending {lines} lines ({len(added) / 1e6:.1f} MB) per run"
    )

    def sniff(tree: Path, cache: Path | None, *flags: str) -> Run:
        return sniff_in(tree, ["scan", "--json", *flags, str(out / "projects")], cache)

    def reset() -> None:
        os.truncate(path, built)
        time.sleep(RACY_SECONDS)

    def grow() -> None:
        with path.open("ab") as handle:
            handle.write(added)
        time.sleep(RACY_SECONDS)

    cc_env = {**os.environ, "CLAUDE_CONFIG_DIR": str(out)}
    reset()
    run([ccusage, "daily", "--json", "--offline"], cc_env)  # untimed: fill the page cache
    results: dict[str, list[Run]] = defaultdict(list)
    for number in range(runs):
        for name, tree in trees.items():
            reset()
            cache = scratch / f"cache-{name}-{number}"
            results[f"sniff {name} cold"].append(sniff(tree, cache))
            grow()
            results[f"sniff {name} append"].append(sniff(tree, cache))
            shutil.rmtree(cache)
        reset()
        results["ccusage"].append(run([ccusage, "daily", "--json", "--offline"], cc_env))
    reset()
    reference = sniff(REPO, None, "--no-index")
    grow()
    grown = sniff(REPO, None, "--no-index")
    reset()

    stats = {name: summary(name, timed, 20) for name, timed in results.items()}
    cc, cc_peak = stats["ccusage"]
    problems: list[str] = []
    for name in trees:
        cold, cold_peak = stats[f"sniff {name} cold"]
        append = stats[f"sniff {name} append"][0]
        print(f"-- sniff {name}")
        verdict("cold / ccusage wall time", cold / cc, 1.5)
        verdict("cold peak RSS / ccusage peak RSS", cold_peak / cc_peak, 1.0)
        verdict("append / cold wall time", append / cold, 0.25)
        problems += check(f"{name} cold", results[f"sniff {name} cold"], reference)
        problems += check(f"{name} append", results[f"sniff {name} append"], grown)
    print("check: totals and breaks equal --no-index's" if not problems else "check: DIFFER")
    for problem in problems:
        print("  " + problem)
    sys.exit(1 if problems else 0)


def check(name: str, runs: list[Run], reference: Run) -> list[str]:
    """How the runs' totals and breaks differ from the reference's."""
    expected = sniff_totals(reference.stdout)
    breaks = json.loads(reference.stdout)["breaks"]
    problems = []
    for found in runs:
        totals = sniff_totals(found.stdout)
        problems += [
            f"{name} {k}: {totals[k]} vs {v}" for k, v in expected.items() if totals[k] != v
        ]
        if json.loads(found.stdout)["breaks"] != breaks:
            problems.append(f"{name}: breaks differ")
    return problems


if __name__ == "__main__":
    main()
