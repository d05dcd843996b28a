"""Provides what an agent's format tells the detection: its layout, how it is recognised, and
its parser (`log_formats.agent_formats()` lists them)."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, NamedTuple

from sniff.ingest.record import FileResult, Prompts

Parser = Callable[[str, bytes, str, Prompts], FileResult]
"""(path, bytes, project hint, how much of the prompts to read) → what the file yields."""


class Layout(Enum):
    """How an agent's log is laid out, which says what its format's `claims` is shown."""

    LINES = "lines"
    """JSON lines: `claims` sees each of the first records (dicts)."""
    DOCUMENT = "document"
    """One JSON document: `claims` sees the whole decoded value."""
    DATABASE = "database"
    """A SQLite database: `claims` sees the set of its table names; its parser opens the
    path read-only itself (the bytes it is handed are empty)."""


class AgentFormat(NamedTuple):
    """A format of another agent's log: how to recognise it, and its parser."""

    name: str
    layout: Layout
    claims: Callable[[Any], bool]
    parse: Parser
    file_names: tuple[str, ...] = ()
    """Patterns (`fnmatch`) of the names the agent gives its database: one that cannot be
    opened (cut short, malformed) is still handed to this parser, which says why, rather than
    passed over as a database of no known format."""
