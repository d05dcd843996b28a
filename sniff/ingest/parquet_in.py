"""Provides `read_export`: the requests a `sniff export` folder holds, as responses to merge.

Why: a pipeline exports on each machine and analyses centrally. So every command that reads
logs also takes an export folder (or a folder holding several) as a path: each row of its
`requests` table becomes one `Response` again, with the key, tokens, times and origin (log file
and line) the export wrote, and the merge keeps one request per key as it does for log files.
So exports of overlapping logs, or of several machines read together, count nothing twice.

Costs are not read back: the merge prices the tokens again, as it prices any log, so with the
same price data an export read back costs exactly what the scan that wrote it did (and a
`--pricing` file applies to it as to logs). Prompt blocks (the `blocks` table: kind, role, hash
and tokens, never text) are restored when prompts are asked for, so cache breaks are judged as
from the logs; what reads prompt text (lint) sees none. A Parquet file that cannot be read is
reported as an unreadable file, a row that is not a request as a skipped line; the rest count.
The files read are those the export's manifest lists (`export_folders.table_files`), so a merge
into the folder while it is read gives the old rows or the new ones, never a mix or a part.

A team folder (`sniff export --team`: `machines/<name>/` exports, on disk or in a store) is
read as its machines' exports, each one file (`discover.expand`, first exporter first): a
request key two machines exported (a session folder synced between them) counts once, like any
key two files hold, credited to the machine that exported it first (`owners`; `dropped` says
how many rows that left out).

pyarrow is imported only when an export is read; finding exports (`export_folders`) imports
neither this module nor pyarrow, so discovering paths stays light.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import msgspec

from sniff.first_hand import CacheDiagnosis, FirstHand
from sniff.ingest import remote_exports
from sniff.ingest.export_folders import (
    MANIFEST,
    REQUESTS,
    is_export,
    is_machine_export,
    manifest_files,
    requests_folder,
    table_files,
)
from sniff.ingest.files import remote
from sniff.ingest.files.regular import why_unread
from sniff.ingest.plausible import OUT_OF_RANGE, Implausible, count, in_range
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, Tokens
from sniff.model import Agent, Block, Harness, LineIssue

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

SOURCE = "sniff-export"
"""The format an export folder is counted as."""
TOKENS = (
    "input_tokens", "cache_read_tokens", "cache_write_5m_tokens", "cache_write_1h_tokens",
    "output_tokens", "reasoning_tokens",
)  # fmt: skip
"""Token columns in the order of `record.Tokens`."""
TIMES = ("started_at", "first_token_at", "ended_at")
TEXTS = ("key", "source", "provider", "model", "project", "session_id", "agent", "agent_id", "file")
"""Columns every row must fill."""
OPTIONAL_TEXTS = ("error", "version", "previous")
COLUMNS = (*TEXTS, *OPTIONAL_TEXTS, *TIMES, *TOKENS, "ttl_assumed", "line")
"""The columns of `sniff.export.tables.REQUESTS` a response is made of."""
FLAGS = ("opens_turn", "thinks", "compacted")
"""Columns exports have had since cache breaks judge turns: False where absent."""
AGENT_COLUMNS = (
    "harness", "reported_cost_usd", "reported_units", "reported_unit", "rollup", "calls",
    "reasoning_apart",
)  # fmt: skip
"""Columns exports have had since they hold other agents' requests: absent, the harness is
the one the row's format names (`record.HARNESS_OF`), and nothing was reported."""
GIT_COLUMNS = ("git_branch", "repository")
"""Columns exports have had since they attribute requests to branches: null where absent."""
LATER_TIMES = ("visible_at",)
"""Times exports have had since latency tells the first visible token: absent, unknown."""
LATER_VALUES = ("thinking_share", "first_hand", "cache_diagnosis")
"""Values exports have had since then: absent, unknown."""
BLOCKS = "blocks"
"""The table of prompt blocks, by request key and position."""
BLOCK_COLUMNS = ("request_key", "position", "kind", "role", "content_hash", "tokens",
                 "cache_control")  # fmt: skip
