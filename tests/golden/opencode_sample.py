"""Builds `sample_logs/opencode/`: OpenCode's and Kilo CLI's data folders of one developer.

Run `python tests/golden/opencode_sample.py` to write them; `test_opencode_logs.py` checks the
committed files are what this writes. Nothing is copied from a real log: the conversations, ids
and counts are made up, in the layout and schema OpenCode writes (the field guide's): tables
`project`, `session`, `message`, `part` and `event` with each row's JSON in `data`, and the
legacy `storage/{session,message,part}/` tree of indented JSON files.

What the folder holds (the golden test's figures follow from it):
- `opencode/opencode.db`, session `ses_3b1f…tiles` in /home/dana/src/tilesrv: a three-step
  tool-using message (its `tokens` are the last step's, its `cost` the sum), a compaction and
  its summary, an aborted message without usage, a message after the compaction; a sub-agent
  session (the `task` tool) on gpt-5; session `ses_2d07…notes`, also in the legacy tree (the
  migration left both: it counts once); the `event` table repeating rows, and the `session`
  table's denormalised totals, neither of which counts.
- `opencode/storage/`: the notes session (same ids as in the database), and an older session
  only there, whose message's parts were never written (counted from the message).
- `kilo/kilo.db`: one Kilo CLI session in /home/dana/src/webshop.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_logs" / "opencode"
SHARE = Path(".local") / "share"

SCHEMA = """
PRAGMA page_size = 512;
CREATE TABLE project (id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text,
  time_created integer NOT NULL, time_updated integer NOT NULL, sandboxes text NOT NULL);
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text,
  slug text NOT NULL, directory text NOT NULL, title text NOT NULL, version text NOT NULL,
  cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL,
  tokens_output integer DEFAULT 0 NOT NULL, tokens_reasoning integer DEFAULT 0 NOT NULL,
  tokens_cache_read integer DEFAULT 0 NOT NULL, tokens_cache_write integer DEFAULT 0 NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE event (id text PRIMARY KEY, aggregate_id text NOT NULL, seq integer NOT NULL,
  type text NOT NULL, data text NOT NULL);
CREATE INDEX part_message_idx ON part (message_id);
"""


def tokens(inp: int, read: int, write: int, out: int, reasoning: int = 0) -> dict[str, Any]:
    return {
        "input": inp,
        "output": out,
        "reasoning": reasoning,
        "cache": {"read": read, "write": write},
    }


class Writer:
    """Rows of one data folder, with ids that ascend as OpenCode's do."""

    def __init__(self, stamp: int) -> None:
        self.stamp = stamp
        self.messages: list[tuple[str, str, int, int, dict[str, Any]]] = []
        self.parts: list[tuple[str, str, str, int, dict[str, Any]]] = []
        self.count = 0

    def id(self, prefix: str, at: int) -> str:
        self.count += 1
        return f"{prefix}_{at:012x}{self.count:04d}dana{self.stamp}"

    def user(self, session: str, at: int, *texts: str, compaction: bool = False) -> str:
        message = self.id("msg", at)
        data = {
            "role": "user",
            "time": {"created": at},
            "agent": "build",
            "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5-20250929"},
        }
        self.messages.append((message, session, at, at, data))
        for text in texts:
            self.part(
                message,
                session,
                at,
                {"type": "text", "text": text, "time": {"start": at, "end": at}},
            )
        if compaction:
            self.part(message, session, at, {"type": "compaction", "auto": True})
        return message

    def assistant(
        self,
        session: str,
        at: int,
        parent: str,
        where: str,
        model: tuple[str, str],
        steps: list[tuple[dict[str, Any], float, list[dict[str, Any]]]],
        **extra: Any,
    ) -> str:
        """A message of `steps`: (tokens, cost, parts written before its step-finish)."""
        message = self.id("msg", at)
        clock = at
        for step_tokens, cost, before in steps:
            self.part(message, session, clock, {"type": "step-start"})
            for part in before:
                clock += 1500
                self.part(message, session, clock, part)
            clock += 2500
            finish = {
                "type": "step-finish",
                "reason": "tool-calls",
                "cost": cost,
                "tokens": step_tokens,
            }
            self.part(message, session, clock, finish)
        last = steps[-1][0] if steps else tokens(0, 0, 0, 0)
        data = {
            "role": "assistant",
            "time": {"created": at, "completed": clock},
            "parentID": parent,
            "modelID": model[1],
            "providerID": model[0],
            "mode": "build",
            "agent": "build",
            "path": {"cwd": where, "root": where},
            "cost": round(sum(s[1] for s in steps), 8),
            "tokens": last,
            "finish": "stop",
            **extra,
        }
        self.messages.append((message, session, at, clock, data))
        return message

    def part(self, message: str, session: str, at: int, data: dict[str, Any]) -> None:
        self.parts.append((self.id("prt", at), message, session, at, data))


