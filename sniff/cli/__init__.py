"""Provides the `sniff` console script: `sniff statusline` light, every other command by typer.

The commands are in `commands/`, one module each; what they share is here: the app
(`root`, `group`), the options every command takes (`options`), one-line errors (`errors`),
the progress bar (`progress`), and the loops of `lint --fix` and `watch`. May use everything
below it; only the front ends import typer (an import-linter contract).

Why a dispatcher: a status line runs every few seconds, and importing typer and rich costs a
good part of its budget, so `sniff statusline` is sent to its own light package before they are
imported. The typer app, its builder and `fail` live in `sniff.cli.root` and are reached here
by their old names (`sniff.cli.app`, `sniff.cli.build_app`, ...).
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any


def main(argv: list[str] | None = None) -> None:
    """The console script: `statusline` without typer, anything else through the app."""
    arguments = sys.argv[1:] if argv is None else argv
    helped = {"-h", "--help"} & set(arguments[1:])  # help is typer's, laid out as every command's
    if arguments[:1] == ["statusline"] and not helped:
        from sniff.statusline.run import main as statusline

        statusline(arguments[1:])
    import_module("sniff.cli.root").main(arguments)


def __getattr__(name: str) -> Any:
    """The app's names (`app`, `build_app`, `COMMANDS`, `fail`, ...), from `sniff.cli.root`."""
    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return getattr(import_module("sniff.cli.root"), name)
    except AttributeError:
        raise AttributeError(name) from None