HARNESSES = frozenset(harness.value for harness in Harness)
AGENTS = frozenset(agent.value for agent in Agent)
ATTEMPTS = 3
"""Reads of an export that merges keep replacing before its rows are given as they stand."""


def read_export(path: str, with_prompts: Prompts = Prompts.NONE) -> FileResult:
    """One `Response` per row of the export's `requests` table (see the module docstring), with
    its prompt blocks from the `blocks` table unless `with_prompts` is NONE.

    The files its manifest lists; when a merge switched the manifest while they were read (and
    may have removed some of them since), the files of the new one. `path` may be a store's URL
    (`remote`).
    """
    try:
        files = _files(path)
    except OSError as error:
        return FileResult([], [LineIssue(path, 0, why_unread(error, "export"))], 0, SOURCE)
    for _ in range(ATTEMPTS):
        responses: list[Response] = []
        issues: list[LineIssue] = []
        fetched = _fetch(files)
        for file in files:
            found, problems = read_table_file(file, fetched.get(str(file)))
            responses.extend(found)
            issues.extend(problems)
        try:
            current = _files(path)
        except OSError:
            break
        if current == files:
            break
        files = current
    if with_prompts is not Prompts.NONE and responses:
        responses = _with_blocks(path, responses, issues)
    return FileResult(responses, issues, 0, SOURCE)


def _with_blocks(path: str, responses: list[Response], issues: list[LineIssue]) -> list[Response]:
    """`responses` with the prompt blocks the export's `blocks` table holds for their keys, in
    prompt order: what cache breaks are judged from. A file that cannot be read adds an issue."""
    try:
        files = _files(path, BLOCKS)
    except OSError:
        return responses
    prompts: dict[str, list[tuple[int, Block]]] = {}
    fetched = _fetch(files)
    for file in files:
        try:
            with _opened(file, fetched.get(str(file))) as parquet:
                rows = parquet.read(columns=list(BLOCK_COLUMNS)).to_pylist()
            for row in rows:
                block = Block(row["kind"], row["role"], row["content_hash"], int(row["tokens"]),
                              row["cache_control"])  # fmt: skip
                prompts.setdefault(row["request_key"], []).append((int(row["position"]), block))
        except (OSError, ValueError, KeyError, TypeError) as error:
            reason = str(error).strip().splitlines()[0] if str(error).strip() else "unreadable"
            issues.append(LineIssue(str(file), 0, f"cannot read prompt blocks: {reason}"))
    return [
        response._replace(blocks=tuple(block for _, block in sorted(prompts[response.key])))
        if response.key in prompts
        else response
        for response in responses
    ]


def _files(path: str, table: str = REQUESTS) -> list[Path] | list[str]:
    """The files of `table` the manifest of the export at `path` lists.

    Raises:
        OSError: a store's manifest cannot be read.
    """
    if remote.url_of(path) is not None:
        return remote_exports.table_files(path, table)
    if table == REQUESTS:
        return table_files(Path(path))
    listed = manifest_files(requests_folder(Path(path)).parent) or {}
    return listed.get(table, [])


def _fetch(files: list[Path] | list[str]) -> dict[str, bytes]:
    """The bytes of a store's files, fetched at once (a store answers many requests together
    far sooner than one after another); none for files on disk, or where the fetch failed
    (each is then read alone, and reports its own error)."""
    urls = [file for file in files if isinstance(file, str)]
    try:
        return remote.read_many(urls) if urls else {}
    except OSError:
        return {}


def owners(paths: Iterable[str]) -> dict[str, tuple[str, str | None]]:
    """The (machine, user) each request key of the team exports among `paths` (the files a
    run read, the first exporter first) is credited to: the first machine that exported it."""
    found: dict[str, tuple[str, str | None]] = {}
    for key, machine, user in _team_rows(paths):
        found.setdefault(key, (machine, user))
    return found


