#!/usr/bin/env python3
"""Time `sniff statusline` (warm index) against `ccusage statusline` on the same input.

Both read one status-line JSON for a session of the Claude Code corpus, in one run, each a
number of times; the script prints each tool's median, its line, and the session cost `sniff
scan --json` gives that session (the status line's must be equal). ccusage is timed with its
1-second output cache (its default) and without it (`--no-cache`).

Usage:
    python bench/bench_statusline.py --corpus DIR [--runs 15] [--ccusage PATH] [--session FILE]

DIR holds `projects/` (a Claude Code config folder). The README's "Benchmarks" section says how
to build the ~200 MB corpus and install ccusage 20.0.24. The largest transcript is used unless
`--session` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import compile_sniff  # bench/ is on the path when a script runs


def timed(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=120)
    seconds = time.perf_counter() - start
    return seconds, done.stdout.decode(errors="replace").strip()


def median_of(name: str, command: list[str], stdin: bytes, env: dict[str, str], runs: int) -> float:
    timings, line = [], ""
    for _ in range(runs):
        seconds, line = timed(command, stdin, env)
        timings.append(seconds)
    median = statistics.median(timings)
    print(f"{name:<24} median {median * 1000:7.1f} ms  min {min(timings) * 1000:7.1f} ms  {line}")
    return median


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--ccusage", default=shutil.which("ccusage") or "ccusage")
    parser.add_argument("--session", type=Path)
    arguments = parser.parse_args()
    projects = arguments.corpus / "projects"
    session = arguments.session or max(projects.glob("*/*.jsonl"), key=lambda p: p.stat().st_size)
    stdin = json.dumps(
        {"session_id": session.stem, "transcript_path": str(session), "cwd": str(session.parent),
         "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
         "workspace": {"current_dir": str(session.parent), "project_dir": str(session.parent)},
         "version": "2.0.0", "cost": {"total_cost_usd": 0.0}}
    ).encode()  # fmt: skip
    scratch = Path(tempfile.mkdtemp(prefix="bench-statusline-"))
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(arguments.corpus), "HOME": str(scratch),
           "SNIFF_CACHE_DIR": str(scratch / "sniff-cache")}  # fmt: skip
    sniff = [sys.executable, "-m", "sniff"]
    compile_sniff()
    subprocess.run([*sniff, "scan", "--no-progress"], env=env, capture_output=True, check=True)
    scanned = subprocess.run(
        [*sniff, "scan", str(session), "--json", "--no-progress"], env=env, capture_output=True
    )
    rows = json.loads(scanned.stdout)["sessions"]
    named = [row for row in rows if row["session"] == session.stem] or rows
    cost = sum(row["cost_usd"] or 0.0 for row in named)
    print(f"{session.name}: sniff scan --json cost_usd {cost:.6f} ({len(named)} session(s))")
    subprocess.run([*sniff, "statusline", "--refresh"], env=env, capture_output=True, check=True)
    ours = median_of(
        "sniff statusline", [*sniff, "statusline", "--plain"], stdin, env, arguments.runs
    )
    cached = median_of(
        "ccusage statusline", [arguments.ccusage, "statusline"], stdin, env, arguments.runs
    )
    uncached = median_of(
        "ccusage --no-cache",
        [arguments.ccusage, "statusline", "--no-cache"],
        stdin,
        env,
        arguments.runs,
    )
    print(f"sniff / ccusage: {ours / cached:.2f}x (cached), {ours / uncached:.2f}x (no cache)")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
