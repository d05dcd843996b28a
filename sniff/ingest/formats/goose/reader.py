"""Provides the parser of Goose's session database (`sessions.db`, SQLite).

Goose keeps no call's usage: each row of its `sessions` table holds the session's running
totals, `accumulated_input_tokens` / `accumulated_output_tokens` / `accumulated_total_tokens`
(the plain `input_tokens`... columns hold the latest turn's figure, and count only when a row
has no accumulated ones). One `Response` per session, a rollup (`Response.rollup`), dated at
its `created_at` (and `updated_at`, where the row has it). There is no cache split: all input
is counted as uncached. Whatever the total holds beyond input and output is the reasoning, as
peers read it. `accumulated_cost` is Goose's own estimate in dollars (`reported_cost_usd`).

Built from the field guide and schemas peers test against, not from a real database.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from typing import Any

import orjson

from sniff.ingest.agent_format import AgentFormat, Layout
from sniff.ingest.files import sqlite_read
from sniff.ingest.plausible import Implausible, check_date, count
from sniff.ingest.record import TOP_LEVEL, FileResult, Prompts, Response, Tokens, epoch
from sniff.ingest.vendor import vendor_of
from sniff.model import Agent, Harness, LineIssue

SOURCE = "goose"
PROVIDER = "goose"
TABLE = "sessions"
COLUMNS = (
    "id", "working_dir", "created_at", "updated_at", "provider_name", "model_config_json",
    "input_tokens", "output_tokens", "total_tokens", "accumulated_input_tokens",
    "accumulated_output_tokens", "accumulated_total_tokens", "accumulated_cost",
)  # fmt: skip
"""The columns read, where the table has them (they came with Goose's versions)."""
USAGE = frozenset(COLUMNS[6:12])


def claims(tables: frozenset[str]) -> bool:
    """Whether a database is Goose's: its `sessions` beside `messages` or `schema_version`."""
    return TABLE in tables and bool({"messages", "schema_version"} & tables)


def parse(
    path: str, data: bytes, project_hint: str, with_prompts: Prompts = Prompts.NONE
) -> FileResult:
    """Every session's totals (the bytes are not used: the database is opened read-only)."""
    issues: list[LineIssue] = []
    try:
        rows = _rows(path)
    except sqlite3.Error as error:
        problem = LineIssue(path, 0, f"unreadable Goose database: {error}")
        return FileResult([], [problem], 0, SOURCE)
    if rows is None:
        problem = LineIssue(path, 0, "no Goose token columns in its `sessions` table")
        return FileResult([], [problem], 0, SOURCE)
    responses: list[Response] = []
    for number, row in enumerate(rows, start=1):
        try:
            response = _session(path, number, row, project_hint)
        except Implausible as error:
            issues.append(LineIssue(path, number, str(error)))
            continue
        if response is not None:
            responses.append(response)
    return FileResult(responses, issues, 0, SOURCE)


def _rows(path: str) -> list[dict[str, Any]] | None:
    """The `sessions` rows as column → value, in the order Goose wrote them; None when the
    table has no token column Goose writes.

    Raises:
        sqlite3.Error: the database cannot be read.
    """
    with closing(sqlite_read.connect(path)) as connection:
        present = {str(row[1]) for row in connection.execute(f"pragma table_info({TABLE})")}
        if not USAGE & present:
            return None
        wanted = [column for column in COLUMNS if column in present]
        cursor = connection.execute(f"select {', '.join(wanted)} from {TABLE} order by rowid")
        return [dict(zip(wanted, row, strict=True)) for row in cursor]


def _session(path: str, number: int, row: dict[str, Any], project_hint: str) -> Response | None:
    """One row's rollup; None when the session counted no tokens.

    Raises:
        Implausible: a count is no count, or a date no date sniff reads.
    """
    accumulated = any(
        row.get(f"accumulated_{part}_tokens") is not None for part in ("input", "output", "total")
    )
    prefix = "accumulated_" if accumulated else ""
    inputs, output, total = (
        count(row.get(f"{prefix}{part}_tokens")) for part in ("input", "output", "total")
    )
    tokens = Tokens(inputs, 0, 0, 0, output, max(total - inputs - output, 0))
    if not sum(tokens[:5]):
        return None
    created, updated = row.get("created_at"), row.get("updated_at")
    check_date(created)
    check_date(updated)
    model = _model(row.get("model_config_json"))
    provider = str(row.get("provider_name") or vendor_of(model, PROVIDER))
    session = str(row.get("id") or number)
    cost = row.get("accumulated_cost")
    return Response(
        SOURCE,
        f"{SOURCE}:{session}",
        TOP_LEVEL,
        tokens,
        False,
        model,
        provider,
        session,
        Agent.MAIN,
        Agent.MAIN.value,
        str(row.get("working_dir") or project_hint),
        None,
        epoch(updated) or epoch(created),
        epoch(created),
        None,
        path,
        number,
        harness=Harness.GOOSE,
        reasoning_apart=True,
        reported_cost_usd=float(cost) if isinstance(cost, int | float) and cost >= 0 else None,
        rollup=True,
        calls=0,
    )


def _model(config: Any) -> str:
    """`model_config_json.model_name`; `unknown` when the row names none."""
    try:
        value = orjson.loads(config) if isinstance(config, str | bytes) else None
    except orjson.JSONDecodeError:
        value = None
    name = value.get("model_name") if isinstance(value, dict) else None
    return name if isinstance(name, str) and name else "unknown"


FORMATS = (AgentFormat(SOURCE, Layout.DATABASE, claims, parse),)