def dropped(paths: Iterable[str]) -> int:
    """Rows of the team exports among `paths` that another machine exported first: read once,
    not counted again."""
    rows = _team_rows(paths)
    return len(rows) - len({key for key, _, _ in rows})


def _team_rows(paths: Iterable[str]) -> list[tuple[str, str, str | None]]:
    """(key, machine, user) of every row of each machine's export among `paths`, in order.

    The machine is its folder's name where the row does not say (an export moved in); a file
    that cannot be read adds nothing (reading the export reports it).
    """
    rows: list[tuple[str, str, str | None]] = []
    for path in paths:
        if not is_machine_export(path):
            continue
        folder = PurePosixPath(path.replace(os.sep, "/")).name
        try:
            files = _files(path)
        except OSError:
            continue
        fetched = _fetch(files)
        for file in files:
            try:
                with _opened(file, fetched.get(str(file))) as parquet:
                    wanted = [
                        c for c in ("key", "machine", "user") if c in parquet.schema_arrow.names
                    ]
                    table = parquet.read(columns=wanted).to_pydict()
            except (OSError, ValueError):
                continue
            count = len(table.get("key", []))
            names = table.get("machine") or [None] * count
            users = table.get("user") or [None] * count
            for key, name, user in zip(table.get("key", []), names, users, strict=True):
                if isinstance(key, str):
                    rows.append((key, name or folder, user))
    return rows


def _opened(file: Path | str, data: bytes | None = None) -> pq.ParquetFile:
    """A Parquet file of an export, on disk or in a store (`data`: its bytes, fetched already).

    Raises:
        OSError, ValueError: it cannot be read as Parquet.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if isinstance(file, str) or data is not None:
        return pq.ParquetFile(pa.BufferReader(data if data is not None else remote.read(str(file))))
    return pq.ParquetFile(file)


def read_table_file(
    file: Path | str, data: bytes | None = None
) -> tuple[list[Response], list[LineIssue]]:
    """The responses of one Parquet file of a `requests` table (`data`: its bytes, fetched
    already), and what could not be read.

    A file that is not Parquet, or lacks a column, is one issue at line 0; a row that is not a
    request (no key, an unknown agent) is an issue at its 1-based row number.
    """
    try:
        table = _load(file, data)
    except (OSError, ValueError) as error:  # pyarrow's errors derive from these
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return [], [LineIssue(str(file), 0, f"cannot read Parquet file: {reason}")]
    responses: list[Response] = []
    issues: list[LineIssue] = []
    for number, row in enumerate(_rows(table), start=1):
        try:
            responses.append(to_response(row))
        except (KeyError, TypeError, ValueError) as error:
            issues.append(LineIssue(str(file), number, f"not a sniff request row: {error}"))
    return responses, issues


def _load(file: Path | str, data: bytes | None = None) -> pa.Table:
    """The file's request columns.

    Raises:
        OSError, ValueError: it cannot be read as Parquet, or a column is missing.
    """
    with _opened(file, data) as parquet:
        names = set(parquet.schema_arrow.names)
        missing = [column for column in COLUMNS if column not in names]
        if missing:
            raise ValueError(f"not a sniff requests table (no column {', '.join(missing)})")
        later = (*FLAGS, *AGENT_COLUMNS, *GIT_COLUMNS, *LATER_TIMES, *LATER_VALUES)
        optional = (column for column in later if column in names)
        return parquet.read(columns=[*COLUMNS, *optional])


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    """The table's rows as dicts, times as integer microseconds since the epoch (UTC)."""
    import pyarrow as pa

    for name in (*TIMES, *LATER_TIMES):
        index = table.schema.get_field_index(name)
        if index < 0:
            continue
        micros = table.column(index).cast(pa.timestamp("us", tz="UTC")).cast(pa.int64())
        table = table.set_column(index, name, micros)
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def to_response(row: dict[str, Any]) -> Response:
    """The response a row of the `requests` table stands for.

    Raises:
        KeyError, TypeError, ValueError: a required field is empty or of the wrong kind, or a
            count or date is implausible (`plausible.Implausible`).
    """
    for name in TEXTS:
        if not isinstance(row[name], str):
            raise TypeError(f"{name} is {row[name]!r}")
    if row["agent"] not in AGENTS:
        raise ValueError(f"unknown agent {row['agent']!r}")
    if row["ended_at"] is None:
        raise ValueError("ended_at is empty")
    return Response(
        source=row["source"],
        key=row["key"],
        copy_rank=TOP_LEVEL,
        usage=Tokens(*(count(row[name]) for name in TOKENS)),
        ttl_assumed=bool(row["ttl_assumed"]),
        model=row["model"],
        provider=row["provider"],
        session_id=row["session_id"],
        agent=Agent(row["agent"]),
        agent_id=row["agent_id"],
        project=row["project"],
        first_at=_seconds(row["first_token_at"]),
        last_at=_seconds(row["ended_at"]),
        started_at=_seconds(row["started_at"]),
        version=row["version"],
        file=row["file"],
        line=int(row["line"] or 0),
        error=row["error"],
        previous=row["previous"],
        opens_turn=bool(row.get("opens_turn")),
        thinks=bool(row.get("thinks")),
        compacted=bool(row.get("compacted")),
        **agent_fields(row),
        git_branch=row.get("git_branch") or None,
        repository=row.get("repository") or None,
        visible_at=_seconds(row.get("visible_at")),
        thinking_share=_share(row.get("thinking_share")),
        **said(row),
    )


