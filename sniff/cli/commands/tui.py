"""Provides `sniff tui`: the Textual browser over the same data and analyses as the CLI."""

from __future__ import annotations

from typing import Annotated

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.errors import UserError


@one_line_errors
def tui(
    paths: o.Paths = None,
    tz: o.Zone = None,
    pricing: o.Pricing = None,
    log_format: o.LogFormat = None,
    live: Annotated[
        bool, typer.Option("--live", help="Follow the files as they grow (w toggles it).")
    ] = False,
    interval: Annotated[
        float,
        typer.Option(
            "--interval", help="Seconds between checks for changes when live.", metavar="S"
        ),
    ] = 2.0,
) -> None:
    """Browse projects, sessions and requests, with the cache timeline and what broke it.

    Enter opens a row, Escape goes back, / filters, s sorts, f lists findings, w follows the
    files live, ? shows help.
    """
    if interval <= 0:
        raise UserError(f"--interval must be above 0, not {interval}")
    workspace = o.workspace(locals())
    from sniff.tui import make_app

    make_app(workspace, live=live, interval=interval).run()
