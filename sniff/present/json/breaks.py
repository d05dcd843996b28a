"""Provides cache breaks as JSON: `sniff scan`'s top breaks and `sniff cache --breaks --json`.

Apart from the terminal tables so that JSON output never imports the terminal renderer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sniff.analyses.cache.breaks import EXPECTED, Break, BreakReport, CauseTotals
from sniff.present.causes import explain
from sniff.present.json.common import rounded

if TYPE_CHECKING:
    from sniff.analyses.cache.ttl_advice import Verdict
    from sniff.analyses.cost.scan_parts import BreakDigest
    from sniff.first_hand import CacheDiagnosis


def top_breaks_json(breaks: BreakDigest) -> dict[str, Any]:
    """The breaks part of `sniff scan --json`."""
    return {
        "count": breaks.faults,
        "cost_usd": round(breaks.cost_usd, 6),
        "expected": breaks.expected,
        "top": [break_json(found) for found in breaks.top],
    }


def breaks_json(report: BreakReport) -> dict[str, Any]:
    """`sniff cache --breaks --json`: every table has the scope of `totals`."""
    return {
        "totals": break_totals_json(report),
        "breaks": [break_json(found) for found in report.breaks],
        "by_cause": by_cause_json(report),
        "by_project": [_totals_json("project", row) for row in report.by_project],
        "by_week": [_totals_json("week", row) for row in report.by_week],
        "gaps": [
            {
                "gap": bucket.label,
                "up_to_seconds": None
                if bucket.upper_seconds is None or bucket.upper_seconds == float("inf")
                else bucket.upper_seconds,
                "requests": bucket.requests,
                **_counts_json(bucket.breaks),
            }
            for bucket in report.gaps
        ],
        "ttl_advice": ttl_advice_json(report),
        "provider_agreement": agreement_json(report),
        "within_tolerance": [
            {
                "request": item.request.key,
                "file": item.request.file,
                "line": item.request.line,
                "drop": item.drop,
                "tolerance": item.tolerance,
            }
            for item in report.tolerated
        ],
    }


def break_totals_json(report: BreakReport) -> dict[str, Any]:
    """How many breaks were faults and how many expected, of which kind, and their costs."""
    return {
        **_counts_json(report.totals),
        "cold_starts": report.expected_count("cold_start"),
        "compactions": report.expected_count("compaction"),
        "thinking_dropped": report.expected_count("thinking_dropped"),
    }


def by_cause_json(report: BreakReport) -> list[dict[str, Any]]:
    """The breaks of each cause that had any, in precedence order."""
    return [
        {
            **_totals_json("cause", row),
            "fault": cause_is_fault(row.key),
            "meaning": explain(row.key),
        }
        for row in report.by_cause
    ]


def ttl_advice_json(report: BreakReport) -> dict[str, Any]:
    """What each provider's longer TTL would have changed, over everything and per session.

    The first five keys are the Anthropic 1-hour TTL's over everything (as they always were);
    `retentions` has one entry per provider's longer TTL, `sessions` the sessions it would
    have spared a break in.
    """
    advice = report.ttl_advice
    hour = advice.of("anthropic")
    return {
        "extra_write_cost_usd": rounded(hour.extra_write_cost_usd) if hour else 0.0,
        "avoided_rebuild_cost_usd": rounded(hour.avoided_rebuild_cost_usd) if hour else 0.0,
        "avoided_breaks": len(hour.spared) if hour else 0,
        "net_saving_usd": rounded(hour.net_saving_usd) if hour else 0.0,
        "recommend_1h": hour is not None and hour.pays,
        "retentions": [verdict_json(verdict) for verdict in advice.retentions],
        "sessions": [verdict_json(verdict) for verdict in advice.sessions],
        "no_setting": [
            {"source": source, "requests": requests} for source, requests in advice.no_setting
        ],
    }


def verdict_json(verdict: Verdict) -> dict[str, Any]:
    """One verdict: a provider's longer TTL over one session (or all of them)."""
    longer = verdict.longer
    return {
        "provider": longer.provider,
        "ttl": longer.ttl,
        "setting": longer.setting,
        **({} if verdict.session is None else {"session": verdict.session}),
        "requests": verdict.requests,
        "unpriced_requests": verdict.unpriced_requests,
        "extra_write_cost_usd": rounded(verdict.extra_write_cost_usd),
        "avoided_rebuild_cost_usd": rounded(verdict.avoided_rebuild_cost_usd),
        "avoided_breaks": len(verdict.spared),
        "avoided_tokens": verdict.avoided_tokens,
        "net_saving_usd": rounded(verdict.net_saving_usd),
        "pays": verdict.pays,
    }


def cause_is_fault(cause: str) -> bool:
    """Whether breaks of this cause are faults (not how caching works)."""
    return cause not in EXPECTED


def break_json(found: Break) -> dict[str, Any]:
    """One break."""
    request = found.request
    return {
        "time": request.when.isoformat(),
        "session": request.session_id,
        "project": request.project,
        "agent": request.agent_id,
        "model": request.model,
        "request": request.key,
        "file": request.file,
        "line": request.line,
        "previous_request": found.previous.key if found.previous else None,
        "gap_seconds": rounded(found.gap_seconds, 3),
        "cause": found.cause,
        "fault": found.fault,
        "expected_read_tokens": found.expected_read,
        "read_tokens": request.usage.cache_read_tokens,
        "rebuilt_tokens": found.rebuilt_tokens,
        "rebuilt_1h_tokens": found.rebuilt_1h_tokens,
        "cost_usd": rounded(found.cost_usd),
        "detail": found.detail,
        "provider_says": None if found.said is None else said_json(found.said),
        "inferred_cause": found.inferred,
    }


def said_json(said: CacheDiagnosis) -> dict[str, Any]:
    """What the provider said of a request's cache."""
    return {
        "provider": said.provider,
        "type": said.kind,
        "reason": said.reason,
        "missed_tokens": said.missed_tokens,
        "reusable_tokens": said.reusable_tokens,
    }


def agreement_json(report: BreakReport) -> list[dict[str, Any]]:
    """sniff's verdict beside the provider's, for each request the provider diagnosed."""
    return [
        {
            "sniff": row.sniff,
            "provider": row.provider,
            "agree": row.agrees,
            "requests": row.requests,
            "missed_tokens": row.missed_tokens,
        }
        for row in report.agreement
    ]


def _totals_json(key: str, row: CauseTotals) -> dict[str, Any]:
    return {key: row.key, **_counts_json(row)}


def _counts_json(row: CauseTotals) -> dict[str, Any]:
    return {
        "breaks": row.breaks,
        "rebuilt_tokens": row.rebuilt_tokens,
        "cost_usd": round(row.cost_usd, 6),
        "faults": row.faults,
        "fault_cost_usd": round(row.fault_cost_usd, 6),
        "expected": row.expected,
        "expected_cost_usd": round(row.expected_cost_usd, 6),
    }
