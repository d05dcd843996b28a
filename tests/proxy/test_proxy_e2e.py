"""`sniff proxy` end to end: the official `anthropic` and `openai` SDKs talk through the proxy
(a subprocess, as a user runs it) to the fake API of `fake_upstream`, and what they get back,
what the fake received and what the proxy recorded are compared. Here: transparency (the same
bytes as a direct call), the recorded times against the planted ones, and `sniff latency`
reading the records. The faults, secrets and `--diagnose` are in `test_proxy_faults.py`.

Every wait has a timeout, and every process a test starts is stopped after it.
"""

from __future__ import annotations

import json
import queue
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import anthropic
import openai
import pytest

from tests.proxy.fake_upstream import Exchange, FakeUpstream

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 30.0
"""The longest any single call, read or wait of these tests may take."""
APIS = ("anthropic", "chat", "responses")
PATHS = {"anthropic": "/v1/messages", "chat": "/v1/chat/completions", "responses": "/v1/responses"}


def drain(stream: IO[str], lines: queue.Queue[str]) -> None:
    """Put each line a process prints on `lines` (so its pipe never fills)."""
    for line in stream:
        lines.put(line)


class Proxy:
    """`python -m sniff proxy --port 0 --out OUT …` pointed at the fake, in a subprocess."""

    def __init__(self, out: Path, upstream: str, *extra: str) -> None:
        self.out = out
        arguments = [
            sys.executable, "-m", "sniff", "proxy", "--port", "0", "--out", str(out),
            "--anthropic-upstream", upstream, "--openai-upstream", upstream, *extra,
        ]  # fmt: skip
        self.process = subprocess.Popen(
            arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO
        )
        self.printed: list[str] = []
        lines: queue.Queue[str] = queue.Queue()
        stdout = self.process.stdout
        assert stdout is not None
        threading.Thread(target=drain, args=(stdout, lines), daemon=True).start()
        self.port = self._port(lines)

    def _port(self, lines: queue.Queue[str]) -> int:
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, f"the proxy printed no address: {self.printed}"
            try:
                self.printed.append(lines.get(timeout=0.5))
            except queue.Empty:
                assert self.process.poll() is None, f"the proxy exited: {self.printed}"
                continue
            found = re.search(r"ANTHROPIC_BASE_URL=http://127\.0\.0\.1:(\d+)", self.printed[-1])
            if found:
                return int(found.group(1))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> int:
        """SIGTERM, and the exit code (killed if it does not exit within the timeout)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait(timeout=TIMEOUT)

    def lines(self) -> list[str]:
        """Every whole line of every calls file, as written (no end-of-line): a line the proxy
        is still appending is not one yet."""
        found: list[str] = []
        for path in sorted(self.out.glob("calls-*.jsonl")):
            found.extend(path.read_text().split("\n")[:-1])
        return found

    def records(self, count: int, timeout: float = TIMEOUT) -> list[dict[str, Any]]:
        """The calls recorded, once there are `count` of them (in the order written)."""
        deadline = time.monotonic() + timeout
        while len(self.lines()) < count:
            assert time.monotonic() < deadline, f"{len(self.lines())} records, not {count}"
            time.sleep(0.02)
        return [json.loads(line) for line in self.lines()]


def serve_fake() -> Iterator[FakeUpstream]:
    """The `fake` fixture: one fake API for a test module."""
    with FakeUpstream() as server:
        yield server


def proxies(fake: FakeUpstream, tmp_path: Path) -> Iterator[Callable[..., Proxy]]:
    """Starts proxies on the fake (each with its own out folder), stopped after the test."""
    started: list[Proxy] = []

    def start(*extra: str) -> Proxy:
        started.append(Proxy(tmp_path / f"out{len(started)}", fake.url, *extra))
        return started[-1]

    yield start
    for proxy in started:
        proxy.stop()
        assert proxy.process.stdout is not None
        proxy.process.stdout.close()


fake = pytest.fixture(scope="module", name="fake")(serve_fake)
start_proxy = pytest.fixture(name="start_proxy")(proxies)


def sdk(api: str, base: str, key: str = "test-key") -> Any:
    """The official SDK's client for `api`, on `base`, without retries."""
    if api == "anthropic":
        return anthropic.Anthropic(api_key=key, base_url=base, max_retries=0, timeout=TIMEOUT)
    return openai.OpenAI(api_key=key, base_url=f"{base}/v1", max_retries=0, timeout=TIMEOUT)


def arguments(api: str, model: str, stream: bool, text: str = "hello", **extra: Any) -> Any:
    """The keyword arguments of one call of `api` with one user message."""
    message = [{"role": "user", "content": text}]
    if api == "anthropic":
        return {"model": model, "max_tokens": 256, "messages": message, "stream": stream, **extra}
    if api == "chat":
        usage = {"stream_options": {"include_usage": True}} if stream else {}
        return {"model": model, "messages": message, "stream": stream, **usage, **extra}
    return {"model": model, "input": text, "stream": stream, **extra}


def resource(client: Any, api: str) -> Any:
    """The SDK's resource that calls `api`."""
    return {
        "anthropic": lambda: client.messages,
        "chat": lambda: client.chat.completions,
        "responses": lambda: client.responses,
    }[api]()


def raw_call(api: str, base: str, model: str, stream: bool, **extra: Any) -> tuple[int, bytes]:
    """Status and body bytes, as the SDK's raw response API reads them off the wire."""
    create = resource(sdk(api, base), api).with_streaming_response.create
    with create(**arguments(api, model, stream, **extra)) as response:
        return response.http_response.status_code, response.read()


