#!/usr/bin/env python3
"""Benchmark `sniff scan --json` against ccusage on a Claude Code corpus, in one run.

Both tools read the same corpus, alternately, several times; the script reports each one's
median and best wall time, the peak resident memory of its whole process tree (sniff parses in
worker processes, so their memory counts too), the ratios sniff / ccusage, and whether both
counted the same tokens.

Usage:
    python bench/bench_scan.py --corpus DIR [--runs 5] [--ccusage PATH]

DIR holds `projects/` (a Claude Code config folder). The README's "Benchmarks" section says how
to build the ~200 MB corpus and install ccusage 20.0.24.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SAMPLE_SECONDS = 0.005


@dataclass
class Run:
    seconds: float
    peak_rss_kib: int
    stdout: str


def tree_rss_kib(pid: int) -> int:
    """Resident memory of a process and all its descendants, in KiB."""
    total = 0
    stack = [pid]
    while stack:
        current = stack.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    stack.extend(int(child) for child in children.read().split())
        except (OSError, ValueError):
            continue
    return total


def run(command: list[str], env: dict[str, str]) -> Run:
    """Run once, sampling the process tree's memory until it exits."""
    peak = 0
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
    )
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_kib(process.pid))
            time.sleep(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed with exit code {process.returncode}")
    return Run(seconds, peak, stdout)


def compile_sniff() -> None:
    """Compile sniff's modules as `pip install` does, so a checkout whose environment forbids
    writing bytecode (PYTHONDONTWRITEBYTECODE) is not timed recompiling them on every run."""
    import sniff

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(sniff.__file__).parent)], check=True
    )


def sniff_tokens(output: str) -> dict[str, int]:
    totals = json.loads(output)["totals"]
    return {
        "input": totals["input_tokens"],
        "cache_read": totals["cache_read_tokens"],
        "cache_write": totals["cache_write_5m_tokens"] + totals["cache_write_1h_tokens"],
        "output": totals["output_tokens"],
    }


def ccusage_tokens(output: str) -> dict[str, int]:
    totals = json.loads(output)["totals"]
    return {
        "input": totals["inputTokens"],
        "cache_read": totals["cacheReadTokens"],
        "cache_write": totals["cacheCreationTokens"],
        "output": totals["outputTokens"],
    }


def summary(name: str, runs: list[Run]) -> tuple[float, int]:
    times = [r.seconds for r in runs]
    peak = max(r.peak_rss_kib for r in runs)
    median = statistics.median(times)
    print(
        f"{name:8} median {median:6.2f} s   best {min(times):6.2f} s   "
        f"peak RSS {peak / 1024:7.1f} MiB   runs: {', '.join(f'{t:.2f}' for t in times)}"
    )
    return median, peak


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
        sys.exit(f"{projects} is not a folder: build the corpus first (see the README)")
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

    sniff_median, sniff_peak = summary("sniff", sniff_runs)
    cc_median, cc_peak = summary("ccusage", ccusage_runs)
    print(f"ratio    wall {sniff_median / cc_median:.2f}x   memory {sniff_peak / cc_peak:.2f}x")
    ours, theirs = sniff_tokens(sniff_runs[-1].stdout), ccusage_tokens(ccusage_runs[-1].stdout)
    verdict = "same tokens" if ours == theirs else f"TOKENS DIFFER: sniff {ours} ccusage {theirs}"
    print(f"check    {verdict}")


if __name__ == "__main__":
    main()