def agent_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The row's harness and what its agent reported, where the export holds them.

    Raises:
        ValueError: the harness is none sniff knows.
    """
    harness, units, unit = row.get("harness"), row.get("reported_units"), row.get("reported_unit")
    if harness is not None and harness not in HARNESSES:
        raise ValueError(f"unknown harness {harness!r}")
    return {
        "harness": None if harness is None else Harness(harness),
        "reported_cost_usd": row.get("reported_cost_usd"),
        "reported_units": None if units is None or unit is None else (float(units), str(unit)),
        "rollup": bool(row.get("rollup")),
        "calls": 1 if row.get("calls") is None else count(row["calls"]),
        "reasoning_apart": bool(row.get("reasoning_apart")),
    }


def said(row: dict[str, Any]) -> dict[str, Any]:
    """A row's `first_hand` and `cache_diagnosis`, where the export holds them (null, or
    absent from exports older than them: None).

    Raises:
        ValueError: one is not what it should be (a hostile or broken export).
    """
    try:
        return {
            "first_hand": msgspec.convert(row.get("first_hand"), FirstHand | None),
            "cache_diagnosis": msgspec.convert(row.get("cache_diagnosis"), CacheDiagnosis | None),
        }
    except msgspec.ValidationError as error:
        raise ValueError(str(error)) from error


def _share(value: Any) -> float | None:
    """A share between 0 and 1, or None.

    Raises:
        ValueError: another number.
    """
    if value is None:
        return None
    if not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"thinking_share is {value!r}")
    return float(value)


def _seconds(micros: int | None) -> float | None:
    """Microseconds since the epoch as seconds (exactly the instant the export wrote).

    Raises:
        ValueError: a date logs cannot hold (`plausible`).
    """
    if micros is None:
        return None
    if not in_range(micros / 1_000_000):
        raise Implausible(OUT_OF_RANGE)
    return micros / 1_000_000


__all__ = [
    "MANIFEST",
    "REQUESTS",
    "SOURCE",
    "dropped",
    "is_export",
    "owners",
    "read_export",
    "table_files",
]
