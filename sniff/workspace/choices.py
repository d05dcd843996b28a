"""Provides what a Workspace's options may be, and how they are read: agents, log formats,
paths and time zones (the command line offers the same choices)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import tzinfo
from os import PathLike
from pathlib import Path

from sniff.errors import UserError

AGENTS = ("main", "subagent", "compaction", "other")
HARNESSES = (
    "claude-code", "codex", "gemini-cli", "qwen-code", "opencode", "kilo", "pi", "openclaw",
    "kimi", "cline", "roo-code", "kilo-code", "copilot", "amp", "droid", "goose", "api",
)  # fmt: skip
"""`--harness` names: `model.Harness` (a test holds the two equal; here without importing the
records, for `--help`)."""
FORMATS = (
    "claude-code", "claude-trace", "codex", "request-log", "otel", "otel-bodies",
    "gemini-cli", "qwen-code", "opencode", "pi", "kimi", "cline", "cline-tasks", "copilot",
    "amp", "droid", "goose",
)  # fmt: skip
"""The formats `--log-format` may force (`ingest.files.log_formats` reads them: a test holds the two
lists equal)."""
CHOICES = {"agent": AGENTS, "harness": HARNESSES, "log_format": FORMATS}
PathArgument = str | PathLike[str]


def check_choices(**given: str | None) -> None:
    """Each option given (by its parameter's name) is one of its choices.

    Raises:
        UserError: one is not, named as on the command line.
    """
    for name, value in given.items():
        allowed = CHOICES[name]
        if value is not None and value not in allowed:
            option = "--" + name.replace("_", "-")
            raise UserError(f"{option} must be one of {', '.join(allowed)}, not {value!r}")


def given_paths(given: PathArgument | Sequence[PathArgument] | None) -> list[Path] | None:
    """The paths a caller gave (one, several or None), `~` expanded."""
    if given is None:
        return None
    if isinstance(given, str | PathLike):
        given = [given]
    return [Path(path).expanduser() for path in given]


def resolve_zone(name: str | None) -> tzinfo:
    """The zone named by `tz`, or the machine's local zone.

    Raises:
        UserError: no such zone.
    """
    if name is None:
        import tzlocal

        try:
            return tzlocal.get_localzone()
        except Exception:  # a broken local zone setup must not stop a report
            from datetime import UTC

            return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise UserError(f"unknown time zone {name!r} (try UTC or Europe/Paris)") from error
