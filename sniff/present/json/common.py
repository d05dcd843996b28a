"""Provides the machine-readable form of results: stable keys, for scripts and golden tests."""

from __future__ import annotations

from datetime import tzinfo
from functools import lru_cache
from typing import Any

import orjson

from sniff.analyses.cost.summary import Group, SessionRow, Summary, Totals
from sniff.model import Dataset
from sniff.pricing import PriceSource
from sniff.shown import terminal

MONEY_DIGITS = 6
RATE_DIGITS = 6


def dumps(value: Any, *, compact: bool = False) -> str:
    """Pretty JSON text (`compact`: one line, no spaces, for JSON Lines), every string in it
    (keys too) as text from a log is shown (`sniff.shown.terminal`): JSON escapes ESC, but not
    a key, nor a C1 control."""
    return orjson.dumps(_shown(value), option=0 if compact else orjson.OPT_INDENT_2).decode()


def _shown(value: Any) -> Any:
    if isinstance(value, str):
        return _shown_string(value)
    if isinstance(value, dict):
        return {_shown(key): _shown(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_shown(item) for item in value]
    return value


@lru_cache(maxsize=1 << 16)
def _shown_string(text: str) -> str:
    """Memoized: the same project, model and branch names recur in every row."""
    return terminal(text)


def rounded(value: float | None, digits: int = MONEY_DIGITS) -> float | None:
    """A figure rounded for JSON; None (unknown, unpriced) stays None."""
    return None if value is None else round(value, digits)


def totals_json(totals: Totals) -> dict[str, Any]:
    """The token, cost and cache measures every row shares."""
    return {
        "requests": totals.requests,
        "input_tokens": totals.input_tokens,
        "cache_read_tokens": totals.cache_read_tokens,
        "cache_write_5m_tokens": totals.cache_write_5m_tokens,
        "cache_write_1h_tokens": totals.cache_write_1h_tokens,
        "output_tokens": totals.output_tokens,
        "reasoning_tokens": totals.reasoning_tokens,
        "prompt_tokens": totals.prompt_tokens,
        "total_tokens": totals.total_tokens,
        "cost_usd": rounded(totals.cost),
        "hit_rate": rounded(totals.hit_rate, RATE_DIGITS),
        "savings_usd": rounded(totals.savings),
        "unpriced_requests": totals.unpriced_requests,
    }


def summary_json(summary: Summary, dataset: Dataset, prices: PriceSource) -> dict[str, Any]:
    """`sniff scan --json`."""
    return {
        "totals": totals_json(summary.totals),
        "by_model": groups_json("model", summary.by_model),
        "by_project": groups_json("project", summary.by_project),
        "by_day": groups_json("day", summary.by_day),
        "by_agent": groups_json("agent", summary.by_agent),
        "by_harness": harness_json(summary.by_harness),
        "sessions": [session_json(row) for row in summary.sessions],
        "warnings": warnings_json(summary, dataset),
        "source": source_json(summary, dataset, prices),
    }


def session_json(row: SessionRow) -> dict[str, Any]:
    """One session row."""
    return {
        "session": row.session_id,
        "project": row.project,
        "harness": row.harness,
        "start": row.start.isoformat(),
        "end": row.end.isoformat(),
        "duration_seconds": round(row.duration_seconds, 3),
        "agents": len(row.agents),
        "models": sorted(row.models),
        **totals_json(row.totals),
    }


def warnings_json(summary: Summary, dataset: Dataset) -> dict[str, Any]:
    """What the numbers could not include, or had to assume."""
    return {
        "skipped_lines": len(dataset.skipped),
        "repaired_lines": len(dataset.repaired),
        "unparseable_timestamps": len(dataset.undated),
        "unreadable_files": [issue.file for issue in dataset.unreadable],
        "unknown_format_files": list(dataset.unknown_files),
        "failed_requests": summary.totals.failed_requests,
        "unpriced_models": summary.unpriced_models,
        "ttl_assumed_requests": summary.totals.ttl_assumed,
        "session_totals_only": summary.totals.rollups,
        "files_without_usage": list(dataset.empty_files),
        "synthetic_messages": dataset.synthetic,
    }


def source_json(summary: Summary, dataset: Dataset, prices: PriceSource) -> dict[str, Any]:
    """What was read, over which period, priced with what."""
    from sniff.ingest.parquet_in import dropped

    first, last = summary.totals.first, summary.totals.last
    return {
        "roots": list(dataset.roots),
        "files": len(dataset.files),
        "formats": dict(sorted(dataset.formats.items())),
        "sample_logs": dataset.sample,
        "first": first.isoformat() if first else None,
        "last": last.isoformat() if last else None,
        "prices": prices.library,
        "price_overrides": list(prices.overrides),
        "telemetry": {
            "joined_by_request_id": summary.totals.joined_by_request_id,
            "joined_by_tokens_and_time": summary.totals.joined_by_tokens_and_time,
            "telemetry_only": summary.totals.telemetry_only,
        },
        "proxy": {
            "joined_to_transcripts": summary.totals.proxy_joined,
            "proxy_only": summary.totals.proxy_only,
        },
        "duplicates_dropped": dropped(dataset.files),  # a team folder's, read once
    }


def groups_json(name: str, groups: list[Group]) -> list[dict[str, Any]]:
    """One object a group: its key, named `name`, and its totals."""
    return [{name: group.key, **totals_json(group.totals)} for group in groups]


def harness_json(groups: list[Group]) -> list[dict[str, Any]]:
    """`by_harness`: each agent's totals, with the whole sessions it logged only as totals,
    and what it logged its requests cost beside sniff's cost of the same requests."""
    return [
        {
            **row,
            "session_totals": group.totals.rollups,
            "reported_requests": group.totals.reported_requests,
            "reported_cost_usd": rounded(group.totals.reported_usd)
            if group.totals.reported_requests
            else None,
            "cost_minus_reported_usd": rounded(group.totals.reported_difference),
        }
        for row, group in zip(groups_json("harness", groups), groups, strict=True)
    ]


def zone_name(zone: tzinfo) -> str:
    """The zone's name as a user would type it (in tables and JSON alike)."""
    return str(getattr(zone, "key", None) or zone)
