#!/usr/bin/env python3
"""Compare `sniff blocks --json` with `ccusage blocks --json --offline`, block for block.

Both tools read the same Claude Code corpus, in one run. For every block that is not a gap, the
start, the end and the tokens by class (uncached input, output, cache writes, cache reads) must
be equal; the script prints the block counts, each tool's wall time and peak memory, and every
difference (none expected: the two tools' totals on the benchmark corpus are equal).

Usage:
    python bench/bench_blocks.py --corpus DIR [--runs 3] [--ccusage PATH]

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
from typing import Any

from measure import Run, compile_sniff, run, summary  # bench/ is on the path when a script runs

Key = tuple[str, str, int, int, int, int]
"""(start, end, input, output, cache writes, cache reads) of one block."""


def sniff_blocks(output: str) -> list[Key]:
    return [
        (row["start"], row["end"], row["input_tokens"], row["output_tokens"],
         row["cache_write_5m_tokens"] + row["cache_write_1h_tokens"], row["cache_read_tokens"])
        for row in json.loads(output)["blocks"]
        if not row["gap"]
    ]  # fmt: skip


def ccusage_blocks(output: str) -> list[Key]:
    def key(row: dict[str, Any]) -> Key:
        tokens = row["tokenCounts"]
        return (row["startTime"], row["endTime"], tokens["inputTokens"], tokens["outputTokens"],
                tokens["cacheCreationInputTokens"], tokens["cacheReadInputTokens"])  # fmt: skip

    return [key(row) for row in json.loads(output)["blocks"] if not row.get("isGap")]


def compare(ours: list[Key], theirs: list[Key]) -> int:
    """Print every block that differs; how many did."""
    differ = 0
    for mine, peer in zip(ours, theirs, strict=False):
        if mine != peer:
            differ += 1
            print(f"  differs: sniff {mine}\n           ccusage {peer}")
    return differ + abs(len(ours) - len(theirs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="folder holding projects/")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ccusage", default="ccusage", help="ccusage executable")
    args = parser.parse_args()
    projects = args.corpus / "projects"
    if not projects.is_dir():
        sys.exit(f"{projects} is not a folder: build the corpus first (see docs/benchmarks.md)")
    ccusage = shutil.which(args.ccusage)
    if ccusage is None:
        sys.exit(f"ccusage not found ({args.ccusage}): see docs/benchmarks.md")
    compile_sniff()
    env = dict(os.environ)
    sniff_cmd = [sys.executable, "-m", "sniff", "blocks", "--json", "--no-index", str(projects)]
    ccusage_cmd = [ccusage, "blocks", "--json", "--offline"]
    ccusage_env = {**env, "CLAUDE_CONFIG_DIR": str(args.corpus)}
    sniff_runs: list[Run] = []
    ccusage_runs: list[Run] = []
    for _ in range(args.runs):
        sniff_runs.append(run(sniff_cmd, env))
        ccusage_runs.append(run(ccusage_cmd, ccusage_env))
    summary("sniff", sniff_runs, 8)
    summary("ccusage", ccusage_runs, 8)
    ours, theirs = sniff_blocks(sniff_runs[-1].stdout), ccusage_blocks(ccusage_runs[-1].stdout)
    print(f"blocks   sniff {len(ours)}   ccusage {len(theirs)} (gaps left out)")
    differ = compare(ours, theirs)
    print("check    " + ("same blocks" if not differ else f"{differ} BLOCKS DIFFER"))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
