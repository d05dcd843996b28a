"""Provides `drift_json` (`sniff drift --json`, stable keys) and `sentence`: an event said in
one line, as the table, the JSON and the report all say it."""

from __future__ import annotations

from dataclasses import asdict
from datetime import tzinfo
from typing import Any

from sniff.analyses.drift.events import Event, VersionChange
from sniff.analyses.drift.points import ChangePoint, Side
from sniff.analyses.drift.report import NOTES, DriftReport, VersionSide
from sniff.analyses.drift.series import MEASURES, SEARCHED, Bucket, Measure, Series
from sniff.present.json.common import zone_name

HARNESS_NAMES = {"claude-code": "Claude Code", "codex": "Codex"}
INTERVAL = (
    "95 % normal interval of a ratio estimator (linearised); a session's requests in one "
    "period are one unit"
)


def value_text(measure: Measure, value: float) -> str:
    """A level as it is read: `95.8 %`, `$0.0123`, `1,234 tokens`."""
    if measure.unit == "share":
        return f"{value * 100:.1f} %"
    if measure.unit == "usd":
        return f"${value:,.4f}"
    return f"{value:,.0f} tokens"


def point_text(point: ChangePoint) -> str:
    """`hit rate fell from 95.8 % to 81.2 %`."""
    verb = "rose" if point.change > 0 else "fell"
    where = "" if point.dimension == "overall" else f" ({point.dimension} {point.value})"
    before, after = (value_text(point.measure, side.level) for side in (point.before, point.after))
    return f"{point.measure.label}{where} {verb} from {before} to {after}"


def sentence(event: Event) -> str:
    """The event in a sentence: what moved, when, the version it is attributed to, and what
    else the logs show changed then."""
    shown: dict[str, ChangePoint] = {}
    for point in sorted(event.points, key=lambda p: p.dimension != "overall"):
        shown.setdefault(point.measure.key, point)
    text = " and ".join(point_text(point) for point in shown.values()) + f" on {event.at}"
    if event.attributed is not None:
        text += f", when {version_text(event.attributed)}"
    others = context_phrases(event)
    if others:
        # the context spans the event's periods and the one before, not always its first day
        unit = "week" if "-W" in event.at else "day"
        text += f"; around then (that {unit} or the {unit} before), " + ", ".join(others)
    return text


def version_text(change: VersionChange) -> str:
    """`Claude Code went from 2.1.38 to 2.1.39`."""
    name = HARNESS_NAMES.get(change.harness, change.harness)
    if change.previous is None:
        return f"{name} {change.to} was first seen"
    return f"{name} went from {change.previous} to {change.to}"


def context_phrases(event: Event) -> list[str]:
    """What else changed, in words (only what the logs show)."""
    context, phrases = event.context, []
    for change in context.versions:
        if change != event.attributed:
            phrases.append(version_text(change))
    for server in context.servers_first:
        phrases.append(f"the tools of a new MCP server ({server}) were first used")
    if context.tools_first:
        phrases.append("tools first used: " + ", ".join(context.tools_first))
    phrases.extend(f"{model} was first used" for model in context.models_first)
    phrases.extend(f"{model} was last used" for model in context.models_last)
    if context.system_tokens is not None:
        before, after = context.system_tokens
        verb = "grew" if after > before else "shrank"
        phrases.append(f"the system prompt {verb} from {before:,} to {after:,} tokens")
    return phrases


def drift_json(report: DriftReport, versions: tuple[VersionSide, ...] = ()) -> dict[str, Any]:
    """`sniff drift --json`."""
    return {
        "by": report.by,
        "zone": zone_name(report.zone),
        "requests": report.requests,
        "left_out": report.left_out,
        "rules": asdict(report.rules),
        "interval": INTERVAL,
        "notes": list(NOTES),
        "measures": [asdict(measure) for measure in SEARCHED],
        "summary": [summary_json(series) for series in report.series],
        "series": [series_json(series) for series in report.series],
        "change_points": [point_json(point) for point in report.points],
        "events": [event_json(event, report.zone) for event in report.events],
        "version_compare": [version_json(side) for side in versions] if versions else None,
    }


