#!/usr/bin/env python3
"""Measure what the cache-break analysis adds to `sniff scan` (which runs both in one pass).

In this process: read and price the corpus, summarize it (what `scan` did before breaks), then
find the breaks; each step's median over several runs, and the breaks' share of the rest.

usage: python bench/bench_breaks.py DIR [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import UTC
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from sniff.analyses.cache.breaks import find_breaks
    from sniff.analyses.cost.summary import summarize
    from sniff.logs import load
    from sniff.pricing import PriceBook

    scans, breaks = [], []
    found = None
    for _ in range(args.runs):
        prices = PriceBook()
        start = time.perf_counter()
        dataset = load([args.corpus], prices)
        summarize(dataset.requests, UTC)
        middle = time.perf_counter()
        found = find_breaks(dataset.requests, prices, zone=UTC)
        end = time.perf_counter()
        scans.append(middle - start)
        breaks.append(end - middle)
    scan, extra = statistics.median(scans), statistics.median(breaks)
    assert found is not None
    print(
        f"load + summary {scan:.2f} s   breaks {extra:.2f} s   = +{extra / scan * 100:.0f} %   "
        f"({len(found.faults):,} breaks, {len(found.breaks) - len(found.faults):,} cold starts)"
    )


if __name__ == "__main__":
    main()
