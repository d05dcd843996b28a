#!/usr/bin/env python3
"""Benchmark `sniff scan --json` against ccusage on a Claude Code corpus, in one run.

Both tools read the same corpus, alternately, several times; the script reports each one's
median and best wall time, the peak resident memory of its whole process tree (sniff parses in
worker processes, so their memory counts too), the ratios sniff / ccusage, and whether both
counted the same tokens.

Usage:
    python bench/bench_scan.py --corpus DIR [--runs 5] [--ccusage PATH]

DIR holds `projects/` (a Claude Code config folder). docs/benchmarks.md says how
to build the ~200 MB corpus and install ccusage 20.0.24.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from measure import (  # bench/ is on the path when a script runs
    Run,
    compile_sniff,
    run,
    sniff_totals,
    summary,
)


def sniff_tokens(output: str) -> dict[str, float]:
    """The token classes ccusage also reports (it has its own cost)."""
    return {name: value for name, value in sniff_totals(output).items() if name != "cost"}


def ccusage_tokens(output: str) -> dict[str, int]:
    totals = json.loads(output)["totals"]
    return {
        "input": totals["inputTokens"],
        "cache_read": totals["cacheReadTokens"],
        "cache_write": totals["cacheCreationTokens"],
        "output": totals["outputTokens"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="folder holding projects/")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ccusage", default=shutil.which("ccusage") or "ccusage")
    parser.add_argument(
        "--sniff-args", default="", help="extra arguments for sniff scan, e.g. --no-index"
    )
    args = parser.parse_args()
    projects = args.corpus / "projects"
    if not projects.is_dir():
        sys.exit(f"{projects} is not a folder: build the corpus first (see docs/benchmarks.md)")
    size = sum(f.stat().st_size for f in projects.rglob("*.jsonl"))
    print(f"corpus: {size / 1e6:.0f} MB in {sum(1 for _ in projects.rglob('*.jsonl'))} files")

    compile_sniff()
    env = dict(os.environ)
    sniff_cmd = [
        sys.executable,
        "-m",
        "sniff",
        "scan",
        "--json",
        "--no-index",  # every file parsed, as ccusage does (bench_index.py times the index)
        *args.sniff_args.split(),
        str(projects),
    ]
    ccusage_cmd = [args.ccusage, "daily", "--json", "--offline"]
    ccusage_env = {**env, "CLAUDE_CONFIG_DIR": str(args.corpus)}

    sniff_runs: list[Run] = []
    ccusage_runs: list[Run] = []
    run(sniff_cmd, env)  # one warm-up each, so both read from the page cache
    run(ccusage_cmd, ccusage_env)
    for _ in range(args.runs):
        sniff_runs.append(run(sniff_cmd, env))
        ccusage_runs.append(run(ccusage_cmd, ccusage_env))

    sniff_median, sniff_peak = summary("sniff", sniff_runs, 8)
    cc_median, cc_peak = summary("ccusage", ccusage_runs, 8)
    print(f"ratio    wall {sniff_median / cc_median:.2f}x   memory {sniff_peak / cc_peak:.2f}x")
    ours, theirs = sniff_tokens(sniff_runs[-1].stdout), ccusage_tokens(ccusage_runs[-1].stdout)
    verdict = "same tokens" if ours == theirs else f"TOKENS DIFFER: sniff {ours} ccusage {theirs}"
    print(f"check    {verdict}")


if __name__ == "__main__":
    main()
