"""Provides `IndexStore`: the on-disk index of what each log file yielded, in SQLite.

Why SQLite: the index must survive a crash mid-write and two runs at once without ever being
read half-written. SQLite's transactions and write-ahead log give exactly that: a run reads a
consistent snapshot, a write lands whole or not at all, and a killed run leaves the last
committed state. A corrupt or unreadable index file is deleted and rebuilt; a failing index
never fails a run (sniff then reads the logs as if there were none).

One row per (file, mode): the file's identity when it was read (size, modification time,
inode change time, inode, and a checksum of its last 4 KiB, which also tells a file that grew
from one rewritten in place; logs are appended to, and an edit further back in a file that
also grew is not seen), how far it was read (byte offset, lines), its time range, what it
yielded (msgpack, in the `records` table: one row, then one more per run that read on from
where the last stopped, so that lines appended to a big file never rewrite its older records)
and, for formats that can resume, the parser's state (pickle).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

INDEX_FILE = "index.sqlite3"
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT NOT NULL,
    mode TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    inode INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    tail_crc INTEGER NOT NULL,
    first_at REAL,
    last_at REAL,
    log_format TEXT,
    links BLOB NOT NULL,
    issues BLOB NOT NULL,
    synthetic INTEGER NOT NULL,
    state BLOB,
    PRIMARY KEY (path, mode)
);
CREATE TABLE IF NOT EXISTS records (
    path TEXT NOT NULL,
    mode TEXT NOT NULL,
    seq INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (path, mode, seq)
);
CREATE TABLE IF NOT EXISTS parts (
    scope TEXT NOT NULL,
    unit TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (scope, unit)
);
CREATE TABLE IF NOT EXISTS scopes (scope TEXT PRIMARY KEY, used REAL NOT NULL);
"""
KEPT_SCOPES = 8
"""Scopes (folders and options) whose parts are kept; the least recently used go first."""
CHUNK = 500
"""Paths per query (SQLite limits the parameters of one statement)."""
BLOB_ROW_BYTES = 1 << 20
"""Rows holding more than this are written a block (of this size) at a time (`write`)."""
BUSY_TIMEOUT_MS = 30_000
"""How long a run waits for another run's write to finish before giving up on the index."""


@dataclass(frozen=True, slots=True)
class Entry:
    """What the index knows of one file, read in one mode."""

    path: str
    size: int
    mtime_ns: int
    inode: int
    ctime_ns: int
    offset: int
    """Bytes read into `state`: the end of the last whole line."""
    lines: int
    """Lines in those bytes."""
    tail_crc: int
    """CRC-32 of the file's last `CHECK_BYTES` bytes when it was `size` long."""
    first_at: float | None
    last_at: float | None
    result: bytes
    """What the file yielded (msgpack); empty when read without it."""
    state: bytes | None = None
    log_format: str | None = None
    links: bytes = b""
    """What ties the file's calls to other files' (msgpack list of sessions and call keys)."""
    issues: bytes = b""
    """The file's skipped and repaired lines (msgpack)."""
    synthetic: int = 0
    after: int | None = None
    """The lines read before this reading resumed: `result` holds only what those after them
    yielded, stored after the records kept already instead of replacing them (and not at all
    if the stored records no longer end there: another run stored this reading, or a later)."""

    @property
    def identity(self) -> tuple[int, int, int, int, int]:
        """The file's identity when it was read, as `SourceFile.identity` gives it."""
        return (self.size, self.mtime_ns, self.ctime_ns, self.inode, self.tail_crc)


@dataclass(frozen=True, slots=True)
class Holdings:
    """What `sniff index` reports: distinct files, not rows."""

    files: int
    """Distinct log files."""
    size: int
    """Their bytes, each file once (at the largest size it was read)."""
    readings: int
    """Rows: a file is kept once per way of reading it (`indexed.mode_of`)."""


