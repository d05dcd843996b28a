"""Provides opening an agent's SQLite database read-only, as the agent may be writing to it.

Why read-only through a URI: sniff must never change a user's data, and an agent (OpenCode,
Goose, Copilot CLI) may hold its database open in WAL mode while sniff reads it. A read-only
connection still sees the rows in the write-ahead log; where it cannot (a folder sniff may not
write the shared-memory file into), the database is opened as immutable, which reads the main
file only.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from urllib.parse import quote

BUSY_MS = 2000
"""How long a read waits for a writer's lock before giving up (it never waits longer)."""


def connect(path: str) -> sqlite3.Connection:
    """A read-only connection to the database at `path`.

    Raises:
        sqlite3.Error: it is no database, or cannot be opened.
    """
    uri = f"file:{quote(path)}"
    try:
        connection = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=BUSY_MS / 1000)
        connection.execute("select count(*) from sqlite_master").fetchone()
    except sqlite3.OperationalError:
        connection = sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True)
        connection.execute("select count(*) from sqlite_master").fetchone()
    return connection


def tables(path: str) -> frozenset[str]:
    """The names of the tables of the database at `path`.

    Raises:
        sqlite3.Error: it is no database, or cannot be opened.
    """
    with closing(connect(path)) as connection:
        rows = connection.execute("select name from sqlite_master where type = 'table'")
        return frozenset(str(name) for (name,) in rows)
