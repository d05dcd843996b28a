"""Provides `cluster`: a client of the Dask cluster `--dask` names, or of a new local one.

What can go wrong here is the user's to fix, so it is one line: a malformed address, nothing
answering in time, a server that is not a Dask scheduler. A local cluster needs no network
beyond the loopback interface, and not even that (see `_local_cluster`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from sniff.errors import UserError

if TYPE_CHECKING:
    from distributed import Client

CONNECT_SECONDS = 5
"""How long a scheduler has to answer: a live one answers in milliseconds, even across a
network; a wrong address should fail while the user still waits (Dask's own default is 30 s)."""


@contextmanager
def cluster(address: str) -> Iterator[Client]:
    """A client of the cluster at `address`, or of a new local one (`local` or `local:N`).

    Raises:
        UserError: Dask is not installed, `address` is not a scheduler's address, nothing at
            it answers as a Dask scheduler within `CONNECT_SECONDS`, or a local cluster
            cannot start.
    """
    try:
        from distributed import Client
    except ImportError as error:
        raise UserError("--dask needs Dask: pip install 'sniff[dask]'") from error
    if address == "local" or address.startswith("local:"):
        with _local_cluster(_local_workers(address)) as local, Client(local) as client:
            yield client
        return
    _check_scheduler(address)
    try:
        client = Client(address, timeout=CONNECT_SECONDS)
    except OSError as error:
        raise UserError(f"cannot reach the Dask scheduler at {address}: {error}") from error
    with client:
        yield client


def _local_cluster(workers: int) -> Any:
    """A cluster of `workers` on this machine that needs no network.

    It listens on the loopback address only and starts no dashboard (sniff never shows it), so
    it works offline. Where even the loopback interface carries no TCP (a sandbox with its
    network cut), the workers are threads of this process that talk in memory: the same
    answers, with the cores of one process.
    """
    import logging
    import sys
    import warnings

    from distributed import LocalCluster

    loopback = _loopback_carries_tcp()
    if not loopback:
        sys.stderr.write(
            "sniff: note: the loopback interface carries no TCP; the local cluster's workers"
            " run as threads of this process\n"
        )
    try:
        with warnings.catch_warnings():
            # with no route out, Dask warns that it cannot find this machine's address: the
            # local cluster never needs it
            warnings.simplefilter("ignore", RuntimeWarning)
            return LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=loopback,
                host="127.0.0.1" if loopback else None,
                dashboard_address=None,
                # a worker can lose its scheduler while the cluster stops (Dask logs that as
                # an error, with a traceback); a real fault still reaches sniff as a failed task
                silence_logs=logging.CRITICAL,
            )
    except (OSError, RuntimeError) as error:
        raise UserError(f"cannot start a local Dask cluster: {error}") from error


def _loopback_carries_tcp() -> bool:
    """Whether a TCP connection to 127.0.0.1 gets through (it fails at once where it cannot)."""
    import socket

    try:
        with (
            socket.create_server(("127.0.0.1", 0)) as server,
            socket.create_connection(server.getsockname()[:2], timeout=1),
        ):
            return True
    except OSError:
        return False


def _check_scheduler(address: str) -> None:
    """Ask what answers at `address` before a client connects to it.

    Why: Dask's handshake has no deadline of its own, and a server that is not Dask's either
    never answers or sends bytes Dask reads as a frame's length (asking for exabytes).

    Raises:
        UserError: `address` is malformed, nothing answers within `CONNECT_SECONDS`, or what
            answers is not a Dask scheduler.
    """
    import asyncio

    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.core import CommClosedError, connect
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address)
        get_backend(scheme)
        host_port = None if scheme == "inproc" else parse_host_port(location)
    except (ValueError, Warning) as error:
        raise UserError(f"--dask {address}: {error}; expected HOST:PORT or local:N") from error
    if scheme in ("tcp", "tls") and host_port is not None:
        _probe(address, *host_port)

    async def identity() -> Any:
        comm = await connect(address, timeout=CONNECT_SECONDS - 1)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(identity(), CONNECT_SECONDS))
    except TimeoutError as error:  # connected, but no answer (Dask's own timeout is an OSError)
        raise UserError(
            f"no Dask scheduler answered at {address} within {CONNECT_SECONDS} s"
        ) from error
    except CommClosedError as error:
        raise UserError(f"{address} hung up without answering as a Dask scheduler") from error
    except OSError as error:
        raise UserError(f"cannot reach the Dask scheduler at {address}: {_why(error)}") from error
    except Exception as error:  # a frame that is not Dask's: any decoding error, or MemoryError
        raise UserError(f"{address} answered, but not as a Dask scheduler") from error
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        what = f"a Dask {kind}" if isinstance(kind, str) else "something else"
        raise UserError(f"{address} is not a Dask scheduler: it answered as {what}")


def _probe(address: str, host: str, port: int) -> None:
    """Open and close a plain TCP connection to `host:port`.

    Why: Dask retries a refused connection until its timeout and then reports only that it
    timed out; the system's own reason ("Connection refused") comes at once from one try.
    """
    import socket

    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except TimeoutError as error:
        raise UserError(
            f"cannot reach the Dask scheduler at {address}: no answer within {CONNECT_SECONDS} s"
        ) from error
    except OSError as error:
        raise UserError(f"cannot reach the Dask scheduler at {address}: {_why(error)}") from error


def _why(error: BaseException) -> str:
    """The system's reason at the root of `error` ("Connection refused"), or its message."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror
        cause = cause.__cause__ or cause.__context__
    return str(error)


def _local_workers(address: str) -> int:
    _, _, count = address.partition(":")
    if not count:
        return max(1, os.cpu_count() or 1)
    if not count.isdigit() or int(count) < 1:
        raise UserError(f"--dask local:N needs a number of workers, not {count!r}")
    return int(count)