def tool(call: str, name: str, at: int, title: str, error: str | None = None) -> dict[str, Any]:
    state: dict[str, Any] = {
        "status": "error" if error else "completed",
        "input": {"description": title},
        "time": {"start": at, "end": at + 900},
    }
    state.update({"error": error} if error else {"output": "ok", "title": title, "metadata": {}})
    return {"type": "tool", "callID": call, "tool": name, "state": state}


TILES, NOTES, OLD, SUB = (
    "ses_3b1fa20c4ffe01tiles",
    "ses_2d07c11e8ffe02notes",
    "ses_1f9e03aa6ffe03old",
    "ses_3b1fa31d0ffe04sub",
)
TILESRV, NOTES_CLI, LEDGER = (
    "/home/dana/src/tilesrv",
    "/home/dana/src/notes-cli",
    "/home/dana/src/ledger-api",
)
SONNET, HAIKU, GPT5 = (
    ("anthropic", "claude-sonnet-4-5-20250929"),
    ("anthropic", "claude-haiku-4-5-20251001"),
    ("openai", "gpt-5-mini-2025-08-07"),
)
MARCH_5, FEB_10, SEP_18, MARCH_6 = 1772704800000, 1770717600000, 1758196800000, 1772794800000


def opencode_rows() -> Writer:
    rows = Writer(1)
    ask = rows.user(TILES, MARCH_5, "add a /health endpoint that reports the tile cache size")
    rows.assistant(
        TILES,
        MARCH_5 + 2000,
        ask,
        TILESRV,
        SONNET,
        [
            (
                tokens(12, 0, 14210, 180),
                0.0560235,
                [tool("toolu_01health", "read", MARCH_5 + 3000, "src/server.rs")],
            ),
            (
                tokens(8, 14210, 1630, 95),
                0.0118245,
                [
                    tool(
                        "toolu_02health",
                        "bash",
                        MARCH_5 + 9000,
                        "cargo build",
                        "exit code 101: unresolved import",
                    ),
                    tool("toolu_03health", "task", MARCH_5 + 9500, "find the cache size accessor"),
                ],
            ),
            (
                tokens(6, 15840, 420, 260),
                0.010245,
                [tool("toolu_04health", "edit", MARCH_5 + 30000, "src/server.rs")],
            ),
        ],
    )
    sub_ask = rows.user(SUB, MARCH_5 + 9600, "find the accessor that reports the tile cache size")
    rows.assistant(
        SUB,
        MARCH_5 + 9700,
        sub_ask,
        TILESRV,
        GPT5,
        [
            (
                tokens(2400, 1024, 0, 350, 192),
                0.0017096,
                [tool("call_05grep", "grep", MARCH_5 + 10000, "cache_size")],
            ),
        ],
    )
    later = MARCH_5 + 600000
    compact = rows.user(TILES, later, compaction=True)
    rows.assistant(
        TILES,
        later + 500,
        compact,
        TILESRV,
        SONNET,
        [(tokens(4, 16260, 0, 610), 0.014040, [])],
        summary=True,
        mode="compaction",
        agent="compaction",
    )
    stopped = rows.user(TILES, later + 60000, "now add tests")
    rows.assistant(
        TILES,
        later + 61000,
        stopped,
        TILESRV,
        SONNET,
        [],
        error={"name": "MessageAbortedError", "data": {"message": "The operation was aborted."}},
    )
    again = rows.user(TILES, later + 90000, "now add tests, only for /health")
    rows.assistant(
        TILES, later + 91000, again, TILESRV, SONNET, [(tokens(10, 0, 3120, 150), 0.01398, [])]
    )
    notes_rows(rows)
    return rows


def notes_rows(rows: Writer) -> None:
    """The session the migration left in both the database and the legacy tree."""
    ask = rows.user(NOTES, FEB_10, "fix the typo in the README's install section")
    rows.assistant(
        NOTES,
        FEB_10 + 1500,
        ask,
        NOTES_CLI,
        HAIKU,
        [
            (
                tokens(9, 0, 9800, 70),
                0.012609,
                [tool("toolu_06typo", "edit", FEB_10 + 2500, "README.md")],
            ),
            (tokens(5, 9800, 150, 40), 0.0013725, []),
        ],
    )


def old_rows() -> Writer:
    """A session from before the database: its message was written, its parts were not."""
    rows = Writer(3)
    ask = rows.user(OLD, SEP_18, "why does the ledger import skip rows with a negative amount?")
    rows.assistant(
        OLD,
        SEP_18 + 1200,
        ask,
        LEDGER,
        ("anthropic", "claude-sonnet-4-20250514"),
        [(tokens(25, 0, 12040, 410), 0.051375, [])],
    )
    rows.parts = [part for part in rows.parts if part[1] == ask]
    return rows


