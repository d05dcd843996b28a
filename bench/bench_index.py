#!/usr/bin/env python3
"""Benchmark sniff's on-disk index (cold, warm, append) against ccusage and sniffly, in one run.

On the same corpus, interleaved, several times, it times `sniff scan --json` cold (a fresh empty
SNIFF_CACHE_DIR each run), warm (a SNIFF_CACHE_DIR primed once, nothing changed) and append (on a
copy of the corpus whose every 100th file gets a new assistant line before each run, against an
index primed before the first append); and, cold each time, `ccusage daily --json --offline` and
sniffly 0.1.5's ClaudeLogProcessor over every project folder (plus sniffly warm: its server's
file cache, primed once). It reports medians, best times, peak RSS of each process tree, ratios
to the peers against their targets, and checks that the cold, warm and append totals equal
`sniff scan --json --no-index`'s and that appending grew them by exactly the appended usage.

Usage:
    python bench/bench_index.py [--corpus DIR] [--big] [--runs 5]
                                [--ccusage PATH] [--sniffly-python PATH]

Without --corpus it builds a ~200 MB corpus with ../shared/bench/gen_corpus.py into
$TMPDIR/sniff-bench-corpus-200 (reused later); --big also builds a ~1 GB one, runs both and
prints how sniff's cold scan scales. It installs nothing: a missing peer is reported with how to
install it (see docs/benchmarks.md) and left out.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from measure import (  # bench/ is on the path when a script runs
    Run,
    compile_sniff,
    run,
    sniff_totals,
    summary,
)

REPO = Path(__file__).resolve().parent.parent
GENERATOR = REPO.parent / "shared" / "bench" / "gen_corpus.py"
SAMPLES = REPO.parent / "shared" / "samples"
TOKENS = ("input", "cache_read", "cache_write", "output")
USAGE_FIELDS = (
    "input_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "output_tokens",
)
CCUSAGE_HINT = (
    "npm install --prefix /tmp/ccusage ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24, "
    "then --ccusage /tmp/ccusage/node_modules/.bin/ccusage"
)
SNIFFLY_HINT = (
    "python -m venv /tmp/sniffly-venv && /tmp/sniffly-venv/bin/pip install sniffly==0.1.5, "
    "then --sniffly-python /tmp/sniffly-venv/bin/python"
)
# Run under sniffly's own Python: argv = projects folder, cache folder ("" = no cache). With a
# cache it follows sniffly's server (/api/stats): a project whose L2 file cache is unchanged is
# read from it, any other is processed and saved. Prices are sniffly's bundled ones, so it never
# fetches LiteLLM's price list nor writes ~/.sniffly (ccusage runs --offline, sniff is offline).
SNIFFLY_SNIPPET = r"""
import json, os, sys
import sniffly.utils.pricing as pricing
from sniffly.core.processor import ClaudeLogProcessor
from sniffly.utils.local_cache import LocalCacheService
pricing._dynamic_pricing_cache = pricing.DEFAULT_CLAUDE_PRICING
root, cache_dir = sys.argv[1], sys.argv[2]
cache = LocalCacheService(cache_dir) if cache_dir else None
names = {"input": "input", "cache_read": "cache_read", "cache_write": "cache_creation",
         "output": "output"}
totals = dict.fromkeys([*names, "cost"], 0)
for name in sorted(os.listdir(root)):
    path = os.path.join(root, name)
    if not os.path.isdir(path):
        continue
    stats = cache.get_cached_stats(path) if cache else None  # None when a file changed
    if stats is not None:
        cache.get_cached_messages(path)
    else:
        messages, stats = ClaudeLogProcessor(path).process_logs()
        if cache:
            cache.save_cached_stats(path, stats)
            cache.save_cached_messages(path, messages)
    for ours, theirs in names.items():
        totals[ours] += stats["overview"]["total_tokens"].get(theirs, 0)
    totals["cost"] += stats["overview"]["total_cost"]