class IndexStore:
    """An open index. Every method swallows database errors: the index is an accelerator."""

    def __init__(self, connection: sqlite3.Connection, path: Path, fingerprint: str = "") -> None:
        self._db = connection
        self.path = path
        self.fingerprint = fingerprint
        self.broken = False

    @classmethod
    def open(cls, folder: Path, fingerprint: str) -> IndexStore | None:
        """The index in `folder`, emptied if it was written by another version of sniff.

        None when no index can be kept there (read-only folder, a database that stays broken).
        """
        path = folder / INDEX_FILE
        for attempt in range(2):
            try:
                folder.mkdir(parents=True, exist_ok=True)
                store = cls(_connect(path), path, fingerprint)
                store._check_version(fingerprint)
                return store
            except sqlite3.DatabaseError:
                if attempt == 0:  # not a database, or corrupt: start again from nothing
                    _remove(path)
            except OSError:
                return None
        return None

    def close(self) -> None:
        """Close the database; delete it if it failed during the run (the next run rebuilds
        it rather than re-parsing everything, every time, around a damaged page)."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        if self.broken:
            _remove(self.path)

    def entry(self, path: str, mode: str, *, with_state: bool = False) -> Entry | None:
        """The row of `path` in `mode` (without its records), or None."""
        return self._select([path], mode, with_state).get(path)

    def paths_under(self, roots: Iterable[str], mode: str) -> list[str]:
        """The indexed files in `mode` that lie under one of `roots` (folders or files)."""
        found: list[str] = []
        try:
            for root in roots:
                folder = root.rstrip("/") + "/"
                rows = self._db.execute(
                    "SELECT path FROM files WHERE mode = ? AND (path = ? OR"
                    " (path >= ? AND path < ?))",
                    (mode, root, folder, folder[:-1] + "0"),  # "0" sorts right after "/"
                ).fetchall()
                found.extend(row[0] for row in rows)
        except sqlite3.Error:
            self.broken = True
        return found

    def entries(self, paths: list[str], mode: str) -> dict[str, Entry]:
        """The rows of `paths` in `mode` (without records or states), by path."""
        return self._select(paths, mode, with_state=False)

    def _select(self, paths: list[str], mode: str, with_state: bool) -> dict[str, Entry]:
        """The rows of `paths` in `mode`, by path, in `Entry`'s field order (the table keeps
        the large blobs last: SQLite walks a row's overflow pages to reach any column stored
        after them)."""
        state = "state" if with_state else "NULL"
        found: dict[str, Entry] = {}
        try:
            for start in range(0, len(paths), CHUNK):
                chunk = paths[start : start + CHUNK]
                marks = ", ".join("?" * len(chunk))
                rows = self._db.execute(
                    "SELECT path, size, mtime_ns, inode, ctime_ns, offset, lines, tail_crc,"
                    f" first_at, last_at, x'', {state}, log_format, links, issues, synthetic"
                    f" FROM files WHERE mode = ? AND path IN ({marks})",
                    (mode, *chunk),
                ).fetchall()
                found.update((row[0], entry) for row in rows if (entry := _fitting(*row)))
        except sqlite3.Error:
            self.broken = True
        return found

    def result(self, path: str, mode: str) -> list[tuple[int, bytes]] | None:
        """What `path` yielded, as stored: its first reading's records, then those of each
        reading on from where the one before stopped, each with the whole lines read by then
        (what a reading said of a cut last line, the next reads again)."""
        try:
            rows = self._db.execute(
                "SELECT lines, data FROM records WHERE path = ? AND mode = ? ORDER BY seq",
                (path, mode),
            ).fetchall()
        except sqlite3.Error:
            self.broken = True
            return None
        return [(lines, data) for lines, data in rows] or None

    def join_records(self, path: str, mode: str, lines: int, data: bytes) -> None:
        """Store `data` as `path`'s records up to `lines` instead of the rows that hold them
        (what readings on after them store stays after it)."""
        try:
            with self._db:
                self._db.execute(
                    "DELETE FROM records WHERE path = ? AND mode = ? AND lines <= ?",
                    (path, mode, lines),
                )
                self._insert("records", (path, mode, -1, lines), "data", data)
        except sqlite3.Error:
            self.broken = True

    def parts(self, scope: str, units: list[str]) -> dict[str, bytes]:
        """The analysis parts kept for `units` in `scope` (see `sniff.workspace.scan`)."""
        wanted = set(units)
        try:
            rows = self._db.execute(
                "SELECT unit, data FROM parts WHERE scope = ?", (scope,)
            ).fetchall()
        except sqlite3.Error:
            self.broken = True
            return {}
        return {unit: data for unit, data in rows if unit in wanted}

    def family_parts(
        self, family: str, scope: str, units: list[str]
    ) -> dict[str, tuple[str, bytes]]:
        """The parts kept for `units` in the other scopes beginning with `family`, with the
        scope each was kept in."""
        wanted = set(units)
        try:
            rows = self._db.execute(
                "SELECT scope, unit, data FROM parts WHERE substr(scope, 1, ?) = ? AND scope != ?",
                (len(family), family, scope),
            ).fetchall()
        except sqlite3.Error:
            self.broken = True
            return {}
        return {unit: (kept_in, data) for kept_in, unit, data in rows if unit in wanted}

    def keep_parts(self, scope: str, new: dict[str, bytes], used: set[str]) -> None:
        """Store `new` parts in `scope` and forget those of its units not in `used`, and the
        parts of all but the `KEPT_SCOPES` most recently used scopes."""
        try:
            with self._db:
                self._db.execute(
                    "INSERT OR REPLACE INTO scopes VALUES (?, ?)", (scope, time.time())
                )
                old = self._db.execute(
                    "SELECT scope FROM scopes ORDER BY used DESC LIMIT -1 OFFSET ?",
                    (KEPT_SCOPES,),
                ).fetchall()
                self._db.executemany("DELETE FROM parts WHERE scope = ?", old)
                self._db.executemany("DELETE FROM scopes WHERE scope = ?", old)
                self._db.executemany(
                    "INSERT OR REPLACE INTO parts VALUES (?, ?, ?)",
                    [(scope, unit, data) for unit, data in new.items()],
                )
                stale = [
                    (scope, unit)
                    for (unit,) in self._db.execute(
                        "SELECT unit FROM parts WHERE scope = ?", (scope,)
                    ).fetchall()
                    if unit not in used
                ]
                self._db.executemany("DELETE FROM parts WHERE scope = ? AND unit = ?", stale)
        except sqlite3.Error:
            self.broken = True

    def write(self, mode: str, entries: Iterable[Entry], gone: Iterable[str] = ()) -> None:
        """Store `entries` and forget the files in `gone`, in one transaction.

        A big file's records and state are written into space reserved for them (`zeroblob`),
        a block at a time: bound as values, SQLite would copy them twice (the value, then the
        row it builds), which for a session file of hundreds of megabytes doubled a scan's peak
        memory.
        """
        entries = list(entries)
        removed = [(path, mode) for path in gone]
        if not entries and not removed:
            return
        if self.broken:  # reads failed (a damaged page): this run's rows go into a new index
            self._rebuild()
        replaced = [(e.path, mode) for e in entries if e.after is None]
        try:
            with self._db:
                for table in ("files", "records"):
                    self._db.executemany(
                        f"DELETE FROM {table} WHERE path = ? AND mode = ?", removed + replaced
                    )
                for e in entries:
                    seq = 0
                    if e.after is not None:
                        seq, lines = self._db.execute(
                            "SELECT MAX(seq) + 1, MAX(lines) FROM records"
                            " WHERE path = ? AND mode = ?",
                            (e.path, mode),
                        ).fetchone()
                        if lines != e.after:
                            continue
                    fields = (
                        e.path, mode, e.size, e.mtime_ns, e.inode, e.ctime_ns, e.offset, e.lines,
                        e.tail_crc, e.first_at, e.last_at, e.log_format, e.links, e.issues,
                        e.synthetic,
                    )  # fmt: skip
                    self._insert("files", fields, "state", e.state)
                    self._insert("records", (e.path, mode, seq, e.lines), "data", e.result)
        except sqlite3.Error:
            self.broken = True

    def _insert(self, table: str, fields: tuple[Any, ...], column: str, data: bytes | None) -> None:
        """Insert a row of `fields` then `data`, its last column (see `write`)."""
        marks = ", ".join("?" * len(fields))
        if data is None or len(data) <= BLOB_ROW_BYTES:
            self._db.execute(f"INSERT OR REPLACE INTO {table} VALUES ({marks}, ?)", (*fields, data))
            return
        inserted = self._db.execute(
            f"INSERT OR REPLACE INTO {table} VALUES ({marks}, zeroblob(?))", (*fields, len(data))
        ).lastrowid
        inserted = inserted or 0  # never 0 after an insert; no row has it: `blobopen` fails
        with self._db.blobopen(table, column, inserted) as blob:
            whole = memoryview(data)
            for start in range(0, len(data), BLOB_ROW_BYTES):
                blob.write(whole[start : start + BLOB_ROW_BYTES])

    def _rebuild(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        _remove(self.path)
        try:
            self._db = _connect(self.path)
            self._check_version(self.fingerprint)
            self.broken = False
        except (sqlite3.Error, OSError):
            self.broken = True

    def stats(self) -> Holdings:
        """What the index holds; a file read several ways is one file of one size."""
        try:
            row = self._db.execute(
                "SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(readings), 0) FROM "
                "(SELECT MAX(size) AS size, COUNT(*) AS readings FROM files GROUP BY path)"
            ).fetchone()
        except sqlite3.Error:
            return Holdings(0, 0, 0)
        return Holdings(int(row[0]), int(row[1]), int(row[2]))

    def _check_version(self, fingerprint: str) -> None:
        self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        row = self._db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        if row is not None and row[0] == fingerprint:
            return
        with self._db:  # another version's rows may mean something else: start afresh
            for table in ("files", "records", "parts", "scopes"):
                self._db.execute(f"DROP TABLE IF EXISTS {table}")
        self._db.executescript(SCHEMA)
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (fingerprint,))


def clear(folder: Path) -> bool:
    """Delete the index in `folder`; whether there was one.

    Raises:
        OSError: a file of the index cannot be deleted (a read-only cache folder).
    """
    path = folder / INDEX_FILE
    existed = path.exists()
    _remove(path, strict=True)
    return existed


def _fitting(*row: Any) -> Entry | None:
    """The `Entry` of a row (in its field order), or None when its columns are not of the types the
    index writes (a damaged page SQLite did not notice, another program's write): the file is
    then read again, and its row written anew. (Blobs that do not decode are found where they
    are decoded: `indexed`.)"""
    entry = Entry(*row)
    if (
        type(entry.size) is not int
        or type(entry.mtime_ns) is not int
        or type(entry.inode) is not int
        or type(entry.offset) is not int
        or type(entry.lines) is not int
        or type(entry.tail_crc) is not int
        or type(entry.synthetic) is not int
        or not isinstance(entry.first_at, float | int | None)
        or not isinstance(entry.last_at, float | int | None)
        or not isinstance(entry.log_format, str | None)
        or type(entry.links) is not bytes
        or type(entry.issues) is not bytes
    ):
        return None
    return entry


def _connect(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: durable, never corrupt
    return connection


def _remove(path: Path, *, strict: bool = False) -> None:
    """Delete the database and its journal files; `strict`: raise what stops a deletion."""
    for suffix in ("", "-wal", "-shm"):
        try:
            Path(str(path) + suffix).unlink(missing_ok=True)
        except OSError:
            if strict:
                raise
