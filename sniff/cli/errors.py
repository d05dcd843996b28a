"""Provides `one_line_errors`: a command's expected failures as one line and exit code 2.

`main` already does this for the console script; the decorator gives the same behaviour when
the app is run another way (typer's test runner, embedding), so no path shows a traceback for
a user error.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from sniff.errors import SniffError

P = ParamSpec("P")
R = TypeVar("R")


def one_line_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn a `SniffError` raised by `command` into `sniff: error: ...` and exit code 2."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except SniffError as error:
            sys.stderr.write(f"sniff: error: {error}\n")
            raise typer.Exit(2) from None

    return run
