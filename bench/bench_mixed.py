#!/usr/bin/env python3
"""Benchmark sniff on a home folder of every agent's logs, against ccusage, and check its totals.

On a corpus of bench/gen_agents_corpus.py (home/ and EXPECTED.json), with HOME set to its home
and every agent's own variable unset (so each tool finds the logs where the agents write them),
it times, interleaved, `--rounds` times: `sniff scan --json --no-index` cold, `sniff scan --json`
cold (an empty SNIFF_CACHE_DIR) and warm (one primed before the rounds), and
`ccusage daily --json --offline --by-agent`. It reports medians, peak RSS of each process tree,
the ratios sniff/ccusage, whether sniff's per-harness totals (`by_harness`) equal EXPECTED.json
to the token, and, for every agent both tools read, whether their totals agree.

Usage:
    python bench/bench_mixed.py [--corpus DIR | --size MB] [--rounds 3]
                                [--ccusage PATH] [--json]

Without --corpus it builds one of --size MB (default 200) into $TMPDIR/sniff-bench-mixed-<MB>
(reused later). ccusage comes from --ccusage, else $CCUSAGE, else the PATH; missing, it is
left out with a note (install: npm install --prefix /some/dir ccusage@20.0.24).
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
from collections import defaultdict
from pathlib import Path
from typing import Any

from measure import Run, compile_sniff, run  # bench/ is on the path when a script runs

REPO = Path(__file__).resolve().parent.parent
CLASSES = ("requests", "input", "cache_read", "cache_write", "output", "reasoning")
CCUSAGE_CLASSES = {
    "input": "inputTokens",
    "cache_read": "cacheReadTokens",
    "cache_write": "cacheCreationTokens",
    "output": "outputTokens",
}
"""ccusage's token fields (it counts no requests and folds reasoning into output)."""
CCUSAGE_NAMES = {"claude": "claude-code", "gemini": "gemini-cli", "qwen": "qwen-code"}
"""ccusage's agent names that are not sniff's harness names."""
MOVERS = (
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
    "COPILOT_OTEL_FILE_EXPORTER_PATH", "COPILOT_HOME", "CLINE_DIR", "FACTORY_HOME",
)  # fmt: skip
"""Variables beyond sniff's own list (`locations.ENVIRONMENT`) that move where a tool looks."""


def corpus_of(args: argparse.Namespace) -> Path:
    """The corpus folder: --corpus, or one built (once) of --size MB in the temp folder."""
    if args.corpus:
        return Path(args.corpus)
    out = Path(tempfile.gettempdir()) / f"sniff-bench-mixed-{args.size}"
    if (out / "EXPECTED.json").is_file():
        note(f"corpus: reusing {out}")
        return out
    note(f"corpus: building ~{args.size} MB into {out} ...")
    shutil.rmtree(out, ignore_errors=True)
    generator = Path(__file__).with_name("gen_agents_corpus.py")
    subprocess.run([sys.executable, str(generator), str(args.size), str(out)], check=True)
    return out


def note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def find_ccusage(given: str | None) -> tuple[str | None, str]:
    """ccusage's executable (None when missing, with a note) and its version."""
    found = shutil.which(given or os.environ.get("CCUSAGE") or "ccusage")
    if found is None:
        note(f"peer ccusage: MISSING ({given or os.environ.get('CCUSAGE') or 'not on PATH'})")
    else:
        version = subprocess.run([found, "--version"], capture_output=True, text=True).stdout
        note(f"peer ccusage: {version.strip() or '?'} at {found}")
        return found, version.strip()
    return None, ""


def environment(home: Path) -> dict[str, str]:
    """This process's environment with HOME at the corpus and no agent's variable."""
    from sniff.ingest.files.locations import ENVIRONMENT

    moved = {*ENVIRONMENT, *MOVERS}
    return {**{k: v for k, v in os.environ.items() if k not in moved}, "HOME": str(home)}


