"""Provides `sniff watch`: follow growing logs and show what happens as it happens."""

from __future__ import annotations

import sys
import time
from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.errors import UserError


@one_line_errors
@o.shared(omit=("dask", "no_index", "no_progress", "verbose"))
def watch(
    poll: Annotated[
        bool, typer.Option("--poll", help="Poll for changes instead of file-system events.")
    ] = False,
    interval: Annotated[
        float,
        typer.Option("--interval", help="Seconds between polls (and view refreshes).", metavar="S"),
    ] = 1.0,
    notify: Annotated[
        bool,
        typer.Option("--notify", help="Desktop notification on a cache break above --min-usd."),
    ] = False,
    min_usd: Annotated[
        float,
        typer.Option("--min-usd", help="The smallest break cost that notifies.", metavar="USD"),
    ] = 0.10,
    idle: Annotated[
        float,
        typer.Option(
            "--idle",
            metavar="MINUTES",
            help="A session with no new request for this long is reported ended (the logs mark "
            "no end): 30 minutes outlasts a working session's pauses (a long test run, reading "
            "a diff, the 5-minute cache TTL).",
        ),
    ] = 30.0,
    seconds: Annotated[float | None, typer.Option("--for", hidden=True)] = None,
    most: Annotated[int | None, typer.Option("--events", hidden=True)] = None,
    **options: Any,
) -> None:
    """Follow growing logs: each response, cache break, compaction, failed tool call and
    session started, ended (idle for --idle minutes) or resumed as it happens, with today's
    cost, the active block and the live sessions."""
    if interval <= 0:
        raise UserError(f"--interval must be above 0, not {interval}")
    if idle <= 0:
        raise UserError(f"--idle must be above 0 minutes, not {idle:g}")
    if min_usd < 0:
        raise UserError(f"--min-usd must be 0 or more, not {min_usd}")
    from sniff.cli.watch_loop import Watch, notifier
    from sniff.ingest.index.changes import ticks

    alert = notifier() if notify else None
    workspace = o.workspace(options)
    until = None if seconds is None else time.monotonic() + seconds
    run = Watch(workspace, alert=alert, min_usd=min_usd, most=most, idle_minutes=idle)
    beats = ticks(run.roots, poll=poll, interval=interval, until=until)
    next(beats)  # watching from now on: what is written while the logs are read is not missed
    run.start()
    sys.stderr.write(f"sniff: watching {', '.join(map(str, run.roots))} (Ctrl-C to stop)\n")
    sys.stderr.flush()
    if options["json"]:
        run.follow_json(sys.stdout, beats)
    else:
        run.follow_live(beats)