print(json.dumps(totals))
"""


def build_corpus(size_mb: int) -> Path:
    """Build (once; later runs reuse it) a corpus of about size_mb MB in the temp folder."""
    out = Path(tempfile.gettempdir()) / f"sniff-bench-corpus-{size_mb}"
    marker = out / "gen_corpus.json"
    if marker.is_file():
        print(f"corpus: reusing {out}")
        return out
    if not GENERATOR.is_file():
        print(f"{GENERATOR} is missing: pass --corpus DIR (a folder holding projects/)")
        sys.exit(2)
    print(f"corpus: building ~{size_mb} MB into {out} ...", flush=True)
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, str(GENERATOR), str(SAMPLES), str(out), str(size_mb)]
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    marker.write_text(result.stdout)
    return out


def find_peers(args: argparse.Namespace) -> tuple[str | None, str | None]:
    """The ccusage executable and sniffly's Python, or None (with a note) for a missing one."""
    ccusage = shutil.which(args.ccusage or "ccusage")
    if ccusage is None:
        print(f"peer ccusage: MISSING ({args.ccusage or 'not on PATH'}); install: {CCUSAGE_HINT}")
    else:
        version = subprocess.run([ccusage, "--version"], capture_output=True, text=True).stdout
        print(f"peer ccusage: {version.strip() or '?'} at {ccusage}")
    sniffly = shutil.which(args.sniffly_python) if args.sniffly_python else None
    probe = "import importlib.metadata as m; print(m.version('sniffly'))"
    found = sniffly and subprocess.run([sniffly, "-c", probe], capture_output=True, text=True)
    if not sniffly or not found or found.returncode != 0:
        where = args.sniffly_python or "no --sniffly-python"
        print(f"peer sniffly: MISSING ({where}); install: {SNIFFLY_HINT}")
        return ccusage, None
    print(f"peer sniffly: {found.stdout.strip()} under {sniffly}")
    return ccusage, sniffly


class Appender:
    """Appends, to every 100th file of a corpus, a copy of its last assistant line with usage
    (fresh uuid, message id and request id, parented to the copied line, 5 s later)."""

    def __init__(self, projects: Path) -> None:
        self.files = sorted(projects.rglob("*.jsonl"))[::100]
        self.count = 0
        self.added: dict[str, float] = dict.fromkeys(TOKENS, 0)

    def append(self) -> None:
        for path in self.files:
            text = path.read_text(encoding="utf-8")
            entry = next(filter(None, map(self._usage_entry, reversed(text.splitlines()))), None)
            if entry is None:
                continue
            self.count += 1
            copied = entry["uuid"]
            entry["parentUuid"], entry["uuid"] = copied, str(uuid.uuid4())
            entry["message"]["id"] = f"msg_bench_{self.count}"
            entry["requestId"] = f"req_bench_{self.count}"
            when = datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00"))
            when += timedelta(seconds=5)
            entry["timestamp"] = f"{when:%Y-%m-%dT%H:%M:%S}.{when.microsecond // 1000:03d}Z"
            line = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
            with path.open("a", encoding="utf-8") as log:
                log.write(("" if text.endswith("\n") else "\n") + line + "\n")
            for key, field in zip(TOKENS, USAGE_FIELDS, strict=True):
                self.added[key] += entry["message"]["usage"].get(field, 0)

    @staticmethod
    def _usage_entry(line: str) -> dict[str, Any] | None:
        if '"usage"' not in line or '"assistant"' not in line:
            return None
        entry = json.loads(line)
        message = entry.get("message")
        if entry.get("type") != "assistant" or not isinstance(message, dict):
            return None
        usable = message.get("usage") and not str(message.get("model", "")).startswith("<")
        return entry if usable and "uuid" in entry and "timestamp" in entry else None


def verdict(label: str, value: float, target: float) -> None:
    print(
        f"{label:34} {value:6.2f}x   target <= {target}x   {'PASS' if value <= target else 'FAIL'}"
    )


def differences(name: str, ours: dict[str, float], expected: dict[str, float]) -> list[str]:
    return [f"{name} {k}: {ours[k]} vs {expected[k]}" for k in expected if ours[k] != expected[k]]


