"""A fake Anthropic and OpenAI API on a real socket, for `sniff proxy`'s tests and benchmark.

`FakeUpstream` is an aiohttp server on 127.0.0.1 (a free port), run in a background thread with
its own event loop. It answers Anthropic Messages (`/v1/messages`) and OpenAI Chat Completions
(`/v1/chat/completions`) and Responses (`/v1/responses`), as JSON or as a server-sent event
stream when the body says `"stream": true`, in the shapes the official SDKs parse.

What it does is planted per request, by a header or by the model name (the header wins):
`x-fake-ttft-ms` (wait before the first content delta), `x-fake-gap-ms` (between deltas),
`x-fake-tokens` (text deltas), `x-fake-thinking-tokens` (thinking deltas before the text),
`x-fake-status` (e.g. 529 or 429: an error body instead) and `x-fake-drop-at` (the connection is
cut after that many deltas). In the model name: `claude-x@ttft=200,gap=5,tokens=50`.

Delta `i` is sent at `ttft + i * gap` after the request arrived (a deadline: the gaps do not
drift). The answer depends on the request body alone (ids are a hash of it): one request sent
directly and through the proxy gets the same bytes. Every request is recorded (`Exchange`): its
path, headers and body, when each delta went out, and how the exchange ended.

Run as a script it serves until killed and prints `FAKE_UPSTREAM=http://127.0.0.1:<port>`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

CREATED = 1_780_000_000
"""The fixed creation time of every answer: a repeated request gets the same bytes."""
PLANTS = {"ttft": 0.0, "gap": 0.0, "tokens": 5, "thinking": 0, "status": 200, "drop": -1}
HEADERS = {
    "x-fake-ttft-ms": "ttft", "x-fake-gap-ms": "gap", "x-fake-tokens": "tokens",
    "x-fake-thinking-tokens": "thinking", "x-fake-status": "status", "x-fake-drop-at": "drop",
}  # fmt: skip
SPIN = 0.002
"""The last seconds before a delta's time a precise fake waits awake."""
NAMES = {"thinking_tokens": "thinking", "drop_at": "drop"}


@dataclass
class Plan:
    """What one request asked the fake to do (times in seconds)."""

    ttft: float = 0.0
    gap: float = 0.0
    tokens: int = 5
    thinking: int = 0
    status: int = 200
    drop: int = -1


@dataclass
class Exchange:
    """One request the fake received, and what it sent back."""

    path: str
    headers: dict[str, str]
    """Names in lower case."""
    body: bytes
    plan: Plan
    received_at: float
    clock: float
    """`time.monotonic()` when the request arrived: the planted times count from it."""
    delta_times: list[float] = field(default_factory=list)
    ended: str = ""
    """`complete`, `refused` (a planted status), `closed` (the client went away), `dropped`
    (planted) or `error`."""
    ended_at: float = 0.0
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    def wait(self, timeout: float = 10.0) -> str:
        """How the exchange ended, waiting for it up to `timeout` seconds."""
        assert self.done.wait(timeout), f"the fake's {self.path} exchange did not end"
        return self.ended


def plan_of(headers: Any, model: str) -> Plan:
    """The plan planted by the model name's `@key=value,…` suffix, then by `x-fake-*` headers."""
    values: dict[str, float] = dict(PLANTS)
    if "@" in model:
        for pair in model.split("@", 1)[1].split(","):
            key, _, value = pair.partition("=")
            values[NAMES.get(key, key)] = float(value)
    for header, key in HEADERS.items():
        if header in headers:
            values[key] = float(headers[header])
    return Plan(
        ttft=values["ttft"] / 1000, gap=values["gap"] / 1000, tokens=int(values["tokens"]),
        thinking=int(values["thinking"]), status=int(values["status"]), drop=int(values["drop"]),
    )  # fmt: skip


def token_text(body: Any, index: int) -> str:
    """Text delta `index`: tagged with the request's `x-tag` metadata, so a test can tell which
    request a recorded stream answered."""
    tag = body.get("metadata", {}).get("x-tag", "") if isinstance(body, dict) else ""
    return f"{tag}t{index} "


def answer_id(prefix: str, body: bytes) -> str:
    """An id that depends on the request body alone."""
    return prefix + hashlib.sha256(body).hexdigest()[:24]


