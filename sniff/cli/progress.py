"""Provides `shown`: a progress bar on stderr while a command reads and analyses logs, for a
person watching a terminal: files read, megabytes, requests, then the analysis.

Why only then: progress is for a person waiting, so never with --json or --no-progress, when
stderr is no terminal, or when stdout goes into a pipe (`sniff scan | less`, a status line);
and only for work that lasts: the bar appears after `DELAY_SECONDS`, so a quick run (an
index that knows every file) shows nothing. Reading is counted by `sniff.ingest.progress`;
the bar is drawn here, by rich, from a thread that reads those counters.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from sniff.ingest.progress import Reading

DELAY_SECONDS = 1.0
"""How long work runs before the bar appears."""
REFRESH_SECONDS = 0.125


def wanted(*, json: bool = False, no_progress: bool = False) -> bool:
    """Whether a command's work should show progress (see the module docstring)."""
    return not json and not no_progress and _terminal(sys.stderr) and not _piped(sys.stdout)


@contextmanager
def shown(show: bool, console: Console | None = None, delay: float | None = None) -> Iterator[None]:
    """Show the progress of the work inside the block when `show` (see `wanted`).

    `console`: where to draw (default: the terminal behind stderr, through a stream of its
    own, so that worker processes forked meanwhile never inherit a lock of `sys.stderr`);
    `delay`: how long to wait before drawing (default: `DELAY_SECONDS`).
    """
    if not show:
        yield
        return
    from sniff.ingest import progress

    done = threading.Event()
    with progress.watched() as reading:
        drawer = threading.Thread(
            target=_draw,
            args=(reading, done, console, DELAY_SECONDS if delay is None else delay),
            name="sniff-progress",
            daemon=True,
        )
        drawer.start()
        try:
            yield
        finally:
            done.set()
            drawer.join()


def _draw(
    reading: Callable[[], Reading], done: threading.Event, console: Console | None, delay: float
) -> None:
    if done.wait(delay):
        return
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with nullcontext(console) if console is not None else _terminal_console() as target:
        bar = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[counts]}"),
            TimeElapsedColumn(),
            console=target,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            auto_refresh=False,
        )
        task = bar.add_task("reading logs", total=None, counts="")
        with bar:
            while True:
                finished = done.wait(REFRESH_SECONDS)
                bar.update(task, **_fields(reading()))
                bar.refresh()
                if finished:
                    return


@contextmanager
def _terminal_console() -> Iterator[Console]:
    """A console on the terminal behind stderr, through a stream of its own (see `shown`)."""
    from rich.console import Console

    with os.fdopen(os.dup(sys.stderr.fileno()), "w") as stream:
        yield Console(file=stream)


def _fields(now: Reading) -> dict[str, Any]:
    """The bar's description, extent and counts for how far the reading is."""
    counts = f"{now.files:,} files · {now.bytes / 1e6:,.1f} MB · {now.requests:,} requests read"
    if now.files < now.planned_files:
        return {
            "description": "reading logs",
            "total": max(now.planned_bytes, 1),
            "completed": now.bytes,
            "counts": f"{now.files:,}/{now.planned_files:,} files · {now.bytes / 1e6:,.1f}/"
            f"{now.planned_bytes / 1e6:,.1f} MB · {now.requests:,} requests",
        }
    return {"description": "analysing", "total": None, "counts": counts if now.files else ""}


def _terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no stream, or a closed one
        return False


def _piped(stream: Any) -> bool:
    """Whether `stream` goes into a pipe or socket (or cannot tell: then it is taken to)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return True
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
