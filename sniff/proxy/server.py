"""Provides the proxy's HTTP side: `Proxy`, whose handler forwards each request to its upstream
and streams the answer back as it comes, and `serve`, which listens until Ctrl-C or SIGTERM.

Why transparent: the client must get what the upstream sent, status, headers (hop-by-hop ones
aside) and body byte for byte, each chunk written the moment it arrives and drained before the
next is read (the client's pace is the upstream's), still encoded as it came; a request goes
as it came, unless `--diagnose` says otherwise. The upstream's TLS is verified, redirects
are passed back, nothing is retried and no cookie is kept. An upstream that cannot be reached
is a 502 with a short JSON error; one that breaks mid-stream cuts the client's connection, so
the client sees a broken stream, not a short complete one. A client that leaves cancels the
handler (aiohttp's handler cancellation), which closes the upstream connection at once.

Why every recording step is guarded (`Proxy._tap`): the proxy must never be why a call
fails; a failure to record is counted by the writer and the call is passed on unrecorded.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import signal
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import orjson
from aiohttp import web
from multidict import CIMultiDict
from yarl import URL

from sniff.errors import UserError
from sniff.proxy.capture import Capture
from sniff.proxy.diagnose import Diagnosis
from sniff.proxy.files import Writer
from sniff.proxy.record import BROKEN, CANCELLED, Call
from sniff.proxy.routes import Route, request_headers, response_headers, route, upstream_url

REQUEST_LIMIT = 1024 * 1024 * 1024
"""The largest request body accepted (aiohttp's default, 1 MiB, is less than a long
conversation with images)."""
CONNECT_SECONDS = 30.0
"""How long connecting to the upstream may take; an answer may take as long as it takes."""
SHUTDOWN_SECONDS = 1.0
"""How long calls under way get after Ctrl-C before they are cut (and recorded cancelled)."""
SKIPPED = ("User-Agent", "Accept", "Accept-Encoding", "Content-Type")
"""Headers aiohttp's client would add of its own: only the client's own are sent."""


@dataclass(frozen=True)
class Settings:
    """What `sniff proxy` was asked for."""

    host: str
    port: int
    folder: Path
    upstreams: Mapping[str, str]
    diagnose: bool = False


class Proxy:
    """Forwards calls and hands the recorded ones to the writer."""

    def __init__(self, settings: Settings, writer: Writer, session: aiohttp.ClientSession):
        self.upstreams = settings.upstreams
        self.writer = writer
        self.session = session
        self.diagnosis = Diagnosis() if settings.diagnose else None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Forward one request and stream its answer back; record it if its path is an API's."""
        started = time.time()
        path = request.rel_url.path
        chosen = route(path, request.headers, self.upstreams)
        body = await request.read()
        headers = request_headers(request.headers.items())
        call = self._tap(self._new_call, request, chosen, started) if chosen.recorded else None
        key = None
        if call is not None and self.diagnosis is not None:
            changed = self._tap(self.diagnosis.apply, call, body, headers)
            if changed is not None:
                body, headers, key = changed
        if call is not None and self._tap(_feed_all, call.request, body) is None:
            call = None
        url = URL(upstream_url(chosen, request.raw_path), encoded=True)
        try:
            return await self._forward(request, call, url, body, headers)
        finally:  # a cancelled call (the client left) is recorded too
            if call is not None:
                self._finish(call, key)

    def _new_call(self, request: web.Request, chosen: Route, started: float) -> Call:
        encoding = request.headers.get("Content-Encoding")
        return Call(
            route=chosen,
            path=request.rel_url.path,
            request=Capture(encoding),
            started_at=started,
            client=request.headers.get("User-Agent"),
            session_header=request.headers.get("session_id")
            or request.headers.get("conversation_id"),
            diagnose=self.diagnosis is not None,
        )

    async def _forward(
        self,
        request: web.Request,
        call: Call | None,
        url: URL,
        body: bytes,
        headers: list[tuple[str, str]],
    ) -> web.StreamResponse:
        """Send the request upstream and its answer back; mark `call` with how it went."""
        try:
            upstream = await self.session.request(
                request.method,
                url,
                data=body or None,
                headers=CIMultiDict(headers),
                allow_redirects=False,
            )
        except asyncio.CancelledError:
            self._ended(call, CANCELLED, "the client left before the upstream answered")
            raise
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError) as error:
            reason = f"cannot reach {url.origin()}: {_reason(error)}"
            self._ended(call, BROKEN, reason, status=502)
            message = {"type": "proxy_error", "message": f"sniff proxy: {reason}"}
            return web.json_response({"type": "error", "error": message}, status=502)
        try:
            return await self._relay(request, call, upstream)
        finally:
            upstream.close()  # a no-op once read to the end; else the upstream is cut at once

    async def _relay(
        self, request: web.Request, call: Call | None, upstream: aiohttp.ClientResponse
    ) -> web.StreamResponse:
        """Pass the upstream's answer to the client, chunk by chunk, as it arrives."""
        if call is not None:
            self._tap(_answered, call, upstream)
        response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
        for name, value in response_headers(upstream.headers.items()):
            response.headers.add(name, value)
        try:
            await response.prepare(request)
            while chunk := await _read(upstream):
                at = time.time()
                await response.write(chunk)  # drained: a slow client slows the upstream
                if call is not None and self._tap(_take, call, chunk, at) is None:
                    call = None
            self._ended(call, None, None)
            await response.write_eof()
        except asyncio.CancelledError:
            self._ended(call, CANCELLED, "the client left")
            raise
        except _UpstreamBroke as broke:
            self._ended(call, BROKEN, f"the upstream broke off: {broke}")
            if request.transport is not None:  # the client must see a broken stream
                request.transport.close()
        except ConnectionError:
            self._ended(call, CANCELLED, "the client left")
        return response

    def _ended(
        self, call: Call | None, outcome: str | None, error: str | None, status: int | None = None
    ) -> None:
        if call is None or call.ended_at is not None:
            return
        call.ended_at = time.time()
        if outcome == CANCELLED and call.streamed and call.timing.done_at is not None:
            # the client closed once it had the last event, before the upstream's end
            call.ended_at, outcome = call.timing.done_at, None
        if outcome is not None:
            call.outcome, call.error = outcome, error
        if status is not None:
            call.status = status
        self._tap(_finish_stream, call)

    def _finish(self, call: Call, key: str | None) -> None:
        """Hand the call to the writer; under `--diagnose`, remember its response id."""
        if self.diagnosis is not None and key is not None:
            self._tap(_remember, self.diagnosis, key, call)
        self.writer.submit(call)

    def _tap(self, step: Callable[..., Any], *args: Any) -> Any:
        """Run a recording step; None if it failed (counted, never raised)."""
        try:
            done = step(*args)
        except Exception as error:
            self.writer.failed(error)
            return None
        return True if done is None else done


