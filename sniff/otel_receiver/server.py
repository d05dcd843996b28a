"""Provides the receiver's HTTP side: the handler that answers OTLP/HTTP as its specification
says, the threaded server it runs in, and the loop that serves until Ctrl-C or SIGTERM.

Answers: 200 with an empty `Export<Signal>ServiceResponse`; 404 for another path, 405 for
another method, 415 for another content type or encoding, 411 for a body of no declared length,
413 for a body over the limit (as sent, or once inflated), 400 for a body that cannot be
decoded, 503 when it cannot be written (the sender retries). A refusal writes nothing; what
goes to stderr names the request's path and the reason, never a byte of the body (it may hold
prompts and credentials).
"""

from __future__ import annotations

import contextlib
import errno
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from sniff.errors import UserError
from sniff.otel_receiver.bodies import (
    MEDIA_TYPES,
    PROTOBUF,
    SIGNALS,
    Rejected,
    accepted,
    inflate,
    media_type,
    status,
    to_line,
)
from sniff.otel_receiver.files import DailyFiles
from sniff.shown import one_line

LINGER_SECONDS = 2.0
"""How long a refused body still sent is read and dropped after the answer, so closing the
connection does not reset it before the sender reads the answer."""


class Receiver(ThreadingHTTPServer):
    """The server: its daily files, and the limit on a body's size (sent and inflated)."""

    daemon_threads = True  # an exporter's idle keep-alive connection must not block the exit
    request_queue_size = 128  # socketserver's 5 resets a burst of agents' first connections

    def __init__(self, host: str, port: int, files: DailyFiles, max_bytes: int) -> None:
        self.files = files
        self.max_bytes = max_bytes
        if ":" in host:  # an IPv6 address
            self.address_family = socket.AF_INET6
        super().__init__((host, port), Handler)

    def endpoint(self) -> str:
        """The URL senders use: the bound port, on the loopback address if bound to all."""
        host, port = str(self.server_address[0]), int(self.server_address[1])
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line on stderr, not socketserver's traceback: nothing may show one."""
        error = sys.exc_info()[1]
        sys.stderr.write(f"sniff otel: unexpected {type(error).__name__}: {error}\n")


def bind(host: str, port: int, files: DailyFiles, max_bytes: int) -> Receiver:
    """A receiver listening on `host`:`port` (0: any free port).

    Raises:
        UserError: the port is in use, or the address cannot be listened on.
    """
    try:
        return Receiver(host, port, files, max_bytes)
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise UserError(
                f"port {port} on {host} is in use: stop what listens there, or pick another "
                "with --port (0 picks a free one)"
            ) from error
        reason = error.strerror or str(error)
        raise UserError(f"cannot listen on {host} port {port}: {reason}") from error


class _Stopped(Exception):
    """SIGTERM arrived."""


def serve(receiver: Receiver, ready: Callable[[], None] = lambda: None) -> None:
    """Call `ready` (say where it listens), then answer requests until Ctrl-C or SIGTERM;
    then close, leaving every line whole.

    Why `ready` is called here: a user may stop it the moment it says it is ready, and the
    signals must be handled by then.
    """

    def stop(signum: int, frame: object) -> None:
        raise _Stopped

    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, stop) if in_main else None
    try:
        ready()
        receiver.serve_forever(poll_interval=0.5)
    except (KeyboardInterrupt, _Stopped):
        pass
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        receiver.server_close()
        receiver.files.close()


