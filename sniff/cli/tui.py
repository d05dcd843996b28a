"""Provides `sniff tui`: the Textual browser over the same data and analyses as the CLI."""

from __future__ import annotations

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors


@one_line_errors
def tui(
    paths: o.Paths = None,
    tz: o.Zone = None,
    pricing: o.Pricing = None,
    log_format: o.LogFormat = None,
) -> None:
    """Browse projects, sessions and requests, with the cache timeline and what broke it.

    Enter opens a row, Escape goes back, / filters, s sorts, f lists findings, ? shows help.
    """
    workspace = o.workspace(locals())
    from sniff.tui import make_app

    make_app(workspace).run()
