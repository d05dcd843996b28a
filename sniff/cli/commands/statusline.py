"""Provides `sniff statusline` as `--help` lists it: the console script sends the command to the
light `sniff.statusline.run` before typer is imported, and this forwards there whatever reaches
the app all the same (the Python API's `build_app`, a test's CliRunner)."""

from __future__ import annotations

import typer

CONTEXT_SETTINGS = {"allow_extra_args": True, "ignore_unknown_options": True}
"""Its options and `--help` are read by `sniff.statusline.run`, not by typer."""


def statusline(context: typer.Context) -> None:
    """One line for Claude Code's status bar, from the status-line JSON on stdin.

    Options: --parts LIST, --plain, --color, --tz ZONE, --timeout SECONDS
    (`sniff statusline --help` says more).
    """
    from sniff.statusline.run import main

    main(list(context.args))
