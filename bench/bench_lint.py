#!/usr/bin/env python3
"""Benchmark `sniff lint` on large Markdown prompt files: wall time and peak memory by size.

A prompt file of Markdown is generated deterministically (headings, prose with code spans,
lists, fenced samples, and here and there a timestamp, date, UUID, request id or template
placeholder that lint flags), at 300 KB and 1 MB, and `sniff lint FILE` runs on each; then
`sniff lint --fix` on 200 files of 38 KB (fresh copies each run: --fix rewrites them). Each
case runs `--runs` times; the medians, the peak memory of the process tree, the time per MB
(equal at both sizes when lint is linear) and the targets (1 MB: under 5 s and 300 MiB) are
printed. With `--baseline REV` the same commands of that revision run beside this checkout's,
alternately, and their outputs are compared.

Usage:
    python bench/bench_lint.py [--runs 3] [--baseline REV] [--no-fix]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import uuid
from pathlib import Path

from measure import Run, checkouts, compile_sniff, run, summary

REPO = Path(__file__).resolve().parent.parent
SIZES = {"300 KB": 300_000, "1 MB": 1_000_000}
FIX_FILES, FIX_SIZE = 200, 38_000
TARGET_SECONDS, TARGET_MIB = 5.0, 300.0
PROSE = (
    "the agent reads each file before it edits it and keeps the change small so that review "
    "stays easy tests run after every step a failing test is fixed before moving on prefer "
    "the standard library name things for what they do errors are reported with the path and "
    "line never swallow an exception without a reason log what was skipped and why the user "
    "decides when a change is ambiguous ask one question at a time summarise what changed"
)
WORDS = PROSE.split()
CODE = ("git status", "pytest -q", "ruff check .", "make build", "npm test", "cargo fmt")


def paragraph(rng: random.Random, number: int) -> str:
    """One Markdown paragraph; about one in ten holds content lint flags."""
    kind = rng.random()
    if number % 9 == 0:
        return f"## {' '.join(rng.choices(WORDS, k=3)).capitalize()} ({number})"
    if kind < 0.06:
        return f"Last synchronised at 2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T" \
               f"{rng.randint(10, 23)}:{rng.randint(10, 59)}:07Z by the scheduler."  # fmt: skip
    if kind < 0.09:
        return f"The current session is {uuid.UUID(int=rng.getrandbits(128))}."
    if kind < 0.10:
        return f"Trace it with req_{rng.getrandbits(80):020x} if the call fails."
    if kind < 0.105:
        return "Address the user as {{user_name}} and answer in {{language}}."
    if kind < 0.30:
        items = [
            f"- {' '.join(rng.choices(WORDS, k=rng.randint(5, 12)))} (`{rng.choice(CODE)}`)"
            for _ in range(rng.randint(3, 6))
        ]
        return "\n".join(items)
    if kind < 0.33:
        return f"```sh\n{rng.choice(CODE)}  # e.g. run on 2024-01-31\n{rng.choice(CODE)}\n```"
    sentences = [
        " ".join(rng.choices(WORDS, k=rng.randint(8, 18))).capitalize() + "."
        for _ in range(rng.randint(3, 6))
    ]
    sentences[0] += f" Run `{rng.choice(CODE)}` first."
    return " ".join(sentences)


def prompt_text(size: int, seed: int = 29) -> str:
    """About `size` bytes of Markdown paragraphs, the same for the same size and seed."""
    rng = random.Random(seed)
    parts: list[str] = ["# Instructions for the coding agent"]
    total = len(parts[0])
    while total < size:
        parts.append(paragraph(rng, len(parts)))
        total += len(parts[-1]) + 2
    return "\n\n".join(parts) + "\n"


def lint_run(tree: Path, arguments: list[str], cache: Path) -> Run:
    """`sniff lint` of the checkout `tree`; exit 1 (findings at the fail-on severity) is its
    answer, not a failure."""
    env = {**os.environ, "PYTHONPATH": str(tree), "SNIFF_CACHE_DIR": str(cache)}
    # -P: `-m` would otherwise put the working folder before PYTHONPATH
    return run([sys.executable, "-P", "-m", "sniff", "lint", *arguments], env, ok=(0, 1))


def fix_folder(scratch: Path, name: str) -> Path:
    """A fresh folder of FIX_FILES prompt files of FIX_SIZE bytes (--fix rewrites them)."""
    folder = scratch / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for number in range(FIX_FILES):
        (folder / f"prompt{number:03}.md").write_text(prompt_text(FIX_SIZE, seed=number))
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline", help="a revision to run beside this checkout")
    parser.add_argument("--no-fix", action="store_true", help="skip the --fix case")
    args = parser.parse_args()
    compile_sniff()
    with tempfile.TemporaryDirectory(prefix="sniff-bench-lint-") as name:
        scratch = Path(name)
        with checkouts(REPO, args.baseline, scratch) as trees:
            failed = False
            figures: dict[tuple[str, str], tuple[float, float, int]] = {}
            for label, size in SIZES.items():
                prompt = scratch / f"prompt-{size}.md"
                prompt.write_text(prompt_text(size))
                results: dict[str, list[Run]] = {tree: [] for tree in trees}
                for _ in range(args.runs):
                    for tree, root in trees.items():
                        results[tree].append(lint_run(root, [str(prompt)], scratch / tree))
                megabytes = prompt.stat().st_size / 1e6
                print(f"sniff lint, one prompt file of {megabytes:.2f} MB ({label}):")
                for tree, runs in results.items():
                    median, peak = summary(f"  {tree}", runs)
                    figures[tree, label] = (megabytes, median, peak)
                    if tree == "now" and size == SIZES["1 MB"]:
                        missed = median > TARGET_SECONDS or peak / 1024 > TARGET_MIB
                        failed = failed or missed
                        print(f"  target: under {TARGET_SECONDS:g} s and {TARGET_MIB:g} MiB: "
                              f"{'MISSED' if missed else 'ok'}")  # fmt: skip
                _compare(results)
            small, large = SIZES
            for tree in trees:
                (text_a, time_a, peak_a), (text_b, time_b, peak_b) = (
                    figures[tree, small], figures[tree, large])  # fmt: skip
                print(f"{tree}: {large} over {small}: {text_b / text_a:.2f}x the text, "
                      f"{time_b / time_a:.2f}x the time, {peak_b / peak_a:.2f}x the memory "
                      "(each includes the start-up's fixed share)")  # fmt: skip
            if not args.no_fix:
                fixes: dict[str, list[Run]] = {tree: [] for tree in trees}
                for _ in range(args.runs):
                    for tree, root in trees.items():
                        folder = fix_folder(scratch, "fix")
                        fixes[tree].append(lint_run(root, ["--fix", "--prompts", str(folder)],
                                                    scratch / tree))  # fmt: skip
                print(f"sniff lint --fix, {FIX_FILES} prompt files of {FIX_SIZE / 1000:g} KB:")
                for tree, runs in fixes.items():
                    summary(f"  {tree}", runs)
                _compare(fixes)
        if failed:
            sys.exit(1)


def _compare(results: dict[str, list[Run]]) -> None:
    """Say whether both revisions printed the same (with a baseline: lint's numbers must not
    change with its speed)."""
    if len(results) > 1:
        now, before = results["now"][0].stdout, results["before"][0].stdout
        print("  check: " + ("same output as before" if now == before else "OUTPUT DIFFERS"))


if __name__ == "__main__":
    main()