def parsed_text(api: str, base: str, model: str, stream: bool) -> str:
    """The answer's text as the SDK parses it (streamed: joined from its typed events)."""
    answer = resource(sdk(api, base), api).create(**arguments(api, model, stream))
    if not stream:
        if api == "anthropic":
            return "".join(block.text for block in answer.content if block.type == "text")
        return str(answer.choices[0].message.content if api == "chat" else answer.output_text)
    parts: list[str] = []
    for event in answer:
        if api == "anthropic" and event.type == "content_block_delta":
            parts.append(getattr(event.delta, "text", ""))
        elif api == "chat" and event.choices:
            parts.append(event.choices[0].delta.content or "")
        elif api == "responses" and event.type == "response.output_text.delta":
            parts.append(event.delta)
    return "".join(parts)


def last(fake: FakeUpstream, api: str) -> Exchange:
    """The fake's latest exchange of `api`, once it has ended."""
    exchange = fake.received(PATHS[api])[-1]
    exchange.wait(TIMEOUT)
    return exchange


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("api", APIS)
def test_the_sdks_get_through_the_proxy_the_bytes_a_direct_call_gets(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy], api: str, stream: bool
) -> None:
    """Forwarding is byte for byte both ways: the body the SDK reads through the proxy equals
    the direct call's, the fake receives the same request bytes, and the SDK parses the answer
    through the proxy (planted thinking included) to the text the fake sent."""
    proxy = start_proxy()
    model = "fake-model@tokens=12,gap=2,thinking_tokens=3"
    direct = raw_call(api, fake.url, model, stream)
    sent_direct = last(fake, api).body
    through = raw_call(api, proxy.url, model, stream)
    assert last(fake, api).body == sent_direct
    assert through == direct
    assert direct[0] == 200 and b"t11 " in direct[1]
    expected = "".join(f"t{i} " for i in range(12))
    assert parsed_text(api, proxy.url, model, stream) == expected
    records = proxy.records(2)
    assert [r["status"] for r in records] == [200, 200]
    assert {r["outcome"] for r in records} == {"complete"}


@pytest.mark.parametrize("api", APIS)
def test_recorded_first_token_and_gaps_match_the_planted_ones(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy], api: str
) -> None:
    """On a warm proxy, the record's first token is the moment the fake sent it, within 5 ms,
    and its time to first token the planted 200 ms (within 25 ms: what reaching the fake adds
    on a busy 2-core machine; medians of three calls, one scheduling hiccup being no one's);
    each one's mean gap between tokens, (ended − first token) / (tokens − 1), is the planted
    20 ms within 5 %."""
    proxy = start_proxy()
    raw_call(api, proxy.url, "fake-model", True)  # warm: the proxy's connection upstream
    tokens, ttfts, sent = 30, list[float](), list[float]()
    for _ in range(3):
        raw_call(api, proxy.url, f"fake-model@ttft=200,gap=20,tokens={tokens}", True)
        record = proxy.records(len(ttfts) + 2)[-1]
        sent.append(round(last(fake, api).delta_times[0] - record["started_at"], 4))
        ttfts.append(record["first_token_at"] - record["started_at"])
        mean_gap = (record["ended_at"] - record["first_token_at"]) / (tokens - 1)
        assert mean_gap == pytest.approx(0.02, rel=0.05)
        assert record["token_gaps"]["count"] >= tokens - 1
        assert record["token_gaps"]["p50_s"] == pytest.approx(0.02, abs=0.005)
        assert record["first_byte_at"] <= record["first_token_at"]
    late = statistics.median(ttft - at for ttft, at in zip(ttfts, sent, strict=True))
    assert -0.002 <= late <= 0.005, f"recorded {ttfts}, the fake sent at {sent}"
    assert statistics.median(ttfts) == pytest.approx(0.2, abs=0.025), ttfts


@pytest.mark.parametrize("api", ["anthropic", "responses"])
def test_first_visible_token_falls_after_the_planted_thinking(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy], api: str
) -> None:
    """With 10 thinking deltas planted before the text (20 ms apart), the first token is the
    first thought (after the fake sent it, long before the last) and the first visible token is
    the first text, sent after the last thought, 300 ms (planted) after the request."""
    proxy = start_proxy()
    raw_call(api, proxy.url, "fake-model", True)  # warm: the proxy's connection upstream
    raw_call(api, proxy.url, "fake-model@ttft=100,gap=20,tokens=5,thinking_tokens=10", True)
    sent = last(fake, api).delta_times
    record = proxy.records(2)[1]
    assert sent[0] <= record["first_token_at"] < sent[9]
    assert record["first_visible_at"] >= sent[10] > sent[9]
    assert record["first_visible_at"] - record["started_at"] >= 0.3


def test_sniff_latency_counts_the_proxys_records_as_exact(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy]
) -> None:
    """`sniff latency --json` on the proxy's out folder reads every streamed call's time to
    first token as exact, not approximate."""
    proxy = start_proxy()
    planted = {"x-fake-ttft-ms": "50", "x-fake-gap-ms": "2", "x-fake-tokens": "5"}
    for api, model in zip(APIS, ("claude-sonnet-4-5", "gpt-5-mini", "gpt-5.1"), strict=True):
        raw_call(api, proxy.url, model, True, extra_headers=planted)
    proxy.records(len(APIS))
    proxy.stop()
    command = [sys.executable, "-m", "sniff", "latency", "--json", str(proxy.out)]
    done = subprocess.run(
        command, capture_output=True, text=True, cwd=REPO, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["count"] == len(APIS)
    assert figures["exact"] == figures["count"]