def sse(event: str | None, data: Any) -> bytes:
    """One server-sent event, as the providers frame them."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {text}\n\n".encode()


class FakeUpstream:
    """The fake API server; `start()` it, read `url`, and `stop()` it (or use `with`)."""

    def __init__(self, precise: bool = True) -> None:
        self.precise = precise
        """Whether a delta waits its last `SPIN` seconds awake, not on the event loop's timer
        (up to a millisecond late): exact times for the tests, at a core's cost."""
        self.exchanges: list[Exchange] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeUpstream:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._serve(), self.loop).result(timeout=10)
        return self

    def stop(self) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)

    __enter__ = start

    def __exit__(self, *_: object) -> None:
        self.stop()

    def received(self, path: str) -> list[Exchange]:
        """The exchanges on `path`, in the order they arrived."""
        return [exchange for exchange in self.exchanges if exchange.path == path]

    async def _serve(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/messages", self._handler(self._anthropic))
        app.router.add_post("/v1/chat/completions", self._handler(self._chat))
        app.router.add_post("/v1/responses", self._handler(self._responses))
        # cancelled when the client goes away: the exchange says `closed` at once
        self.runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", 0).start()
        self.port = self.runner.addresses[0][1]

    def _handler(self, answer: Any) -> Any:
        async def handle(request: web.Request) -> web.StreamResponse:
            received_at, clock = time.time(), time.monotonic()
            body = await request.read()
            parsed = json.loads(body) if body else {}
            plan = plan_of(request.headers, str(parsed.get("model", "")))
            headers = {name.lower(): value for name, value in request.headers.items()}
            exchange = Exchange(request.path, headers, body, plan, received_at, clock)
            self.exchanges.append(exchange)
            try:
                if plan.status != 200:
                    exchange.ended = "refused"
                    return _error(request.path, plan.status)
                response: web.StreamResponse = await answer(request, exchange, parsed)
                exchange.ended = exchange.ended or "complete"
                return response
            except (asyncio.CancelledError, ConnectionError):
                exchange.ended = "closed"
                raise
            finally:
                exchange.ended_at = time.time()
                exchange.ended = exchange.ended or "error"
                exchange.done.set()

        return handle

    async def _stream(
        self, request: web.Request, exchange: Exchange, events: Any
    ) -> web.StreamResponse:
        """Send `events`: (delta index or None, bytes) pairs, a delta at its planted time."""
        plan = exchange.plan
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        for index, data in events:
            if index is not None:
                if index == plan.drop:
                    exchange.ended = "dropped"
                    assert request.transport is not None
                    request.transport.abort()
                    return response
                await self._until(exchange.clock + plan.ttft + index * plan.gap)
                exchange.delta_times.append(time.time())
            await response.write(data)
        await response.write_eof()
        return response

    async def _until(self, deadline: float) -> None:
        """Wait until `deadline` (monotonic): by the event loop, then awake if `precise`."""
        wait = deadline - time.monotonic() - (SPIN if self.precise else 0.0)
        if wait > 0:
            await asyncio.sleep(wait)
        while self.precise and time.monotonic() < deadline:
            await asyncio.sleep(0)

    async def _anthropic(self, request: web.Request, exchange: Exchange, body: Any) -> Any:
        plan = exchange.plan
        message = _anthropic_message(exchange, body)
        if not body.get("stream"):
            await asyncio.sleep(plan.ttft + plan.gap * max(plan.thinking + plan.tokens - 1, 0))
            return web.json_response(message, dumps=_dumps)
        return await self._stream(request, exchange, _anthropic_events(exchange, body, message))

    async def _chat(self, request: web.Request, exchange: Exchange, body: Any) -> Any:
        plan = exchange.plan
        if not body.get("stream"):
            await asyncio.sleep(plan.ttft + plan.gap * max(plan.tokens - 1, 0))
            return web.json_response(_chat_completion(exchange, body), dumps=_dumps)
        return await self._stream(request, exchange, _chat_events(exchange, body))

    async def _responses(self, request: web.Request, exchange: Exchange, body: Any) -> Any:
        plan = exchange.plan
        response = _response_object(exchange, body, completed=True)
        if not body.get("stream"):
            await asyncio.sleep(plan.ttft + plan.gap * max(plan.thinking + plan.tokens - 1, 0))
            return web.json_response(response, dumps=_dumps)
        return await self._stream(request, exchange, _responses_events(exchange, body, response))


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _error(path: str, status: int) -> web.Response:
    kind = {529: "overloaded_error", 429: "rate_limit_error"}.get(status, "api_error")
    if path == "/v1/messages":
        body: Any = {"type": "error", "error": {"type": kind, "message": f"planted {status}"}}
    else:
        body = {"error": {"message": f"planted {status}", "type": kind, "code": None}}
    return web.json_response(body, status=status, dumps=_dumps)


def _usage_in(body: Any) -> int:
    return len(_dumps(body)) // 4


def _anthropic_message(exchange: Exchange, body: Any) -> dict[str, Any]:
    plan = exchange.plan
    content: list[dict[str, Any]] = []
    if plan.thinking:
        thought = "".join(f"think{i} " for i in range(plan.thinking))
        content.append({"type": "thinking", "thinking": thought, "signature": "c2lnbmVk"})
    text = "".join(token_text(body, i) for i in range(plan.tokens))
    content.append({"type": "text", "text": text})
    message: dict[str, Any] = {
        "id": answer_id("msg_", exchange.body), "type": "message", "role": "assistant",
        "model": body.get("model", ""), "content": content, "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": _usage_in(body), "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "output_tokens": plan.thinking + plan.tokens,
        },
    }  # fmt: skip
    if "diagnostics" in body:
        message["diagnostics"] = {"cache_miss_reason": {"type": "previous_message_not_found"}}
    return message


