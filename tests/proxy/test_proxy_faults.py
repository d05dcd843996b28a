"""`sniff proxy` when things go wrong, and what it must never write: an upstream's error status,
a client that goes away, an upstream that drops the stream, kill -9 in the middle of 20
streams, credentials in headers and prompts; and `--diagnose`'s fields reaching the upstream.

The rig (the fake API, the proxy subprocess, the SDK calls) is `test_proxy_e2e.py`'s.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from typing import Any

import aiohttp
import anthropic
import openai
import pytest

from sniff.redact_secrets import redact_secrets
from tests.proxy.fake_upstream import FakeUpstream
from tests.proxy.test_proxy_e2e import (
    TIMEOUT,
    Proxy,
    arguments,
    last,
    proxies,
    raw_call,
    resource,
    sdk,
    serve_fake,
)

fake = pytest.fixture(scope="module", name="fake")(serve_fake)
start_proxy = pytest.fixture(name="start_proxy")(proxies)


@pytest.mark.parametrize(
    ("api", "status", "error"),
    [
        ("anthropic", 529, anthropic.InternalServerError),
        ("chat", 429, openai.RateLimitError),
        ("responses", 529, openai.InternalServerError),
    ],
)
def test_an_upstream_error_status_reaches_the_client_and_is_recorded(
    start_proxy: Callable[..., Proxy], api: str, status: int, error: type[Exception]
) -> None:
    """A planted 529 or 429 reaches the SDK as that status (its typed error), and the record
    says the status."""
    proxy = start_proxy()
    client = sdk(api, proxy.url)
    with pytest.raises(error) as raised:
        resource(client, api).create(**arguments(api, f"fake-model@status={status}", True))
    assert getattr(raised.value, "status_code", None) == status
    (record,) = proxy.records(1)
    assert record["status"] == status


def test_a_client_that_goes_away_closes_the_upstream_within_a_second(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy]
) -> None:
    """The SDK closes a slow stream after 50 text deltas: the fake sees its connection closed
    within 1 s, before the stream's end, and the record says `cancelled`."""
    proxy = start_proxy()
    client = sdk("anthropic", proxy.url)
    model = "fake-model@ttft=20,gap=20,tokens=500"
    seen = 0
    with client.messages.stream(**streamed(model)) as stream:
        for event in stream:
            seen += event.type == "content_block_delta"
            if seen == 50:
                break
    left_at = time.time()
    exchange = last(fake, "anthropic")
    assert exchange.ended == "closed"
    assert exchange.ended_at - left_at < 1.0
    assert len(exchange.delta_times) < 500
    (record,) = proxy.records(1)
    assert record["outcome"] == "cancelled"


def test_a_stream_the_upstream_drops_is_recorded_broken_and_the_client_sees_an_error(
    start_proxy: Callable[..., Proxy],
) -> None:
    """The fake cuts its connection after 10 deltas: the SDK raises a connection error (the
    proxy does not end the stream as if it were whole), and the record says `broken`."""
    proxy = start_proxy()
    client = sdk("anthropic", proxy.url)
    model = "fake-model@gap=2,tokens=50,drop_at=10"
    with (
        pytest.raises(anthropic.APIConnectionError),
        client.messages.stream(**streamed(model)) as stream,
    ):
        for _ in stream:
            pass
    (record,) = proxy.records(1)
    assert record["outcome"] == "broken"


def streamed(model: str) -> Any:
    """The arguments of `messages.stream` (which says `stream` itself)."""
    call = arguments("anthropic", model, True)
    del call["stream"]
    return call


async def _stream_raw(session: aiohttp.ClientSession, url: str, index: int) -> None:
    """One streamed Anthropic call over a raw HTTP client, read to its end (or its error)."""
    body = arguments("anthropic", f"fake-model@gap=10,tokens={20 + 10 * index}", True)
    headers = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}
    async with session.post(f"{url}/v1/messages", json=body, headers=headers) as response:
        async for _ in response.content.iter_any():
            pass


async def _kill_during_streams(proxy: Proxy) -> None:
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        calls = [asyncio.create_task(_stream_raw(session, proxy.url, i)) for i in range(20)]
        deadline = time.monotonic() + TIMEOUT
        while len(proxy.lines()) < 5:  # some written, most still streaming
            assert time.monotonic() < deadline, "no call was recorded"
            await asyncio.sleep(0.005)
        proxy.process.kill()
        await asyncio.wait_for(asyncio.gather(*calls, return_exceptions=True), TIMEOUT)


def test_kill_9_during_20_concurrent_streams_leaves_only_whole_lines(
    start_proxy: Callable[..., Proxy],
) -> None:
    """The proxy is killed (SIGKILL) while 20 streams of staggered lengths pass: every calls
    file ends with a whole line and each of its lines parses as one call."""
    proxy = start_proxy()
    asyncio.run(_kill_during_streams(proxy))
    proxy.process.wait(timeout=TIMEOUT)
    files = list(proxy.out.glob("calls-*.jsonl"))
    assert files
    for path in files:
        text = path.read_text()
        assert text == "" or text.endswith("\n")
        for line in text.splitlines():
            assert isinstance(json.loads(line)["request"], dict)
    assert 5 <= len(proxy.lines()) < 20


