#!/usr/bin/env python3
"""Time `sniff statusline` (warm index) against `ccusage statusline` on the same input.

Both read one status-line JSON for a session of the Claude Code corpus, in one run, each a
number of times; the script prints each tool's median, its line, and the session cost `sniff
scan --json` gives that session (the status line's must be equal). ccusage is timed with its
1-second output cache (its default) and without it (`--no-cache`).

With `--grow`, the session is a copy in a scratch folder, and one fresh assistant response
(a copy of its last one, with new ids and the current time) is appended before every run of
either tool: the case of a status line refreshed while Claude Code writes, where no kept
answer can be reused.

Usage:
    python bench/bench_statusline.py --corpus DIR [--runs 15] [--ccusage PATH] [--session FILE]
        [--grow]

DIR holds `projects/` (a Claude Code config folder). docs/benchmarks.md says how
to build the ~200 MB corpus and install ccusage 20.0.24. The largest transcript is used unless
`--session` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from fresh_ids import Fresh, fresh_response  # bench/ is on the path when a script runs
from measure import chosen_session, compile_sniff


class Grower:
    """Appends a fresh copy of a transcript's last assistant response, before each run."""

    def __init__(self, transcript: Path) -> None:
        self.transcript = transcript
        lines = transcript.read_bytes().splitlines()
        self.template = next(json.loads(line) for line in reversed(lines) if b'"usage"' in line)
        self.rng, self.used = random.Random(7), set[str]()

    def __call__(self) -> None:
        ids = Fresh(self.rng, timedelta(0), self.used)  # one copy: ids of its own
        line = fresh_response(self.template, ids, self.template.get("parentUuid"))
        with self.transcript.open("ab") as transcript:
            transcript.write(json.dumps(line).encode() + b"\n")


def grown_config(corpus: Path, session: Path, config: Path) -> tuple[Path, Path]:
    """A config folder of hard links to the corpus's files (a copy where linking fails), with
    its own copy of `session`, which can then grow, seen by both tools; the copy's path.

    Why links, not symbolic links: a tool may not follow a linked folder, and would then be
    timed reading less than the other."""
    projects = corpus / "projects"
    for file in projects.rglob("*"):
        if not file.is_file():
            continue
        mirrored = config / "projects" / file.relative_to(projects)
        mirrored.parent.mkdir(parents=True, exist_ok=True)
        if file == session:
            shutil.copyfile(file, mirrored)
            continue
        try:
            os.link(file, mirrored)
        except OSError:
            shutil.copyfile(file, mirrored)
    return config, config / "projects" / session.relative_to(projects)


def timed(command: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=120)
    seconds = time.perf_counter() - start
    return seconds, done.stdout.decode(errors="replace").strip()


def print_scan_cost(sniff: list[str], session: Path, env: dict[str, str]) -> None:
    """The session's cost as `sniff scan --json` gives it (the status line's must be equal)."""
    scanned = subprocess.run(
        [*sniff, "scan", str(session), "--json", "--no-progress"], env=env, capture_output=True
    )
    rows = json.loads(scanned.stdout)["sessions"]
    named = [row for row in rows if row["session"] == session.stem] or rows
    cost = sum(row["cost_usd"] or 0.0 for row in named)
    print(f"{session.name}: sniff scan --json cost_usd {cost:.6f} ({len(named)} session(s))")


def median_of(
    name: str,
    command: list[str],
    stdin: bytes,
    env: dict[str, str],
    runs: int,
    before: Callable[[], None] | None = None,
) -> float:
    timings, line = [], ""
    for _ in range(runs):
        if before is not None:
            before()
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
    parser.add_argument("--grow", action="store_true", help="append a response before each run")
    arguments = parser.parse_args()
    session = chosen_session(arguments.corpus, arguments.session)
    scratch = Path(tempfile.mkdtemp(prefix="bench-statusline-"))
    config, grow = arguments.corpus, None
    if arguments.grow:
        config, session = grown_config(arguments.corpus, session, scratch / "config")
        grow = Grower(session)
    stdin = json.dumps(
        {"session_id": session.stem, "transcript_path": str(session), "cwd": str(session.parent),
         "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
         "workspace": {"current_dir": str(session.parent), "project_dir": str(session.parent)},
         "version": "2.0.0", "cost": {"total_cost_usd": 0.0}}
    ).encode()  # fmt: skip
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "HOME": str(scratch),
           "SNIFF_CACHE_DIR": str(scratch / "sniff-cache")}  # fmt: skip
    sniff = [sys.executable, "-m", "sniff"]
    compile_sniff()
    subprocess.run([*sniff, "scan", "--no-progress"], env=env, capture_output=True, check=True)
    print_scan_cost(sniff, session, env)
    subprocess.run([*sniff, "statusline", "--refresh"], env=env, capture_output=True, check=True)
    runs = arguments.runs
    ours = median_of("sniff statusline", [*sniff, "statusline", "--plain"], stdin, env, runs, grow)
    if grow is not None:  # the cost of the session as grown, which the last line shows
        print_scan_cost(sniff, session, env)
    cached = median_of(
        "ccusage statusline", [arguments.ccusage, "statusline"], stdin, env, runs, grow
    )
    uncached = median_of(
        "ccusage --no-cache", [arguments.ccusage, "statusline", "--no-cache"], stdin, env, runs,
        grow,
    )  # fmt: skip
    print(f"sniff / ccusage: {ours / cached:.2f}x (cached), {ours / uncached:.2f}x (no cache)")
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
