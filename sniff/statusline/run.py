"""Provides `main`: `sniff statusline [--parts LIST] [--plain] [--color]`, never failing.

Options are read with argparse (typer is not imported here). Whatever goes wrong with the input
or the logs, it prints a short line and exits 0: a status bar must never show a traceback. Only
a bad option is a user error (one line on stderr, exit 2).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sniff.errors import SniffError
from sniff.statusline.line import PARTS, compose
from sniff.statusline.session import SessionNumbers, session_numbers
from sniff.statusline.stdin import StatusInput, read_input

FALLBACK = "sniff: no session"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"sniff: error: statusline: {message}\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sniff statusline",
        description="One line for Claude Code's status bar, from the status-line JSON on stdin.",
    )
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"comma-separated, of: {', '.join(PARTS)}"
    )
    parser.add_argument("--plain", action="store_true", help="no colours")
    parser.add_argument("--color", action="store_true", help="colours even when not a terminal")
    parser.add_argument("--timeout", type=float, default=0.5, help="seconds to wait for stdin")
    return parser


def wants_colour(plain: bool, forced: bool) -> bool:
    """Colours only on a terminal that takes them (or when asked), never with `--plain`."""
    if plain or os.environ.get("NO_COLOR"):
        return False
    if forced or os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty() and os.environ.get("TERM", "") not in ("", "dumb")


def _numbers(given: StatusInput) -> SessionNumbers | None:
    """The session's numbers; None when its transcript is missing or cannot be read."""
    if not given.transcript_path:
        return None
    path = Path(given.transcript_path).expanduser()
    if not path.is_file():
        return None
    try:
        return session_numbers(path, given.session_id)
    except (SniffError, OSError, ValueError):
        return None
    except Exception:  # noqa: BLE001 - the status bar must never show a traceback
        return None


def main(argv: list[str]) -> None:
    """Print the status line for the JSON on stdin; exit 0 (2 for a bad option)."""
    options = _parser().parse_args(argv)
    parts = [part.strip() for part in options.parts.split(",") if part.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown or not parts:
        _parser().error(
            f"--parts: unknown part {', '.join(unknown) or '(none)'}; known: {', '.join(PARTS)}"
        )
    given = read_input(timeout=options.timeout)
    if given is None:
        sys.stdout.write(f"{FALLBACK}\n")
        raise SystemExit(0)
    numbers = _numbers(given)
    line = compose(parts, given, numbers, colour=wants_colour(options.plain, options.color))
    sys.stdout.write(f"{line or FALLBACK}\n")
    sys.stdout.flush()
    raise SystemExit(0)
