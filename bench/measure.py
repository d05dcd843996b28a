"""Shared by the benchmarks: run a command, timing it and sampling its process tree's memory.

Why the whole tree: sniff parses in worker processes, and a fair comparison counts the memory
of every process a tool starts.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


def run(command: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> Run:
    """Run once, sampling the process tree's memory until it exits; an exit code not in `ok`
    ends the benchmark."""
    peak = 0
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss_kib(process.pid))
            time.sleep(SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, stderr = process.communicate()
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if process.returncode not in ok:
        shown = " ".join(command if command[1:2] != ["-c"] else [command[0], "-c", "<snippet>"])
        sys.exit(f"{shown} failed with exit code {process.returncode}:\n{stderr.strip()[-2000:]}")
    return Run(seconds, peak, stdout)


def compile_sniff() -> None:
    """Compile sniff's modules as `pip install` does, so a checkout whose environment forbids
    writing bytecode (PYTHONDONTWRITEBYTECODE) is not timed recompiling them on every run."""
    import sniff

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(sniff.__file__).parent)], check=True
    )


def summary(name: str, runs: list[Run], width: int = 13) -> tuple[float, int]:
    """Print one tool's median, best and peak memory; return the median and the peak."""
    times = [r.seconds for r in runs]
    peak = max(r.peak_rss_kib for r in runs)
    median = statistics.median(times)
    print(
        f"{name:{width}} median {median:6.2f} s   best {min(times):6.2f} s   "
        f"peak RSS {peak / 1024:7.1f} MiB   runs: {', '.join(f'{t:.2f}' for t in times)}"
    )
    return median, peak


def sniff_totals(output: str) -> dict[str, float]:
    """Token classes and cost from `sniff scan --json` output."""
    totals = json.loads(output)["totals"]
    return {
        "input": totals["input_tokens"],
        "cache_read": totals["cache_read_tokens"],
        "cache_write": totals["cache_write_5m_tokens"] + totals["cache_write_1h_tokens"],
        "output": totals["output_tokens"],
        "cost": totals["cost_usd"],
    }


@contextmanager
def checkouts(repo: Path, baseline: str | None, scratch: Path) -> Iterator[dict[str, Path]]:
    """This checkout as "now", and with `baseline` a temporary git worktree of that revision as
    "before" (compiled, so that neither side pays for compiling in the runs), removed after."""
    trees = {"now": repo}
    if baseline:
        trees["before"] = scratch / "baseline"
        subprocess.run(
            ["git", "-C", str(repo), "worktree", "add", "--detach", "-q",
             str(trees["before"]), baseline],
            check=True,
        )  # fmt: skip
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(trees["before"])])
    try:
        yield trees
    finally:
        if baseline:
            subprocess.run(
                ["git", "-C", str(repo), "worktree", "remove", "--force", str(trees["before"])],
                check=False,
            )


def sniff_in(tree: Path, arguments: list[str], cache: Path | None) -> Run:
    """sniff of the checkout `tree`, with its on-disk state in `cache` (None: none at all)."""
    # -P: `-m` would otherwise put the working folder before PYTHONPATH
    env = {**os.environ, "PYTHONPATH": str(tree), "SNIFF_CACHE_DIR": str(cache or "")}
    return run([sys.executable, "-P", "-m", "sniff", *arguments], env)


def chosen_session(corpus: Path, named: Path | None) -> Path:
    """The session a benchmark reads: the one named, else the corpus's largest transcript."""
    if named is not None:
        return named
    return max((corpus / "projects").glob("*/*.jsonl"), key=lambda path: path.stat().st_size)