def sniff_by_harness(output: str) -> dict[str, dict[str, int]]:
    """`sniff scan --json`'s by_harness rows in EXPECTED.json's classes. EXPECTED.md counts a
    session's totals that name no count of calls (Droid's, Goose's) as requests; sniff counts
    them apart (`session_totals`)."""
    rows = {}
    for row in json.loads(output)["by_harness"]:
        rows[row["harness"]] = {
            "requests": row["requests"] + row.get("session_totals", 0),
            "input": row["input_tokens"],
            "cache_read": row["cache_read_tokens"],
            "cache_write": row["cache_write_5m_tokens"] + row["cache_write_1h_tokens"],
            "output": row["output_tokens"],
            "reasoning": row["reasoning_tokens"],
        }
    return rows


def ccusage_by_agent(output: str) -> dict[str, dict[str, int]]:
    """`ccusage daily --json --by-agent`'s agents summed over the days, by sniff's names."""
    totals: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(CCUSAGE_CLASSES, 0))
    for day in json.loads(output)["daily"]:
        for row in day.get("agents", []):
            agent = CCUSAGE_NAMES.get(row["agent"], row["agent"])
            for ours, theirs in CCUSAGE_CLASSES.items():
                totals[agent][ours] += row.get(theirs) or 0
    return dict(totals)


