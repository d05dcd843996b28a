"""Provides `one_line_errors`: a command's expected failures as one line and exit code 2.

Expected: a `SniffError`, and an `OSError` of a full disk or of a place it may not write to.

`main` already does this for the console script; the decorator gives the same behaviour when
the app is run another way (typer's test runner, embedding), so no path shows a traceback for
a user error.
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer

from sniff.errors import SniffError
from sniff.shown import one_line

FULL_OR_READ_ONLY = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})
"""Errors of the machine, not of sniff: a full disk or quota, a folder it may not write to. The
writers of a user's files say which file (`sniff.atomic_write`); these are the rest, such as
standard output redirected to a full disk."""
P = ParamSpec("P")
R = TypeVar("R")


def one_line_errors(command: Callable[P, R]) -> Callable[P, R]:
    """Turn a `SniffError` raised by `command` into `sniff: error: ...` and exit code 2."""

    @functools.wraps(command)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except SniffError as error:
            sys.stderr.write(one_line(f"sniff: error: {error}") + "\n")
            raise typer.Exit(2) from None
        except OSError as error:
            if error.errno not in FULL_OR_READ_ONLY:
                raise
            sys.stderr.write(one_line(f"sniff: error: {_described(error)}") + "\n")
            raise typer.Exit(2) from None

    return run


def _described(error: OSError) -> str:
    """The failure as one line, naming the file where the error does."""
    reason = error.strerror or os.strerror(error.errno or 0)
    if error.filename is not None:
        return f"{error.filename}: {reason}"
    if error.errno in (errno.ENOSPC, errno.EDQUOT):  # standard output, redirected to a file
        return f"cannot write the output: {reason}"
    return reason