def bench(corpus: Path, runs: int, ccusage: str | None, sniffly: str | None) -> tuple[float, bool]:
    """Benchmark one corpus; return sniff's cold median and whether the totals checks passed."""
    projects = corpus / "projects"
    if not projects.is_dir():
        sys.exit(f"{projects} is not a folder: pass a corpus holding projects/")
    files = list(projects.rglob("*.jsonl"))
    size = sum(f.stat().st_size for f in files)
    print(f"\n== corpus {corpus}: {size / 1e6:.0f} MB in {len(files)} files, {runs} runs")
    with tempfile.TemporaryDirectory(prefix="sniff-bench-index-") as tmp:
        work = Path(tmp)
        copy = work / "copy" / "projects"
        shutil.copytree(projects, copy)
        appender = Appender(copy)

        env = dict(os.environ)
        ccusage_cmd = [str(ccusage), "daily", "--json", "--offline"]
        ccusage_env = {**env, "CLAUDE_CONFIG_DIR": str(corpus)}

        def sniff(path: Path, cache: Path, *flags: str) -> Run:
            command = [sys.executable, "-m", "sniff", "scan", "--json", *flags, str(path)]
            return run(command, {**env, "SNIFF_CACHE_DIR": str(cache)})

        sniffly_cmd = [str(sniffly), "-c", SNIFFLY_SNIPPET, str(projects)]

        # untimed: prime the warm and append indexes and sniffly's cache, fill the page cache
        sniff(projects, work / "warm")
        sniff(copy, work / "append")
        if ccusage:
            run(ccusage_cmd, ccusage_env)
        if sniffly:
            run([*sniffly_cmd, str(work / "sniffly")], env)
        results: dict[str, list[Run]] = defaultdict(list)
        for _ in range(runs):
            fresh = Path(tempfile.mkdtemp(dir=work))
            results["sniff cold"].append(sniff(projects, fresh))
            shutil.rmtree(fresh)
            results["sniff warm"].append(sniff(projects, work / "warm"))
            # the same with the kept answer bypassed (--verbose): what the index alone gives
            results["sniff warm, index only"].append(sniff(projects, work / "warm", "--verbose"))
            appender.append()
            results["sniff append"].append(sniff(copy, work / "append"))
            if ccusage:
                results["ccusage"].append(run(ccusage_cmd, ccusage_env))
            if sniffly:
                results["sniffly cold"].append(run([*sniffly_cmd, ""], env))
                results["sniffly warm"].append(run([*sniffly_cmd, str(work / "sniffly")], env))
        reference = sniff_totals(sniff(projects, work / "plain-1", "--no-index").stdout)
        appended = sniff_totals(sniff(copy, work / "plain-2", "--no-index").stdout)

    stats = {name: summary(name, tool_runs, 22) for name, tool_runs in results.items()}
    cold, cold_peak = stats["sniff cold"]
    if ccusage:
        cc, cc_peak = stats["ccusage"]
        verdict("sniff cold / ccusage", cold / cc, 1.0)
        verdict("sniff warm / ccusage", stats["sniff warm"][0] / cc, 0.2)
        index_only = stats["sniff warm, index only"][0] / cc
        print(f"info: sniff warm without its kept answer (index only) / ccusage {index_only:.2f}x")
        verdict("sniff append / ccusage", stats["sniff append"][0] / cc, 0.3)
        verdict("sniff cold peak RSS / ccusage", cold_peak / cc_peak, 1.5)
    else:
        print("ratios to ccusage: skipped (ccusage missing)")
    if sniffly:
        verdict("sniff cold / sniffly cold", cold / stats["sniffly cold"][0], 0.25)
        theirs = json.loads(results["sniffly cold"][-1].stdout)
        print("info: totals (sniffly counts differently: dedup and cost rules)")
        for key in (*TOKENS, "cost"):
            form = ",.2f" if key == "cost" else ",.0f"
            print(f"  {key:12} sniff {reference[key]:>16{form}}   sniffly {theirs[key]:>16{form}}")
    else:
        print("ratios to sniffly: skipped (sniffly missing)")

    problems = differences("cold", sniff_totals(results["sniff cold"][-1].stdout), reference)
    problems += differences("warm", sniff_totals(results["sniff warm"][-1].stdout), reference)
    index_only_totals = sniff_totals(results["sniff warm, index only"][-1].stdout)
    problems += differences("warm, index only", index_only_totals, reference)
    problems += differences("append", sniff_totals(results["sniff append"][-1].stdout), appended)
    grown = {k: reference[k] + appender.added[k] for k in TOKENS}
    problems += differences("append growth", appended, grown)
    print(f"appended {appender.count} lines to {len(appender.files)} files: {appender.added}")
    print(
        "check: identical totals" if not problems else "check: DIFFER\n  " + "\n  ".join(problems)
    )
    return cold, not problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, help="folder holding projects/ (default: build)")
    parser.add_argument("--big", action="store_true", help="also run a ~1 GB corpus and scale")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ccusage", help="ccusage executable (default: ccusage on PATH)")
    parser.add_argument("--sniffly-python", help="Python of a venv with sniffly==0.1.5")
    args = parser.parse_args()

    ccusage, sniffly = find_peers(args)
    compile_sniff()
    small = args.corpus or build_corpus(200)
    cold, ok = bench(small, args.runs, ccusage, sniffly)
    if args.big:
        big = build_corpus(1000)
        big_cold, big_ok = bench(big, args.runs, ccusage, sniffly)
        print("\n== scaling")
        verdict("sniff cold ~1 GB / ~200 MB", big_cold / cold, 5.5)
        print(f"check: no-index totals {'identical' if ok and big_ok else 'DIFFER'} on both sizes")
        ok = ok and big_ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