def check(expected: dict[str, Any], harnesses: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Each agent's EXPECTED.json totals against the sum of its harnesses' rows; a harness of no
    agent of the corpus is a difference too."""
    result: dict[str, Any] = {}
    claimed: set[str] = set()
    for agent, want in expected["agents"].items():
        claimed.update(want["harnesses"])
        rows = [harnesses[h] for h in want["harnesses"] if h in harnesses]
        got = {c: sum(row[c] for row in rows) for c in CLASSES}
        differ = {c: [got[c], want[c]] for c in CLASSES if got[c] != want[c]}
        result[agent] = {"equal": not differ, "sniff": got, "differences": differ}
    for stray in sorted(set(harnesses) - claimed):
        result[stray] = {"equal": False, "sniff": harnesses[stray], "differences": "not copied"}
    return result


def compare_peer(
    sniff: dict[str, dict[str, int]], ccusage: dict[str, dict[str, int]]
) -> dict[str, Any]:
    """Per harness both read: ccusage's totals beside sniff's, and where they differ."""
    both = sorted(set(sniff) & set(ccusage))
    compared = {}
    for harness in both:
        ours, theirs = sniff[harness], ccusage[harness]
        differ = {c: [ours[c], theirs[c]] for c in CCUSAGE_CLASSES if ours[c] != theirs[c]}
        compared[harness] = {"equal": not differ, "differences": differ}
    return {
        "compared": compared,
        "sniff_only": sorted(set(sniff) - set(ccusage)),
        "ccusage_only": sorted(set(ccusage) - set(sniff)),
    }


def timings(runs: list[Run]) -> dict[str, Any]:
    times = [r.seconds for r in runs]
    return {
        "median_s": round(statistics.median(times), 3),
        "best_s": round(min(times), 3),
        "runs_s": [round(t, 3) for t in times],
        "peak_rss_mib": round(max(r.peak_rss_kib for r in runs) / 1024, 1),
    }


def bench(corpus: Path, rounds: int, ccusage: str | None, version: str = "") -> dict[str, Any]:
    """Time every tool `rounds` times, interleaved, and check what they counted."""
    expected = json.loads((corpus / "EXPECTED.json").read_text())
    env = environment((corpus / "home").resolve())
    with tempfile.TemporaryDirectory(prefix="sniff-bench-mixed-") as tmp:
        work = Path(tmp)

        def sniff(cache: Path, *flags: str) -> Run:
            command = [sys.executable, "-m", "sniff", "scan", "--json", *flags]
            return run(command, {**env, "SNIFF_CACHE_DIR": str(cache)})

        peer = [ccusage, "daily", "--json", "--offline", "--by-agent"] if ccusage else None
        # untimed: fill the page cache and prime the warm index
        sniff(work / "warm")
        if peer:
            run(peer, env)
        results: dict[str, list[Run]] = defaultdict(list)
        for number in range(rounds):
            note(f"round {number + 1}/{rounds}")
            results["sniff --no-index"].append(sniff(work / f"plain-{number}", "--no-index"))
            results["sniff cold"].append(sniff(work / f"cold-{number}"))
            results["sniff warm"].append(sniff(work / "warm"))
            if peer:
                results["ccusage"].append(run(peer, env))
    harnesses = {name: sniff_by_harness(runs[-1].stdout)
                 for name, runs in results.items() if name.startswith("sniff")}  # fmt: skip
    report: dict[str, Any] = {
        "corpus": {k: expected[k] for k in ("bytes", "files", "databases", "copies")},
        "rounds": rounds,
        "ccusage_version": version or None,
        "tools": {name: timings(runs) for name, runs in results.items()},
        "expected": check(expected, harnesses["sniff --no-index"]),
        "cold_warm_equal_no_index": harnesses["sniff cold"] == harnesses["sniff --no-index"]
        and harnesses["sniff warm"] == harnesses["sniff --no-index"],
    }
    if peer:
        report["ccusage"] = compare_peer(
            harnesses["sniff --no-index"], ccusage_by_agent(results["ccusage"][-1].stdout)
        )
        tools, theirs = report["tools"], report["tools"]["ccusage"]
        report["ratios"] = {
            **{f"{name} / ccusage": round(tools[name]["median_s"] / theirs["median_s"], 2)
               for name in tools if name.startswith("sniff")},
            "sniff cold peak RSS / ccusage": round(
                tools["sniff cold"]["peak_rss_mib"] / theirs["peak_rss_mib"], 2),
        }  # fmt: skip
    return report


def table(report: dict[str, Any]) -> str:
    """The report as a few small tables."""
    corpus = report["corpus"]
    lines = [
        f"corpus: {corpus['bytes'] / 1e6:.0f} MB, {corpus['files']} files "
        f"({corpus['databases']} databases), {corpus['copies']} copies; "
        f"{report['rounds']} rounds; peer: {report['ccusage_version'] or 'none'}",
        "",
        f"{'tool':18} {'median s':>9} {'best s':>8} {'peak RSS MiB':>13}",
    ]
    for name, t in report["tools"].items():
        lines.append(f"{name:18} {t['median_s']:9.2f} {t['best_s']:8.2f} {t['peak_rss_mib']:13.1f}")
    for name, ratio in report.get("ratios", {}).items():
        lines.append(f"{name:34} {ratio:6.2f}x")
    if "ratios" not in report:
        lines.append("ratios to ccusage: skipped (ccusage missing)")
    lines += ["", f"{'agent':12} {'requests':>9} {'tokens':>14}  sniff = EXPECTED.json"]
    for agent, row in report["expected"].items():
        tokens = sum(row["sniff"][c] for c in CLASSES[1:5])
        verdict = "yes" if row["equal"] else f"NO {row['differences']}"
        lines.append(f"{agent:12} {row['sniff']['requests']:9,} {tokens:14,}  {verdict}")
    same = "yes" if report["cold_warm_equal_no_index"] else "NO"
    lines.append(f"cold and warm totals = --no-index totals: {same}")
    if "ccusage" in report:
        peer = report["ccusage"]
        lines += ["", "ccusage beside sniff (input, cache read, cache write, output):"]
        for harness, row in peer["compared"].items():
            lines.append(f"  {harness:12} {'equal' if row['equal'] else row['differences']}")
        lines.append(f"  read by sniff only: {', '.join(peer['sniff_only']) or '-'}")
        lines.append(f"  read by ccusage only: {', '.join(peer['ccusage_only']) or '-'}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", help="a folder of gen_agents_corpus.py (default: build)")
    parser.add_argument("--size", type=int, default=200, help="MB of the corpus to build")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ccusage", help="ccusage executable (default: $CCUSAGE, then PATH)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    ccusage, version = find_ccusage(args.ccusage)
    compile_sniff()
    report = bench(corpus_of(args), args.rounds, ccusage, version)
    print(json.dumps(report, indent=2) if args.json else table(report))
    equal = all(row["equal"] for row in report["expected"].values())
    sys.exit(0 if equal and report["cold_warm_equal_no_index"] else 1)


if __name__ == "__main__":
    main()