class _UpstreamBroke(Exception):
    """The upstream's answer broke off before its end."""


async def _read(upstream: aiohttp.ClientResponse) -> bytes:
    """The next chunk of the upstream's body as it came (b"" at its end)."""
    try:
        return await upstream.content.readany()
    except (aiohttp.ClientError, OSError, TimeoutError) as error:
        raise _UpstreamBroke(_reason(error)) from error


def _reason(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text.splitlines()[0][:200]


def _feed_all(capture: Capture, body: bytes) -> None:
    for _ in capture.feed(body):
        pass


def _answered(call: Call, upstream: aiohttp.ClientResponse) -> None:
    call.first_byte_at = time.time()
    call.status = upstream.status
    call.response = Capture(upstream.headers.get("Content-Encoding"))
    call.streamed = upstream.content_type == "text/event-stream"


def _take(call: Call, chunk: bytes, at: float) -> None:
    if call.response is None:
        return
    for piece in call.response.feed(chunk):
        if call.streamed:
            call.timing.feed(piece, at)


def _finish_stream(call: Call) -> None:
    if call.streamed and call.ended_at is not None:
        call.timing.finish(call.ended_at)


def _remember(diagnosis: Diagnosis, key: str, call: Call) -> None:
    response_id = call.timing.response_id if call.streamed else None
    if response_id is None and call.response is not None and not call.streamed:
        response_id = _json_id(call.response)
    if response_id and call.status is not None and call.status < 400:
        diagnosis.remember(key, response_id)


def _json_id(capture: Capture) -> str | None:
    try:
        body = orjson.loads(capture.kept)
    except orjson.JSONDecodeError:
        return None
    found = body.get("id") if isinstance(body, dict) else None
    return found if isinstance(found, str) else None


async def _run(settings: Settings, ready: Callable[[str], None]) -> None:
    """Listen, call `ready` with the URL clients use, and serve until a stop signal."""
    writer = Writer(settings.folder)
    writer.start()
    session = aiohttp.ClientSession(
        auto_decompress=False,  # the client gets the body as the upstream encoded it
        cookie_jar=aiohttp.DummyCookieJar(),  # one client's cookies are no other's
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_SECONDS),
        connector=aiohttp.TCPConnector(limit=0),
        skip_auto_headers=SKIPPED,
    )
    proxy = Proxy(settings, writer, session)
    app = web.Application(client_max_size=REQUEST_LIMIT)
    app.router.add_route("*", "/{tail:.*}", proxy.handle)
    runner = web.AppRunner(
        app,
        handler_cancellation=True,  # a client that leaves cancels its call at once
        auto_decompress=False,  # a compressed request body passes as it came
        access_log=None,
        shutdown_timeout=SHUTDOWN_SECONDS,
    )
    await runner.setup()
    try:
        site = web.TCPSite(runner, settings.host, settings.port)
        await _start(site, settings)
        ready(endpoint(runner.addresses, settings.host))
        await _until_stopped()
    finally:
        await runner.cleanup()
        await writer.close()
        await session.close()


async def _start(site: web.TCPSite, settings: Settings) -> None:
    """Start listening.

    Raises:
        UserError: the port is in use, or the address cannot be listened on.
    """
    try:
        await site.start()
    except OSError as error:
        where = f"{settings.host} port {settings.port}"
        if error.errno == errno.EADDRINUSE:
            raise UserError(
                f"port {settings.port} on {settings.host} is in use: stop what listens there, "
                "or pick another with --port (0 picks a free one)"
            ) from error
        raise UserError(f"cannot listen on {where}: {error.strerror or error}") from error


def endpoint(addresses: list[Any], host: str) -> str:
    """The base URL clients use: the bound port, on the loopback address if bound to all."""
    bound = addresses[0]
    port = int(bound[1])
    shown = str(bound[0])
    if shown in ("0.0.0.0", "::", ""):
        shown = "127.0.0.1"
    return f"http://{f'[{shown}]' if ':' in shown else shown}:{port}"


async def _until_stopped() -> None:
    """Wait for Ctrl-C or SIGTERM (on Windows, Ctrl-C arrives as KeyboardInterrupt)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stop.set)
    await stop.wait()


def serve(settings: Settings, ready: Callable[[str], None]) -> None:
    """Run the proxy until Ctrl-C or SIGTERM; every recorded line is whole when it returns.

    Raises:
        UserError: it cannot listen where asked.
    """
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(settings, ready))
