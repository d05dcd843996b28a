"""Provides the export's tables: requests, sessions, breaks and prompt blocks as Arrow tables,
and requests (with their blocks) read back from them; and the tool calls' table, which the
Python API shows (`Workspace.tools`) and the export does not write.

Why read back: an export directory is merged into, not overwritten. Exporting another folder
(or another machine's logs) into it reads the requests already there, keeps one row per request
key, and derives sessions and breaks again from the union, so nothing is counted twice.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import pyarrow as pa
from msgspec.structs import asdict

from sniff.analyses.agents.activity import ToolUse
from sniff.analyses.cache.breaks import Break
from sniff.analyses.cost.summary import SessionRow
from sniff.model import Agent, Block, Cost, Harness, Reported, Request, Usage
from sniff.redact_secrets import redact_secrets

TIME = pa.timestamp("us", tz="UTC")
TOKENS = [
    (f"{kind}_tokens", pa.int64())
    for kind in ("input", "cache_read", "cache_write_5m", "cache_write_1h", "output")
]
"""The token columns of requests and sessions, in `Usage`'s classes."""

REQUESTS = pa.schema(
    [
        ("key", pa.string()),
        ("day", pa.string()),
        ("source", pa.string()),
        ("provider", pa.string()),
        ("model", pa.string()),
        ("project", pa.string()),
        ("session_id", pa.string()),
        ("agent", pa.string()),
        ("agent_id", pa.string()),
        ("started_at", TIME),
        ("first_token_at", TIME),
        ("ended_at", TIME),
        *TOKENS,
        ("reasoning_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("input_usd", pa.float64()),
        ("cache_read_usd", pa.float64()),
        ("cache_write_5m_usd", pa.float64()),
        ("cache_write_1h_usd", pa.float64()),
        ("output_usd", pa.float64()),
        ("uncached_usd", pa.float64()),
        ("ttl_assumed", pa.bool_()),
        ("error", pa.string()),
        ("version", pa.string()),
        ("previous", pa.string()),
        ("opens_turn", pa.bool_()),
        ("thinks", pa.bool_()),
        ("compacted", pa.bool_()),
        ("file", pa.string()),
        ("line", pa.int64()),
        ("harness", pa.string()),
        ("reported_cost_usd", pa.float64()),
        ("reported_units", pa.float64()),
        ("reported_unit", pa.string()),
        ("rollup", pa.bool_()),
        ("calls", pa.int64()),
        ("reasoning_apart", pa.bool_()),
        ("git_branch", pa.string()),
        ("repository", pa.string()),
        ("visible_at", TIME),
        ("thinking_share", pa.float64()),
        ("first_hand", pa.struct([
            ("joined_by", pa.string()), ("ttft", pa.bool_()),
            ("estimated_started_at", pa.float64()), ("estimated_first_at", pa.float64()),
            ("estimated_ended_at", pa.float64()),
        ])),
        ("cache_diagnosis", pa.struct([
            ("provider", pa.string()), ("kind", pa.string()), ("missed_tokens", pa.int64()),
            ("reason", pa.string()), ("reusable_tokens", pa.int64()),
        ])),
        ("machine", pa.string()),
        ("user", pa.string()),
    ]
)  # fmt: skip
"""One row per API call (or, `rollup`, a session's totals as its agent logged them). `day` is
the UTC day of `ended_at` (the partition). `machine` and `user`: who exported the row to a team
folder (`sniff export --team`); null in an export of one machine's, and in older ones."""

SESSIONS = pa.schema(
    [
        ("session_id", pa.string()),
        ("day", pa.string()),
        ("project", pa.string()),
        ("harness", pa.string()),
        ("start", TIME),
        ("end", TIME),
        ("requests", pa.int64()),
        ("agents", pa.string()),
        ("models", pa.string()),
        *TOKENS,
        ("cost_usd", pa.float64()),
        ("uncached_usd", pa.float64()),
        ("unpriced_requests", pa.int64()),
    ]
)
"""One row per session. `day` is the UTC day of its start."""

BREAKS = pa.schema(
    [
        ("request_key", pa.string()),
        ("day", pa.string()),
        ("previous_key", pa.string()),
        ("cause", pa.string()),
        ("fault", pa.bool_()),
        ("gap_seconds", pa.float64()),
        ("expected_read_tokens", pa.int64()),
        ("rebuilt_tokens", pa.int64()),
        ("rebuilt_1h_tokens", pa.int64()),
        ("cost_usd", pa.float64()),
        ("detail", pa.string()),
    ]
)
"""One row per cache break (cold starts included, `fault` false)."""

BLOCKS = pa.schema(
    [
        ("request_key", pa.string()),
        ("day", pa.string()),
        ("position", pa.int64()),
        ("kind", pa.string()),
        ("role", pa.string()),
        ("content_hash", pa.string()),
        ("tokens", pa.int64()),
        ("cache_control", pa.string()),
    ]
)
"""One row per prompt block, for requests whose log holds the prompt."""

TOOLS = pa.schema(
    [
        ("tool_use_id", pa.string()),
        ("day", pa.string()),
        ("at", TIME),
        ("session_id", pa.string()),
        ("project", pa.string()),
        ("request_key", pa.string()),
        ("tool", pa.string()),
        ("server", pa.string()),
        ("outcome", pa.string()),
        ("error_class", pa.string()),
        ("result_tokens", pa.int64()),
        ("result_tokens_exact", pa.bool_()),
    ]
)
"""One row per tool call (`analyses.agents.activity.ToolUse`). `day` is the UTC day of `at`
(null, as `at` is, when the log does not date the call)."""


NAMED = ("project", "git_branch", "repository", "file", "model", "agent_id", "error", "detail",
         "tool", "server")  # fmt: skip
"""The text columns that come from a log: a credential in one (a branch named after a key, a
key in a path) is redacted before it is written, as in every output of sniff's."""


@lru_cache(maxsize=1 << 16)
def _redacted(text: str) -> str:
    """Memoized: the same names recur in every row."""
    return redact_secrets(text)


def _named(row: dict[str, Any]) -> dict[str, Any]:
    """`row` with its `NAMED` texts redacted."""
    for column in NAMED:
        value = row.get(column)
        if isinstance(value, str):
            row[column] = _redacted(value)
    return row


def utc_day(moment: datetime) -> str:
    """The partition a moment falls in: its UTC day, the same on every machine."""
    return moment.astimezone(UTC).date().isoformat()


def requests_table(requests: Sequence[Request]) -> pa.Table:
    """The requests, one row each: their fields, usage and cost under the columns' names."""
    rows = []
    for r in requests:
        cost = {} if r.cost is None else {"cost_usd": r.cost.total_usd, **asdict(r.cost)}
        units = {} if r.reported_units is None else {
            "reported_units": r.reported_units.value, "reported_unit": r.reported_units.unit
        }  # fmt: skip
        row = {**asdict(r), **asdict(r.usage), **cost, **units, "day": utc_day(r.ended_at)}
        for name in ("first_hand", "cache_diagnosis"):  # what the agent or provider said
            row[name] = None if row[name] is None else asdict(row[name])
        rows.append(_named(row))
    return pa.Table.from_pylist(rows, schema=REQUESTS)


def sessions_table(sessions: Iterable[SessionRow]) -> pa.Table:
    """The sessions, one row each."""
    rows = []
    for s in sessions:
        t = s.totals
        rows.append(
            _named({
                "session_id": s.session_id,
                "day": utc_day(s.start),
                "project": s.project,
                "harness": s.harness,
                "start": s.start,
                "end": s.end,
                "requests": t.requests,
                "agents": ",".join(sorted(s.agents)),
                "models": ",".join(sorted(s.models)),
                "input_tokens": t.input_tokens,
                "cache_read_tokens": t.cache_read_tokens,
                "cache_write_5m_tokens": t.cache_write_5m_tokens,
                "cache_write_1h_tokens": t.cache_write_1h_tokens,
                "output_tokens": t.output_tokens,
                "cost_usd": t.cost,  # None, not $0, when no request of it is priced
                "uncached_usd": t.uncached_usd,
                "unpriced_requests": t.unpriced_requests,
            })
        )  # fmt: skip
    rows.sort(key=lambda row: (row["start"], row["session_id"]))
    return pa.Table.from_pylist(rows, schema=SESSIONS)


def breaks_table(breaks: Iterable[Break]) -> pa.Table:
    """The cache breaks, one row each."""
    rows = [
        _named(
            {
                "request_key": b.request.key,
                "day": utc_day(b.request.ended_at),
                "previous_key": None if b.previous is None else b.previous.key,
                "cause": b.cause,
                "fault": b.fault,
                "gap_seconds": b.gap_seconds,
                "expected_read_tokens": b.expected_read,
                "rebuilt_tokens": b.rebuilt_tokens,
                "rebuilt_1h_tokens": b.rebuilt_1h_tokens,
                "cost_usd": b.cost_usd,
                "detail": b.detail,
            }
        )
        for b in sorted(breaks, key=lambda b: (b.request.ended_at, b.request.key))
    ]
    return pa.Table.from_pylist(rows, schema=BREAKS)


def blocks_table(requests: Sequence[Request]) -> pa.Table:
    """The prompt blocks of the requests that have them, in prompt order."""
    rows = [
        {**asdict(block), "request_key": r.key, "day": utc_day(r.ended_at), "position": position}
        for r in requests
        for position, block in enumerate(r.blocks)
    ]
    return pa.Table.from_pylist(rows, schema=BLOCKS)


def tools_table(uses: Iterable[ToolUse]) -> pa.Table:
    """The tool calls, one row each, in the order given."""
    rows = [
        _named(
            {
                "tool_use_id": use.call.id,
                "day": None if use.at is None else utc_day(use.at),
                "at": use.at,
                "session_id": use.call.session_id,
                "project": use.call.project,
                "request_key": use.call.key,
                "tool": use.call.name,
                "server": use.server,
                "outcome": use.outcome,
                "error_class": use.error_class,
                "result_tokens": use.result_tokens,
                "result_tokens_exact": use.exact,
            }
        )
        for use in uses
    ]
    return pa.Table.from_pylist(rows, schema=TOOLS)


def read_requests(requests: pa.Table, blocks: pa.Table | None) -> list[Request]:
    """Requests (with their prompt blocks) from exported tables."""
    prompts: dict[str, list[tuple[int, Block]]] = defaultdict(list)
    if blocks is not None:
        for row in blocks.to_pylist():
            block = Block(
                row["kind"], row["role"], row["content_hash"], row["tokens"], row["cache_control"]
            )
            prompts[row["request_key"]].append((row["position"], block))
    found = []
    for row in requests.to_pylist():
        ordered = tuple(block for _, block in sorted(prompts.get(row["key"], [])))
        found.append(_request(row, ordered))
    return found


def _request(row: dict[str, Any], blocks: tuple[Block, ...]) -> Request:
    cost = None
    if row["cost_usd"] is not None:
        cost = Cost(**{name: row[name] for name in Cost.__struct_fields__})
    usage = Usage(**{name: row[name] for name in Usage.__struct_fields__})
    columns = {name: _aware(row[name]) for name in Request.__struct_fields__ if name in row}
    return Request(
        **columns
        | {
            "agent": Agent(row["agent"]),
            "usage": usage,
            "cost": cost,
            "blocks": blocks,
            # exports written before these columns existed read as False
            "opens_turn": bool(row.get("opens_turn")),
            "thinks": bool(row.get("thinks")),
            "compacted": bool(row.get("compacted")),
            **_agent_fields(row),
            **first_hand_fields(row),
        }
    )


def first_hand_fields(row: dict[str, Any]) -> dict[str, Any]:
    """What the agent and the provider said of a row's call, as `parquet_in` reads it."""
    from sniff.ingest.parquet_in import said

    return said(row)


def _agent_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The harness and the agent's own figures of a row, as `parquet_in` reads them."""
    from sniff.ingest.parquet_in import agent_fields
    from sniff.ingest.record import HARNESS_OF

    fields = agent_fields(row)
    harness = fields["harness"] or HARNESS_OF.get(row["source"], Harness.API)
    units = fields["reported_units"]
    return fields | {"harness": harness, "reported_units": units and Reported(*units)}


def _aware(moment: Any) -> Any:
    """Arrow gives back UTC times; make sure they say so (other values pass as they are)."""
    if isinstance(moment, datetime) and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment
