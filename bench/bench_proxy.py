#!/usr/bin/env python3
"""Measure what `sniff proxy` adds to the time to first token, under 100 concurrent streams.

The fake API of `tests/proxy/fake_upstream.py` runs in a process of its own, planted with a time
to first token of 200 ms and a gap of 5 ms between tokens. 100 streamed Anthropic calls of 200
tokens each, started evenly over one second, go straight to the fake, then the same 100 through
`sniff proxy` (a subprocess, as a user runs it), in rounds (3 by default). Each client notes when
its first content delta arrived; the proxy's cost is, per stream, the time to first token through
the proxy minus the direct one of the same round. Printed against the issue's targets: the
median and p99 of that cost, the lines the proxy wrote (one per call, each a whole call
answering its own request); and the proxy's CPU while streaming and peak RSS (VmHWM).

usage: python bench/bench_proxy.py [--streams 100] [--tokens 200] [--ttft-ms 200] [--gap-ms 5]
       [--spread-s 1] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any

import aiohttp

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 60.0
TARGET_MEDIAN_MS = 2.0
TARGET_P99_MS = 25.0
WARM = "warm-"
"""The tag of each round's first call, made before the measured ones and not counted."""


def drain(stream: IO[str], lines: queue.Queue[str]) -> None:
    """Put each line a process prints on `lines` (so its pipe never fills)."""
    for line in stream:
        lines.put(line)


def start(arguments: list[str], pattern: str) -> tuple[subprocess.Popen[str], str]:
    """A subprocess in the repository, and the first match of `pattern` in what it prints."""
    process = subprocess.Popen(
        arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO
    )
    lines: queue.Queue[str] = queue.Queue()
    stdout = process.stdout
    assert stdout is not None
    threading.Thread(target=drain, args=(stdout, lines), daemon=True).start()
    deadline = time.monotonic() + TIMEOUT
    printed: list[str] = []
    while time.monotonic() < deadline:
        try:
            printed.append(lines.get(timeout=0.5))
        except queue.Empty:
            if process.poll() is not None:
                break
            continue
        found = re.search(pattern, printed[-1])
        if found:
            return process, found.group(1)
    process.kill()
    sys.exit(f"{' '.join(arguments[1:4])} did not start:\n{''.join(printed)[-2000:]}")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=TIMEOUT)


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) the process has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_kib(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), in KiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def body(tag: str, model: str) -> dict[str, Any]:
    """A stream's request: its tag comes back in every text delta the fake sends."""
    return {
        "model": model,
        "max_tokens": 1024,
        "stream": True,
        "metadata": {"x-tag": tag},
        "messages": [{"role": "user", "content": f"stream {tag}"}],
    }


async def one_stream(
    session: aiohttp.ClientSession, url: str, tag: str, model: str, delay: float
) -> float:
    """Wait `delay`, then stream one call to its end; the seconds to its first content delta."""
    await asyncio.sleep(delay)
    headers = {"x-api-key": "bench-key", "anthropic-version": "2023-06-01"}
    started = time.perf_counter()
    first = 0.0
    async with session.post(
        f"{url}/v1/messages", json=body(tag, model), headers=headers
    ) as response:
        response.raise_for_status()
        async for chunk in response.content.iter_any():
            if not first and b"content_block_delta" in chunk:
                first = time.perf_counter() - started
    if not first:
        raise RuntimeError(f"stream {tag} had no content delta")
    return first


async def streams(url: str, count: int, model: str, spread: float, run: int) -> list[float]:
    """`count` streams started evenly over `spread` seconds; each one's time to first token."""
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        # warm: a connection, the lazy imports
        await one_stream(session, url, WARM, "claude-sonnet-4-5@tokens=2", 0.0)
        calls = [
            one_stream(session, url, f"r{run}s{i}-", model, i * spread / count)
            for i in range(count)
        ]
        return list(await asyncio.wait_for(asyncio.gather(*calls), TIMEOUT))


def check_lines(out: Path, tokens: int) -> tuple[int, int, list[float]]:
    """Lines the proxy wrote for the measured streams, how many of them are not one whole call
    answering its own request (unparseable, or text tagged for another stream), and the times
    to first token the lines say."""
    lines = [line for path in out.glob("calls-*.jsonl") for line in path.read_text().splitlines()]
    measured, bad, ttfts = 0, 0, []
    for line in lines:
        try:
            record = json.loads(line)
            tag = record["request"]["metadata"]["x-tag"]
        except (ValueError, KeyError, TypeError):
            bad += 1
            continue
        if tag == WARM:
            continue  # the warm-up call
        measured += 1
        ttfts.append(record["first_token_at"] - record["started_at"])
        texts = re.findall(r'"text_delta","text":"([^"]*)"', str(record["response"]))
        if len(texts) != tokens or any(not text.startswith(tag) for text in texts):
            bad += 1
    return measured, bad, ttfts


def wait_for_lines(out: Path, count: int) -> None:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if sum(len(p.read_text().splitlines()) for p in out.glob("calls-*.jsonl")) >= count:
            return
        time.sleep(0.05)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(
    direct: list[float], proxied: list[float], lines: tuple[int, int, list[float]], rss: int
) -> bool:
    """Print the figures against the targets; whether all are met."""
    added = [(p - d) * 1000 for p, d in zip(proxied, direct, strict=True)]
    median, p99 = statistics.median(added), percentile(added, 0.99)
    measured, bad, recorded = lines
    shown = [
        ("time to first token, direct", direct),
        ("time to first token, through the proxy", proxied),
        ("  as the proxy's lines record it", recorded),
    ]
    for name, times in shown:
        if times:
            print(f"{name + ':':40} median {statistics.median(times) * 1000:6.1f} ms")
    rows = [
        ("added to first token, median", f"{median:6.2f} ms", f"<= {TARGET_MEDIAN_MS} ms",
         median <= TARGET_MEDIAN_MS),
        ("added to first token, p99", f"{p99:6.2f} ms", f"<= {TARGET_P99_MS} ms",
         p99 <= TARGET_P99_MS),
        ("lines written", f"{measured}", f"== {len(proxied)}", measured == len(proxied)),
        ("lines mixed or broken", f"{bad}", "== 0", bad == 0),
    ]  # fmt: skip
    for name, value, target, met in rows:
        print(f"{name:32} {value:>10}   target {target:10} {'ok' if met else 'MISSED'}")
    print(f"{'proxy peak RSS (VmHWM)':32} {rss / 1024:7.1f} MiB")
    return all(met for *_, met in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--tokens", type=int, default=200)
    parser.add_argument("--ttft-ms", type=int, default=200)
    parser.add_argument("--gap-ms", type=int, default=5)
    parser.add_argument("--spread-s", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=3, help="direct and proxied, alternately")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = str(REPO)
    fake, upstream = start(
        [sys.executable, "-m", "tests.proxy.fake_upstream"], r"FAKE_UPSTREAM=(\S+)"
    )
    try:
        with tempfile.TemporaryDirectory() as scratch:
            out = Path(scratch) / "out"
            proxy, port = start(
                [sys.executable, "-m", "sniff", "proxy", "--port", "0", "--out", str(out),
                 "--anthropic-upstream", upstream, "--openai-upstream", upstream],
                r"ANTHROPIC_BASE_URL=http://127\.0\.0\.1:(\d+)",
            )  # fmt: skip
            try:
                met = run(args, upstream, f"http://127.0.0.1:{port}", proxy, out)
            finally:
                stop(proxy)
    finally:
        stop(fake)
    sys.exit(0 if met else 1)


def run(
    args: argparse.Namespace, upstream: str, url: str, proxy: subprocess.Popen[str], out: Path
) -> bool:
    """Rounds of the direct streams, then the proxied ones; print the figures."""
    model = f"claude-sonnet-4-5@ttft={args.ttft_ms},gap={args.gap_ms},tokens={args.tokens}"
    direct: list[float] = []
    proxied: list[float] = []
    busy = 0.0
    for number in range(args.rounds):
        direct += asyncio.run(streams(upstream, args.streams, model, args.spread_s, number))
        before, started = cpu_seconds(proxy.pid), time.perf_counter()
        proxied += asyncio.run(streams(url, args.streams, model, args.spread_s, number))
        busy += (cpu_seconds(proxy.pid) - before) / (time.perf_counter() - started)
    wait_for_lines(out, args.rounds * (args.streams + 1))
    rss = peak_rss_kib(proxy.pid)
    print(
        f"{args.rounds} rounds of {args.streams} streams of {args.tokens} tokens over "
        f"{args.spread_s:g} s, planted time to first token {args.ttft_ms} ms, gap {args.gap_ms} ms"
    )
    print(f"{'proxy CPU while streaming:':40} {busy / args.rounds:6.0%} of a core")
    return report(direct, proxied, check_lines(out, args.tokens), rss)


if __name__ == "__main__":
    main()
