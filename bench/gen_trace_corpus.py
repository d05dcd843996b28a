#!/usr/bin/env python3
"""Build a large claude-trace corpus by cloning a seed log with fresh ids.

Every clone gets new message, request, tool-use and session ids and shifted timestamps, so a
tool that deduplicates calls counts every clone as distinct work, while the prompts (system,
tools, conversation text) stay as they are, as in real traffic.

usage: gen_trace_corpus.py SEED.jsonl OUT_DIR TARGET_MB [--files-per-project N]
OUT_DIR receives project-NNN/.claude-trace/log-*.jsonl.
"""

from __future__ import annotations

import argparse
import random
import re
import uuid
from pathlib import Path

UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ID = re.compile(rb"\b(msg|req|toolu)_[0-9A-Za-z]{10,40}\b")
EPOCH = re.compile(rb'"timestamp": ?(1[0-9]{9}(?:\.[0-9]+)?)')
ALPHABET = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"


def clone(seed: bytes, rng: random.Random, shift: float) -> bytes:
    ids: dict[bytes, bytes] = {}

    def fresh_uuid(match: re.Match[bytes]) -> bytes:
        key = match.group(0)
        if key not in ids:
            ids[key] = str(uuid.UUID(int=rng.getrandbits(128), version=4)).encode()
        return ids[key]

    def fresh_id(match: re.Match[bytes]) -> bytes:
        key = match.group(0)
        if key not in ids:
            ids[key] = match.group(1) + b"_" + bytes(rng.choice(ALPHABET) for _ in range(24))
        return ids[key]

    def shifted(match: re.Match[bytes]) -> bytes:
        moved = float(match.group(1)) + shift
        return match.group(0).replace(match.group(1), f"{moved:.6f}".encode())

    return EPOCH.sub(shifted, ID.sub(fresh_id, UUID.sub(fresh_uuid, seed)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("target_mb", type=float)
    parser.add_argument("--files-per-project", type=int, default=4)
    args = parser.parse_args()
    seed = args.seed.read_bytes()
    if not seed.endswith(b"\n"):
        seed += b"\n"
    rng = random.Random(7)
    target = int(args.target_mb * 1024 * 1024)
    written = files = 0
    while written < target:
        body = clone(seed, rng, shift=rng.uniform(-300, 0) * 86400)
        folder = args.out / f"project-{files // args.files_per_project:03d}" / ".claude-trace"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"log-2026-01-01-00-00-{files:05d}.jsonl").write_bytes(body)
        written += len(body)
        files += 1
    print(f'{{"files": {files}, "bytes": {written}}}')


if __name__ == "__main__":
    main()
