"""Provides `event_json`: one `sniff watch --json` line, an event as a JSON object with stable
keys (every kind has every key, empty where it does not apply)."""

from __future__ import annotations

from typing import Any

from sniff.analyses.live.events import Event


def event_json(event: Event) -> dict[str, Any]:
    """The event as one JSON object with stable keys."""
    return {
        "kind": event.kind,
        "at": event.at.isoformat(),
        "session_id": event.session_id,
        "project": event.project,
        "model": event.model,
        "agent": event.agent,
        "harness": event.harness,
        "tokens": event.tokens,
        "cost_usd": event.cost_usd,
        "cause": event.cause,
        "detail": event.detail,
        "reason": event.reason,
        "idle_minutes": event.idle_minutes,
        "file": event.file,
        "line": event.line,
        "ttft_s": event.ttft_s,
        "tpot_s": event.tpot_s,
        "exact_timing": event.exact,
    }