def _fake_key(prefix: str) -> str:
    """A key of the vendor's shape (random, so it is in no file by chance)."""
    return prefix + secrets.token_urlsafe(60).replace("-", "x").replace("_", "y") + "AA"


def test_no_credential_reaches_any_file_in_the_out_folder(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy]
) -> None:
    """An Anthropic key sent as `x-api-key` and `Authorization: Bearer`, an OpenAI key as
    `Authorization: Bearer`, and a key pasted into a user message pass to the upstream but are
    in no file the proxy wrote."""
    anthropic_key, openai_key = _fake_key("sk-ant-api03-"), _fake_key("sk-proj-")
    pasted = _fake_key("sk-ant-api03-")
    for key in (anthropic_key, openai_key, pasted):
        assert key not in redact_secrets(key)  # the project's patterns know its shape
    proxy = start_proxy()
    text = f"my .env has ANTHROPIC_API_KEY={pasted}, why does it fail?"
    for api, key in (("anthropic", anthropic_key), ("chat", openai_key)):
        for stream in (False, True):
            client = sdk(api, proxy.url, key)  # the SDKs send `Authorization: Bearer <key>`
            planted = {"extra_headers": {"x-api-key": key}} if api == "anthropic" else {}
            call = arguments(api, "fake-model", stream, text=text, **planted)
            resource(client, api).create(**call)
    assert last(fake, "anthropic").headers["x-api-key"] == anthropic_key
    assert last(fake, "anthropic").headers["authorization"] == f"Bearer {anthropic_key}"
    assert last(fake, "chat").headers["authorization"] == f"Bearer {openai_key}"
    proxy.records(4)
    proxy.stop()
    written = [path for path in proxy.out.rglob("*") if path.is_file()]
    assert written
    for path in written:
        content = path.read_bytes()
        for key in (anthropic_key, openai_key, pasted):
            assert key[14:].encode() not in content, f"{path.name} holds a key"


SESSION = "6f1d2c3a-0b4e-4f5a-9c8d-7e6f5a4b3c2d"
USER_ID = f"user_{'5e' * 32}_account_0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d_session_{SESSION}"
ANTHROPIC_SESSION: dict[str, Any] = {"metadata": {"user_id": USER_ID}}
"""Claude Code's way of naming its session: in `metadata.user_id`."""
OPENAI_SESSION: dict[str, Any] = {"extra_headers": {"session_id": SESSION}}
"""Codex's way: a `session_id` header."""


def _call_twice(api: str, proxy: Proxy, session: dict[str, Any]) -> list[str]:
    """Two calls of one session (different first messages) through the proxy; the ids of the
    answers."""
    client = sdk(api, proxy.url)
    ids: list[str] = []
    for text in ("first", "second"):
        call = arguments(api, "fake-model", False, text=text, **session)
        ids.append(resource(client, api).create(**call).id)
    return ids


def test_diagnose_asks_anthropic_about_the_sessions_previous_message(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy]
) -> None:
    """With `--diagnose`, the fake receives the `cache-diagnosis-2026-04-07` beta, and the
    second call of a session carries `diagnostics.previous_message_id`: the first's answer."""
    proxy = start_proxy("--diagnose")
    ids = _call_twice("anthropic", proxy, ANTHROPIC_SESSION)
    first, second = fake.received("/v1/messages")[-2:]
    for exchange in (first, second):
        assert "cache-diagnosis-2026-04-07" in exchange.headers.get("anthropic-beta", "")
    body: Any = second.json
    assert body["diagnostics"]["previous_message_id"] == ids[0]


def test_diagnose_asks_openai_to_compare_with_the_sessions_previous_response(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy]
) -> None:
    """With `--diagnose`, the second Responses call of a session carries
    `prompt_cache_options.comparison_response_id`: the first's response id."""
    proxy = start_proxy("--diagnose")
    ids = _call_twice("responses", proxy, OPENAI_SESSION)
    second = fake.received("/v1/responses")[-1]
    body: Any = second.json
    assert body["prompt_cache_options"]["comparison_response_id"] == ids[0]


def test_without_diagnose_the_request_passes_unchanged(
    fake: FakeUpstream, start_proxy: Callable[..., Proxy]
) -> None:
    """Without `--diagnose`, nothing is added: no beta header, no diagnostics field."""
    proxy = start_proxy()
    raw_call("anthropic", proxy.url, "fake-model", False, **ANTHROPIC_SESSION)
    raw_call("anthropic", proxy.url, "fake-model", False, **ANTHROPIC_SESSION)
    second = last(fake, "anthropic")
    assert "cache-diagnosis" not in second.headers.get("anthropic-beta", "")
    assert "diagnostics" not in second.json