def kilo_rows() -> Writer:
    rows = Writer(2)
    ask = rows.user("ses_3b6a55e2bffe05kilo", MARCH_6, "add pagination to the orders page")
    rows.assistant(
        "ses_3b6a55e2bffe05kilo",
        MARCH_6 + 1800,
        ask,
        "/home/dana/src/webshop",
        SONNET,
        [
            (
                tokens(20, 0, 11800, 240),
                0.04791,
                [tool("toolu_07page", "edit", MARCH_6 + 2500, "orders.tsx")],
            )
        ],
    )
    return rows


SESSIONS = {
    TILES: ("prj_tilesrv", None, TILESRV, "fix-health", MARCH_5),
    SUB: ("prj_tilesrv", TILES, TILESRV, "find-accessor", MARCH_5 + 9600),
    NOTES: ("prj_notes", None, NOTES_CLI, "readme-typo", FEB_10),
    OLD: ("prj_ledger", None, LEDGER, "negative-rows", SEP_18),
    "ses_3b6a55e2bffe05kilo": (
        "prj_webshop",
        None,
        "/home/dana/src/webshop",
        "orders-pages",
        MARCH_6,
    ),
}


def write_database(path: Path, rows: Writer, version: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with closing(sqlite3.connect(path)) as db, db:
        db.executescript(SCHEMA)
        for session in sorted({row[1] for row in rows.messages}):
            project, parent, where, slug, at = SESSIONS[session]
            db.execute(
                "insert or ignore into project values (?, ?, 'git', ?, ?, ?, '[]')",
                (project, where, where.rsplit("/", 1)[1], at, at),
            )
            totals = _totals(rows, session)
            db.execute(
                "insert into session values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    session,
                    project,
                    parent,
                    slug,
                    where,
                    slug.replace("-", " "),
                    version,
                    *totals,
                    at,
                    at,
                ),
            )
        for message, session, created, updated, data in rows.messages:
            db.execute(
                "insert into message values (?,?,?,?,?)",
                (message, session, created, updated, _json(data)),
            )
        for seq, (part, message, session, at, data) in enumerate(rows.parts):
            db.execute(
                "insert into part values (?,?,?,?,?,?)",
                (part, message, session, at, at, _json(data)),
            )
            if data["type"] == "step-finish":  # the event log repeats rows: never counted
                event = {"sessionID": session, "part": {"id": part, "messageID": message, **data}}
                db.execute(
                    "insert into event values (?,?,?,?,?)",
                    (f"evt_{part[4:]}", session, seq, "message.part.updated.1", _json(event)),
                )


def _totals(rows: Writer, session: str) -> tuple[float, int, int, int, int, int]:
    """The session table's denormalised sums (never read by sniff)."""
    steps = [p[4] for p in rows.parts if p[2] == session and p[4]["type"] == "step-finish"]
    used = [s["tokens"] for s in steps]
    return (
        round(sum(s["cost"] for s in steps), 8),
        sum(u["input"] for u in used),
        sum(u["output"] for u in used),
        sum(u["reasoning"] for u in used),
        sum(u["cache"]["read"] for u in used),
        sum(u["cache"]["write"] for u in used),
    )


def write_storage(storage: Path, rows: Writer, sessions: set[str]) -> None:
    """The legacy tree of `sessions`: one indented JSON file per session, message and part."""
    for message, session, _, _, data in rows.messages:
        if session in sessions:
            _write(
                storage / "message" / session / f"{message}.json",
                {"id": message, "sessionID": session, **data},
            )
    for part, message, session, _, data in rows.parts:
        if session in sessions:
            record = {"id": part, "sessionID": session, "messageID": message, **data}
            _write(storage / "part" / message / f"{part}.json", record)
    for session in sessions:
        project, parent, where, slug, at = SESSIONS[session]
        info = {
            "id": session,
            "projectID": project,
            "directory": where,
            "title": slug,
            "version": "0.9.11",
            "time": {"created": at, "updated": at},
            **({"parentID": parent} if parent else {}),
        }
        _write(storage / "session" / project / f"{session}.json", info)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")


def build(root: Path) -> None:
    """Write the sample under `root` (its `.local/share/{opencode,kilo}`)."""
    share = root / SHARE
    current = opencode_rows()
    write_database(share / "opencode" / "opencode.db", current, "1.1.20")
    write_storage(share / "opencode" / "storage", current, {NOTES})
    write_storage(share / "opencode" / "storage", old_rows(), {OLD})
    write_database(share / "kilo" / "kilo.db", kilo_rows(), "7.0.3")


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE)
