"""Provides `main`: `sniff statusline [--parts LIST] [--plain] [--color]`, never failing.

Options are read with argparse (typer is not imported here). Whatever goes wrong with the input
or the logs, it prints a short line and exits 0: a status bar must never show a traceback, and
shows whatever the command prints. Only a bad option is a user error (one line on stderr,
exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

from sniff.statusline.archive import Kept, load, refresh, start_refresh, wants_refresh
from sniff.statusline.line import compose
from sniff.statusline.memo import remembered
from sniff.statusline.readings import keep_readings
from sniff.statusline.session import SessionNumbers, session_numbers
from sniff.statusline.stdin import StatusInput, read_input
from sniff.statusline.usage import HELP, PARTS, SUMMARY, TIMEOUT

FALLBACK = "sniff: no session"
FAILED = "sniff: status unavailable"
"""The line when something unforeseen failed (its traceback is never shown)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"sniff: error: statusline: {message}\n")
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sniff statusline", description=SUMMARY)
    parser.add_argument("--parts", default=",".join(PARTS), help=HELP["parts"])
    parser.add_argument("--plain", action="store_true", help=HELP["plain"])
    parser.add_argument("--color", action="store_true", help=HELP["color"])
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help=HELP["timeout"])
    parser.add_argument("--tz", default="", help=HELP["tz"])
    parser.add_argument("--refresh", action="store_true", help=argparse.SUPPRESS)
    return parser


def _known_zone(name: str) -> None:
    """A `--tz` that names no zone is a user error (here: the background run cannot say so)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a name too long for a path
        _parser().error(f"--tz: unknown time zone {name!r} (try UTC or Europe/Paris)")


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
    try:  # even asking about a path fails when it is too long or holds a NUL
        path = Path(given.transcript_path).expanduser()
        if not path.is_file():
            return None
        return remembered(path, given.session_id, session_numbers)
    except Exception:  # noqa: BLE001 - the line still shows what is known without them
        return None


def _kept(parts: list[str], zone: str) -> Kept | None:
    """The archive's kept numbers, when a part shows them; an old or missing copy is worked
    out again in the background (never here: that reads every transcript)."""
    if not {"today", "block"} & set(parts):
        return None
    now = time.time()
    kept = load(now)
    if wants_refresh(kept, now, zone):
        start_refresh(zone)
    return kept


def main(argv: list[str]) -> None:
    """Print the status line for the JSON on stdin; exit 0 (2 for a bad option)."""
    options = _parser().parse_args(argv)
    parts = [part.strip() for part in options.parts.split(",") if part.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown or not parts:
        _parser().error(
            f"--parts: unknown part {', '.join(unknown) or '(none)'}; known: {', '.join(PARTS)}"
        )
    try:
        line = _line(parts, options)
    except Exception:  # noqa: BLE001 - the status bar must never show a traceback
        line = FAILED
    _say(line)
    raise SystemExit(0)


def _line(parts: list[str], options: argparse.Namespace) -> str:
    """The line to print (`FALLBACK` when there is nothing to show)."""
    if options.refresh:  # the background run: work the archive's numbers out and keep them
        refresh(zone=options.tz)
        raise SystemExit(0)
    if options.tz:
        _known_zone(options.tz)  # a bad zone exits with code 2: `except Exception` lets it by
    given = read_input(timeout=options.timeout)
    if given is None:
        return FALLBACK
    # kept whichever parts are shown (`blocks` reads the history); a history is a convenience,
    # so nothing going wrong with it costs the line
    with contextlib.suppress(Exception):
        keep_readings(given.limits, time.time())
    numbers = _numbers(given)
    kept = _kept(parts, options.tz)
    colour = wants_colour(options.plain, options.color)
    return compose(parts, given, numbers, kept, colour=colour) or FALLBACK


def _say(line: str) -> None:
    """Print `line`, or `FAILED` where it cannot be encoded; nothing where standard output is
    closed or gone (no one is reading it)."""
    for text in (line, FAILED):
        try:
            sys.stdout.write(f"{text}\n")
            sys.stdout.flush()
            return
        except (OSError, ValueError, AttributeError):  # encoding, closed or None, broken pipe
            continue