class Handler(BaseHTTPRequestHandler):
    """One connection's requests (HTTP/1.1: an exporter keeps its connection open)."""

    protocol_version = "HTTP/1.1"
    server_version = "sniff-otel"
    timeout = 60  # seconds a connection may stay silent: a stalled sender frees its thread
    server: Receiver

    def do_POST(self) -> None:
        """Answer one request: its line kept, or the reason it is refused."""
        self._unread = True  # the body is still on the connection
        media = media_type(self.headers.get("Content-Type"))
        try:
            try:
                self._receive(media)
            except Rejected as refused:
                self._refuse(refused, media)
            else:
                self._reply(200, media, accepted(SIGNALS[self._path()], media))
        except (ConnectionError, TimeoutError):  # the sender left or stalled: nobody to answer
            self.close_connection = True

    # every method but POST is answered 405 on the OTLP paths (404 elsewhere); http.server
    # answers a method it finds no `do_` function for 501, as HTTP says for an unknown one
    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_POST

    def _path(self) -> str:
        return urlsplit(self.path).path

    def _receive(self, media: str) -> None:
        """Read, check and keep the request's body.

        Raises:
            Rejected: the request is refused; nothing was written.
        """
        kind = SIGNALS.get(self._path())
        if kind is None:
            raise Rejected(404, f"no such path: POST to {', '.join(SIGNALS)}")
        if self.command != "POST":
            raise Rejected(405, f"{self.command} is not accepted: POST")
        if media not in MEDIA_TYPES:
            raise Rejected(415, f"unsupported Content-Type: send {' or '.join(MEDIA_TYPES)}")
        raw = self._body()
        body = inflate(raw, self.headers.get("Content-Encoding"), self.server.max_bytes)
        line = to_line(kind, media, body)
        if line is None:
            return
        try:
            self.server.files.append(kind.name, line)
        except OSError as error:  # a full disk, say: the sender may retry later
            reason = f"cannot write what was received: {error.strerror or error}"
            raise Rejected(503, reason) from error

    def _body(self) -> bytes:
        """The body as sent: of its Content-Length, or chunked.

        Raises:
            Rejected: 411 no length, 413 over the limit, 400 a malformed or cut-short body.
        """
        limit = self.server.max_bytes
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raw = _read_chunked(self.rfile, limit)
        else:
            declared = self.headers.get("Content-Length")
            if declared is None:
                raise Rejected(411, "no Content-Length")
            if not declared.strip().isdigit():
                raise Rejected(400, "a malformed Content-Length")
            if int(declared) > limit:
                raise Rejected(413, f"the body is over the limit of {limit} bytes")
            raw = self.rfile.read(int(declared))
            if len(raw) < int(declared):
                raise Rejected(400, "the body is shorter than its Content-Length")
        self._unread = False
        return raw

    def _refuse(self, refused: Rejected, media: str) -> None:
        """Answer a refusal, and say so on stderr (the path and why, never the body)."""
        path = one_line(self._path()[:200])
        sys.stderr.write(f"sniff otel: {refused.status} {self.command} {path}: {refused.reason}\n")
        answer = status(media, refused.status, refused.reason)
        self._reply(refused.status, PROTOBUF if media == PROTOBUF else "application/json", answer)
        if self._unread:  # what is left of the body cannot be told from the next request
            self._linger()

    def _reply(self, code: int, media: str, payload: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", media)
        self.send_header("Content-Length", str(len(payload)))
        if code == 405:
            self.send_header("Allow", "POST")
        if self._unread:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _linger(self) -> None:
        """Drop what the sender still sends for a while, having said all: closing a socket with
        unread bytes resets the connection, and the sender could lose the answer with it."""
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(0.25)
            deadline = time.monotonic() + LINGER_SECONDS
            while time.monotonic() < deadline and self.connection.recv(65536):
                pass

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: an exporter posts every few seconds; refusals are said by `_refuse`."""


def _read_chunked(stream: Any, limit: int) -> bytes:
    """A chunked body (what Node's exporters send when they gzip) of at most `limit` bytes.

    Raises:
        Rejected: 413 past `limit`, 400 a malformed or cut-short body.
    """
    body = bytearray()
    while True:
        size_line = stream.readline(1024)
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError as error:
            raise Rejected(400, "a malformed chunked body") from error
        if size < 0:
            raise Rejected(400, "a malformed chunked body")
        if len(body) + size > limit:
            raise Rejected(413, f"the body is over the limit of {limit} bytes")
        if size == 0:
            while stream.readline(1024) not in (b"\r\n", b"\n", b""):  # the trailer
                pass
            return bytes(body)
        chunk = stream.read(size)
        if len(chunk) < size or stream.readline(1024) not in (b"\r\n", b"\n"):
            raise Rejected(400, "the chunked body is cut short")
        body += chunk