def levels_json(total: Bucket) -> dict[str, Any]:
    """Each measure's level, interval and requests over `total`."""
    levels: dict[str, Any] = {}
    for measure in MEASURES:
        sums = total.sums_of(measure.key)
        interval = sums.interval()
        levels[measure.key] = {
            "level": sums.level,
            "low": None if interval is None else interval[0],
            "high": None if interval is None else interval[1],
            "requests": sums.requests,
        }
    return levels


def summary_json(series: Series) -> dict[str, Any]:
    """One series over all its periods."""
    total = series.total
    return {
        "dimension": series.dimension,
        "value": series.value,
        "first": series.periods[0],
        "last": series.periods[-1],
        "requests": total.requests,
        "unpriced_requests": total.unpriced,
        "measures": levels_json(total),
        "breaks_by_cause": dict(sorted(total.causes.items())),
    }


def series_json(series: Series) -> dict[str, Any]:
    """One series, period by period."""
    points = []
    for period, bucket in zip(series.periods, series.buckets, strict=True):
        row: dict[str, Any] = {"period": period, "requests": bucket.requests}
        row["unpriced_requests"] = bucket.unpriced
        row.update({m.key: bucket.sums_of(m.key).level for m in MEASURES})
        row["breaks_by_cause"] = dict(sorted(bucket.causes.items()))
        points.append(row)
    return {"dimension": series.dimension, "value": series.value, "points": points}


def side_json(side: Side) -> dict[str, Any]:
    """One side of a change point."""
    return asdict(side)


def point_json(point: ChangePoint) -> dict[str, Any]:
    """One change point."""
    return {
        "measure": point.measure.key,
        "dimension": point.dimension,
        "value": point.value,
        "at": point.at,
        "before": side_json(point.before),
        "after": side_json(point.after),
        "change": point.change,
        "change_low": point.change_low,
        "change_high": point.change_high,
        "penalty": point.penalty,
    }


def event_json(event: Event, zone: tzinfo) -> dict[str, Any]:
    """One event: its moment, each series that moved, its context and attribution."""
    context = event.context
    return {
        "at": event.at,
        "last": event.last,
        "sentence": sentence(event),
        "series": [point_json(point) for point in event.points],
        "context": {
            "versions_first_seen": [change_json(c, zone) for c in context.versions],
            "models_first_used": list(context.models_first),
            "models_last_used": list(context.models_last),
            "tools_first_used": list(context.tools_first),
            "mcp_servers_first_used": list(context.servers_first),
            "system_prompt_tokens": list(context.system_tokens) if context.system_tokens else None,
        },
        "attributed_to": attribution_json(event, zone),
    }


def change_json(change: VersionChange, zone: tzinfo) -> dict[str, Any]:
    """A version first seen (when: in the report's zone)."""
    return {
        "harness": change.harness,
        "from": change.previous,
        "to": change.to,
        "first_seen": change.first_seen.astimezone(zone).isoformat(),
        "share_after": change.share_after,
    }


def attribution_json(event: Event, zone: tzinfo) -> dict[str, Any] | None:
    """The version change an event is put down to, and how sure that is."""
    change = event.attributed
    if change is None:
        return None
    main = next((p for p in event.points if p.dimension == "overall"), event.points[0])
    return {
        "kind": "version",
        **change_json(change, zone),
        "evidence": {
            "measure": main.measure.key,
            "requests_before": main.before.requests,
            "requests_after": main.after.requests,
            "sessions_before": main.before.sessions,
            "sessions_after": main.after.sessions,
            "change_interval": [main.change_low, main.change_high],
            "penalty": main.penalty,
            "series_moved": len(event.points),
        },
    }


def version_json(side: VersionSide) -> dict[str, Any]:
    """One side of `--version-compare`."""
    return {
        "version": side.name,
        "matched": list(side.labels),
        "requests": side.total.requests,
        "unpriced_requests": side.total.unpriced,
        "measures": levels_json(side.total),
    }
