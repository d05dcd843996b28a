#!/usr/bin/env python3
"""Benchmark the live path on one big session that goes on: the status line and a scan after
each new turn, as Claude Code writes it.

The session file is `gen_big_session.py`'s (built once under the temp folder, or --out). A
fresh cache folder; then, timed: a cold `sniff scan --json` of the folder, the first `sniff
statusline` for the session after it, and, `--runs` times for each kind of growth, the growth
(`continuation.py`), the status line, and `sniff scan --json`:
- `turn`: the file's last 40 lines again as a new turn (fresh ids, later times, the first line
  continuing the file's last: inline sidechains included, as the sample writes them);
- `compaction`: the same with a compaction (a compact boundary and its summary) inside;
- `subagent`: a new subagent transcript beside the session (`<session>/subagents/`).
It prints each median beside its target, and checks that the last scan's totals and breaks
and the status line's session cost equal `sniff scan --json --no-index`'s. The cold scan
against ccusage is `bench_big_session.py`'s.

Usage:
    python bench/bench_continuation.py [--size-mb 315] [--runs 3] [--out DIR]
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

from continuation import continue_session, new_subagent
from gen_big_session import Copies, session_file, write
from measure import Run, compile_sniff, run

REPO = Path(__file__).resolve().parent.parent
RACY_SECONDS = 2.1
"""sniff trusts a file's row only once its modification is this old (`discover.RACY_NS`)."""
TARGETS = {"statusline first": 0.5, "statusline": 0.15}
SCAN_SHARE = 0.1
"""A scan after a turn, against the cold scan."""
KINDS = ("turn", "compaction", "subagent")


def fresh_file(out: Path, size_mb: float) -> Path:
    """The session file as built, without what earlier runs appended (rebuilt when needed)."""
    copies = Copies()
    path = session_file(out, copies)
    pristine = out / "pristine.jsonl"
    if not pristine.is_file() or json.loads((out / "built.json").read_text()) != size_mb:
        print(f"building a ~{size_mb:.0f} MB session file in {out} ...", flush=True)
        write(out, size_mb)
        shutil.copyfile(path, pristine)
        (out / "built.json").write_text(json.dumps(size_mb))
    shutil.rmtree(path.with_suffix(""), ignore_errors=True)
    shutil.copyfile(pristine, path)
    return path


def status_input(path: Path) -> bytes:
    session = path.stem
    return json.dumps(
        {"session_id": session, "transcript_path": str(path),
         "model": {"id": "claude-sonnet-4-20250514", "display_name": "Sonnet 4"},
         "workspace": {"current_dir": str(path.parent)}, "version": "1.0.98"}
    ).encode()  # fmt: skip


def sniff(cache: Path | None, *arguments: str, stdin: bytes | None = None) -> Run:
    """sniff of this checkout with its state in `cache` (None: none), timed; `stdin` given to
    the status line (whose time is the whole process's, as Claude Code waits for it)."""
    env = {**os.environ, "SNIFF_CACHE_DIR": str(cache or "")}
    command = [sys.executable, "-m", "sniff", *arguments]
    if stdin is None:
        return run(command, env)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, input=stdin, capture_output=True, check=True)
    return Run(time.perf_counter() - start, 0, done.stdout.decode())


def grow(path: Path, kind: str, serial: int) -> None:
    if kind == "subagent":
        new_subagent(path, 40, serial)
    else:
        continue_session(path, 40, serial, compaction=kind == "compaction")
    time.sleep(RACY_SECONDS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=315)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, help="folder for the file (default: temp folder)")
    args = parser.parse_args()
    out = args.out or Path(tempfile.gettempdir()) / f"sniff-continuation-{args.size_mb:.0f}"
    path = fresh_file(out, args.size_mb)
    folder, given = str(out / "projects"), status_input(path)
    compile_sniff()
    time.sleep(RACY_SECONDS)
    with tempfile.TemporaryDirectory(prefix="sniff-bench-continuation-") as scratch:
        cache = Path(scratch) / "cache"
        cold = sniff(cache, "scan", "--json", folder).seconds
        first = sniff(cache, "statusline", "--plain", stdin=given).seconds
        print(f"{path.name}: {path.stat().st_size / 1e6:.0f} MB")
        print(f"{'cold scan --json':34} {cold:6.2f} s")
        verdict("first status line after the scan", first, TARGETS["statusline first"])
        serial = 0
        for kind in KINDS:
            lines, scans = [], []
            for _ in range(args.runs):
                serial += 1
                grow(path, kind, serial)
                lines.append(sniff(cache, "statusline", "--plain", stdin=given))
                scans.append(sniff(cache, "scan", "--json", folder).seconds)
            verdict(f"status line after a {kind}", median(lines), TARGETS["statusline"])
            verdict(f"scan after a {kind} (x cold)", statistics.median(scans) / cold, SCAN_SHARE)
        problems = check(cache, folder, given, lines[-1])
    for problem in problems:
        print("  " + problem)
    print("check: equal to --no-index" if not problems else "check: DIFFER")
    sys.exit(1 if problems else 0)


def median(runs: list[Run]) -> float:
    return statistics.median(found.seconds for found in runs)


def verdict(label: str, value: float, target: float) -> None:
    passed = "PASS" if value <= target else "FAIL"
    print(f"{label:34} {value:6.2f}    target <= {target}   {passed}")


def check(cache: Path, folder: str, given: bytes, line: Run) -> list[str]:
    """How the indexed scan and the status line differ from `--no-index`."""
    kept = json.loads(sniff(cache, "scan", "--json", folder).stdout)
    whole = json.loads(sniff(None, "scan", "--json", "--no-index", folder).stdout)
    problems = [f"{key} differs" for key in ("totals", "breaks") if kept[key] != whole[key]]
    session = json.loads(given)["session_id"]
    cost = sum(row["cost_usd"] or 0 for row in whole["sessions"] if row["session"] == session)
    if f"session ${cost:,.2f}" not in line.stdout:
        problems.append(f"status line {line.stdout.strip()!r}: session cost ${cost:,.2f}")
    return problems


if __name__ == "__main__":
    main()