def _anthropic_events(exchange: Exchange, body: Any, message: dict[str, Any]) -> Any:
    """message_start (usage; diagnostics) at once, then thinking and text deltas, the final
    usage in message_delta, and message_stop."""
    plan = exchange.plan
    start = {**message, "content": [], "stop_reason": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    yield None, sse("message_start", {"type": "message_start", "message": start})
    block = 0
    if plan.thinking:
        empty = {"type": "thinking", "thinking": "", "signature": ""}
        yield None, _block_start(block, empty)
        for i in range(plan.thinking):
            delta = {"type": "thinking_delta", "thinking": f"think{i} "}
            yield i, _block_delta(block, delta)
        yield None, _block_delta(block, {"type": "signature_delta", "signature": "c2lnbmVk"})
        yield None, sse("content_block_stop", {"type": "content_block_stop", "index": block})
        block = 1
    yield None, _block_start(block, {"type": "text", "text": ""})
    for i in range(plan.tokens):
        delta = {"type": "text_delta", "text": token_text(body, i)}
        yield plan.thinking + i, _block_delta(block, delta)
    yield None, sse("content_block_stop", {"type": "content_block_stop", "index": block})
    final = {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}}
    final["usage"] = {"output_tokens": plan.thinking + plan.tokens}
    yield None, sse("message_delta", final)
    yield None, sse("message_stop", {"type": "message_stop"})


def _block_start(index: int, block: dict[str, Any]) -> bytes:
    event = {"type": "content_block_start", "index": index, "content_block": block}
    return sse("content_block_start", event)


def _block_delta(index: int, delta: dict[str, Any]) -> bytes:
    event = {"type": "content_block_delta", "index": index, "delta": delta}
    return sse("content_block_delta", event)


def _chat_usage(body: Any, tokens: int) -> dict[str, Any]:
    given = _usage_in(body)
    return {
        "prompt_tokens": given, "completion_tokens": tokens, "total_tokens": given + tokens,
        "prompt_tokens_details": {"cached_tokens": 0},
    }  # fmt: skip


def _chat_completion(exchange: Exchange, body: Any) -> dict[str, Any]:
    text = "".join(token_text(body, i) for i in range(exchange.plan.tokens))
    return {
        "id": answer_id("chatcmpl-", exchange.body), "object": "chat.completion",
        "created": CREATED, "model": body.get("model", ""),
        "choices": [{
            "index": 0, "message": {"role": "assistant", "content": text, "refusal": None},
            "finish_reason": "stop", "logprobs": None,
        }],
        "usage": _chat_usage(body, exchange.plan.tokens),
    }  # fmt: skip


