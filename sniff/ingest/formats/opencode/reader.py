"""Provides the parsers of OpenCode's and Kilo CLI's logs: the SQLite database and the legacy
JSON tree (`opencode_calls` says what counts as a request).

- `opencode.db` (`opencode-*.db`) in `${OPENCODE_DATA_DIR:-~/.local/share/opencode}`, Kilo
  CLI's `kilo.db` in `${KILO_DATA_DIR:-~/.local/share/kilo}`: tables `session`, `message` and
  `part`, each row's JSON in `data`. The database is opened read-only and read in one
  transaction, so an agent writing to it (WAL) is never disturbed and the rows read agree with
  one another; its `event` table repeats every row and is not read.
- Before SQLite: `storage/message/<session>/<message>.json`, one document per message, its parts
  in `storage/part/<message>/*.json` and its session in `storage/session/<project>/<session>.json`,
  both read beside the message.

Which agent wrote a log is told by where it lies, as Kilo CLI writes OpenCode's schema: a
database named `kilo*.db` or kept in a `kilo` folder, a `storage` tree in a `kilo` folder, is
Kilo's; any other, OpenCode's.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import PurePath
from typing import Any

import orjson

from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files import sqlite_read
from sniff.ingest.formats.opencode.calls import SOURCE, Message, Part, Session, Store, collect, ms
from sniff.ingest.formats.opencode.wire import decode_message, decode_part
from sniff.ingest.record import EMBEDDED, TOP_LEVEL, FileResult, Prompts
from sniff.model import Harness, LineIssue

SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = frozenset({"session", "message", "part"})
KILO = "kilo"
DATABASE_NAMES = ("opencode.db", "opencode-*.db", "kilo.db", "kilo-*.db")
MOST_PART_BYTES = 64 << 20
"""A legacy part file larger than this is not read (a tool's output): it holds no usage."""


def claims_database(tables: frozenset[str]) -> bool:
    """OpenCode's schema: its session, message and part tables."""
    return tables >= TABLES


def claims_message(value: Any) -> bool:
    """A legacy message document: OpenCode's `msg_` and `sessionID`, a role and its times."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("id"), str)
        and value["id"].startswith("msg_")
        and isinstance(value.get("sessionID"), str)
        and value.get("role") in ("user", "assistant")
        and isinstance(value.get("time"), dict)
    )


def harness_of(path: str) -> Harness:
    """Kilo CLI for a log kept under Kilo's name (see the module's docstring), else OpenCode."""
    where = PurePath(path)
    if where.suffix == ".db":
        kilo = where.name.startswith(KILO) or where.parent.name == KILO
    else:
        parts = where.parts
        kilo = any(
            name == "storage" and parts[index - 1] == KILO
            for index, name in enumerate(parts)
            if index
        )
    return Harness.KILO if kilo else Harness.OPENCODE


def parse(path: str, data: bytes, project_hint: str, prompts: Prompts) -> FileResult:
    """Either log, as detection found it: a database is handed over as no bytes (its parser
    opens it), a legacy message as its document."""
    if not data and _is_database(path):
        return parse_database(path, data, project_hint, prompts)
    return parse_message(path, data, project_hint, prompts)


def _is_database(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return True  # its parser says why it cannot be read


def parse_database(path: str, _data: bytes, project_hint: str, _prompts: Prompts) -> FileResult:
    """An `opencode.db` or `kilo.db`, read what can be read: a table that cannot be read (a
    database locked, cut short, malformed) is one issue, and the rows read before it count."""
    issues: list[LineIssue] = []
    try:
        with closing(sqlite_read.connect(path)) as connection:
            connection.execute("begin")  # one snapshot: the rows agree with one another
            store = _read(path, connection, project_hint, issues)
    except sqlite3.Error as error:
        return FileResult([], [LineIssue(path, 0, _why(error))], 0, SOURCE)
    responses, activity = collect(store, issues)
    return FileResult(responses, issues, 0, SOURCE, activity)


def _why(error: sqlite3.Error) -> str:
    return f"cannot read the database: {error}"


def _read(
    path: str, connection: sqlite3.Connection, project_hint: str, issues: list[LineIssue]
) -> Store:
    sessions = {
        str(row["id"]): Session(
            _text(row, "parent_id"), _text(row, "directory"), _text(row, "version")
        )
        for row in _rows(path, connection, "session", issues)
        if row.get("id") is not None
    }
    messages: list[Message] = []
    for row, message_id, session_id, number, raw in _records(path, connection, "message", issues):
        data = decode_message(path, number, raw, issues)
        if data is not None:
            created, updated = _ms(row, "time_created"), _ms(row, "time_updated")
            messages.append(Message(message_id, session_id, path, number, created, updated, data))
    parts: dict[str, list[Part]] = {}
    for row, part_id, message_id, number, raw in _records(path, connection, "part", issues):
        part = decode_part(path, number, raw, issues)
        if part is not None:
            created = _ms(row, "time_created")
            parts.setdefault(message_id, []).append(Part(part_id, path, number, created, part))
    for listed in parts.values():
        listed.sort(key=lambda part: part.id)
    return Store(harness_of(path), project_hint, TOP_LEVEL, sessions, messages, parts)


OWNER = {"message": "session_id", "part": "message_id"}
"""The column naming what a message or a part belongs to."""


def _records(
    path: str, connection: sqlite3.Connection, table: str, issues: list[LineIssue]
) -> Iterator[tuple[dict[str, Any], str, str, int, bytes]]:
    """(row, id, what it belongs to, row number, JSON) of a message or part table's rows; a
    row without them is listed."""
    for row in _rows(path, connection, table, issues):
        identity, owner = _text(row, "id"), _text(row, OWNER[table])
        raw, number = row.get("data"), int(row["rowid"])
        if not identity or not owner or not isinstance(raw, str | bytes):
            issues.append(LineIssue(path, number, f"{table} row without id, owner or data"))
            continue
        yield row, identity, owner, number, _bytes(raw)


def _rows(
    path: str, connection: sqlite3.Connection, table: str, issues: list[LineIssue]
) -> Iterator[dict[str, Any]]:
    """A table's rows as column → value, with their `rowid`; what follows a row that cannot be
    read (a page cut off or malformed) is one issue. Unsorted: sorting would read it all first."""
    try:
        cursor = connection.execute(f"select rowid as rowid, * from {table}")  # noqa: S608
        names = [column[0] for column in cursor.description]
        for values in cursor:
            yield dict(zip(names, values, strict=True))
    except sqlite3.Error as error:
        issues.append(LineIssue(path, 0, f"{_why(error)} (table {table}, rows read kept)"))


def _text(row: dict[str, Any], column: str) -> str | None:
    value = row.get(column)
    return value if isinstance(value, str) and value else None


def _ms(row: dict[str, Any], column: str) -> float | None:
    value = row.get(column)
    return ms(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _bytes(raw: str | bytes) -> bytes:
    return raw.encode("utf-8", errors="surrogatepass") if isinstance(raw, str) else raw


def parse_message(path: str, data: bytes, project_hint: str, _prompts: Prompts) -> FileResult:
    """A legacy message document, with its parts and its session read from beside it."""
    issues: list[LineIssue] = []
    message = decode_message(path, 1, data, issues)
    if message is None:
        return FileResult([], issues, 0, SOURCE)
    where = PurePath(path)
    message_id = message.id or where.stem
    session_id = message.sessionID or where.parent.name
    storage = where.parent.parent.parent
    parts = _legacy_parts(str(storage / "part" / message_id), issues)
    sessions = _legacy_session(str(storage / "session"), session_id)
    found = Message(message_id, session_id, path, 1, None, None, message)
    store = Store(harness_of(path), project_hint, EMBEDDED, sessions, [found], {message_id: parts})
    responses, activity = collect(store, issues)
    return FileResult(responses, issues, 0, SOURCE, activity)


def _legacy_parts(folder: str, issues: list[LineIssue]) -> list[Part]:
    """The parts of a legacy message (its `storage/part/<message>/` folder), in id order."""
    parts: list[Part] = []
    for name in _listing(folder):
        if not name.endswith(".json"):
            continue
        file = os.path.join(folder, name)
        data = _small_file(file, issues)
        part = decode_part(file, 1, data, issues) if data is not None else None
        if part is not None:
            parts.append(Part(part.id or name.removesuffix(".json"), file, 1, None, part))
    parts.sort(key=lambda part: part.id)
    return parts


def _legacy_session(folder: str, session_id: str) -> dict[str, Session]:
    """The session of a legacy message and its parents, from `storage/session/<project>/`:
    what tells a sub-agent's session, and the session's folder."""
    sessions: dict[str, Session] = {}
    wanted: str | None = session_id
    while wanted and wanted not in sessions and len(sessions) < 32:
        found = _session_file(folder, wanted)
        if found is None:
            break
        sessions[wanted] = found
        wanted = found.parent
    return sessions


def _session_file(folder: str, session_id: str) -> Session | None:
    for project in _listing(folder):
        file = os.path.join(folder, project, f"{session_id}.json")
        data = _small_file(file, [])
        if data is None:
            continue
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(value, dict):
            return None
        return Session(_text(value, "parentID"), _text(value, "directory"), _text(value, "version"))
    return None


def _listing(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:  # absent (a message copied alone) or unreadable: nothing beside it
        return []


def _small_file(path: str, issues: list[LineIssue]) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MOST_PART_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as error:
        issues.append(LineIssue(path, 0, f"cannot read: {error.strerror or error}"))
        return None
    if len(data) > MOST_PART_BYTES:
        return None
    return data


FORMATS: tuple[AgentFormat, ...] = (
    AgentFormat(SOURCE, Layout.DATABASE, claims_database, parse, DATABASE_NAMES),
    AgentFormat(SOURCE, Layout.DOCUMENT, claims_message, parse),
)
