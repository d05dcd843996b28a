"""Provides `sniff statusline` as `--help` lists and describes it: the console script sends the
command to the light `sniff.statusline.run` before typer is imported (unless help is asked
for), and this forwards there whatever reaches the app all the same (the Python API's
`build_app`, a test's CliRunner). Both read their options' words from `sniff.statusline.usage`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from sniff.statusline.usage import HELP, PARTS, TIMEOUT


def statusline(
    parts: Annotated[
        str,  # the default is said in the help: the list is too long for rich's default column
        typer.Option("--parts", help=HELP["parts"], metavar="LIST", show_default=False),
    ] = ",".join(PARTS),
    plain: Annotated[bool, typer.Option("--plain", help=HELP["plain"])] = False,
    color: Annotated[bool, typer.Option("--color", help=HELP["color"])] = False,
    timeout: Annotated[
        float,
        typer.Option("--timeout", help=HELP["timeout"], metavar="SECONDS", show_default=False),
    ] = TIMEOUT,
    tz: Annotated[str, typer.Option("--tz", help=HELP["tz"], metavar="ZONE")] = "",
    refresh: Annotated[bool, typer.Option("--refresh", hidden=True)] = False,
) -> None:
    """One line for Claude Code's status bar, from the status-line JSON on stdin.

    Set `sniff statusline` as the status line command in Claude Code's settings. Whatever goes
    wrong with the input or the logs, it prints a short line and exits 0; only a bad option
    exits 2.
    """
    from sniff.statusline.run import main

    given = ["--parts", parts, "--timeout", repr(timeout), *(["--tz", tz] if tz else [])]
    flags = {"--plain": plain, "--color": color, "--refresh": refresh}
    main([*given, *(flag for flag, on in flags.items() if on)])