def _chat_events(exchange: Exchange, body: Any) -> Any:
    """Chunks with `choices[].delta.content` (the role with the first), a finish chunk, the
    usage in a last chunk when `stream_options.include_usage`, and `[DONE]`."""
    head = {
        "id": answer_id("chatcmpl-", exchange.body), "object": "chat.completion.chunk",
        "created": CREATED, "model": body.get("model", ""),
    }  # fmt: skip
    for i in range(exchange.plan.tokens):
        delta: dict[str, Any] = {"content": token_text(body, i)}
        if i == 0:
            delta = {"role": "assistant", **delta}
        choice = {"index": 0, "delta": delta, "finish_reason": None}
        yield i, sse(None, {**head, "choices": [choice]})
    finish = {"index": 0, "delta": {}, "finish_reason": "stop"}
    yield None, sse(None, {**head, "choices": [finish]})
    if (body.get("stream_options") or {}).get("include_usage"):
        usage = _chat_usage(body, exchange.plan.tokens)
        yield None, sse(None, {**head, "choices": [], "usage": usage})
    yield None, sse(None, "[DONE]")


def _response_object(exchange: Exchange, body: Any, completed: bool) -> dict[str, Any]:
    plan = exchange.plan
    text = "".join(token_text(body, i) for i in range(plan.tokens))
    output: list[dict[str, Any]] = []
    if plan.thinking:
        thought = "".join(f"think{i} " for i in range(plan.thinking))
        summary = [{"type": "summary_text", "text": thought}]
        output.append(
            {"id": answer_id("rs_", exchange.body), "type": "reasoning", "summary": summary}
        )
    output.append({
        "id": answer_id("msg_", exchange.body), "type": "message", "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    })  # fmt: skip
    response: dict[str, Any] = {
        "id": answer_id("resp_", exchange.body), "object": "response", "created_at": CREATED,
        "status": "completed" if completed else "in_progress", "model": body.get("model", ""),
        "output": output if completed else [], "usage": None,
    }  # fmt: skip
    if completed:
        given = _usage_in(body)
        response["usage"] = {
            "input_tokens": given, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": plan.thinking + plan.tokens,
            "output_tokens_details": {"reasoning_tokens": plan.thinking},
            "total_tokens": given + plan.thinking + plan.tokens,
        }  # fmt: skip
    if "prompt_cache_options" in body:
        response["prompt_cache_diagnostics"] = {"type": "comparison_response_not_found"}
    return response


def _responses_events(exchange: Exchange, body: Any, done: dict[str, Any]) -> Any:
    """response.created, a reasoning item's summary deltas (the planted thinking), a message
    item's output_text deltas, and response.completed with the usage."""
    plan = exchange.plan
    numbers = iter(range(1_000_000))

    def event(kind: str, **fields: Any) -> bytes:
        return sse(kind, {"type": kind, "sequence_number": next(numbers), **fields})

    created = _response_object(exchange, body, completed=False)
    yield None, event("response.created", response=created)
    yield None, event("response.in_progress", response=created)
    *reasoning, message = done["output"]
    for at, item in enumerate(reasoning):
        opened = {**item, "summary": []}
        yield None, event("response.output_item.added", output_index=at, item=opened)
        where: dict[str, Any] = {"item_id": item["id"], "output_index": at, "summary_index": 0}
        summary = {"type": "summary_text", "text": ""}
        yield None, event("response.reasoning_summary_part.added", part=summary, **where)
        for i in range(plan.thinking):
            yield i, event("response.reasoning_summary_text.delta", delta=f"think{i} ", **where)
        yield None, event("response.output_item.done", output_index=at, item=item)
    at = len(reasoning)
    added = {**message, "status": "in_progress", "content": []}
    yield None, event("response.output_item.added", output_index=at, item=added)
    where = {"item_id": message["id"], "output_index": at, "content_index": 0}
    part: dict[str, Any] = {"type": "output_text", "text": "", "annotations": []}
    yield None, event("response.content_part.added", part=part, **where)
    for i in range(plan.tokens):
        delta = event("response.output_text.delta", delta=token_text(body, i), logprobs=[], **where)
        yield plan.thinking + i, delta
    text = message["content"][0]["text"]
    yield None, event("response.output_text.done", text=text, logprobs=[], **where)
    yield None, event("response.content_part.done", part=message["content"][0], **where)
    yield None, event("response.output_item.done", output_index=at, item=message)
    yield None, event("response.completed", response=done)


def main() -> None:
    """Serve until killed, printing the address (the benchmark runs the fake on its own)."""
    with FakeUpstream(precise=False) as fake:
        print(f"FAKE_UPSTREAM={fake.url}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
