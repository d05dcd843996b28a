"""Provides `drift_events`: simultaneous change points grouped into events, with what else the
logs show changed then, and the version change an event is attributed to.

An event is one moment: change points of any series whose periods are the same or adjacent
(a step that straddles midnight lands on either day) are one event, listed together. What else
changed is read from the user's own logs only, over the event's periods: versions first seen
(and the period before the first: a change point at day D says the level moved between D−1
and D), models first and last used, tools and MCP servers (`mcp__<server>__<tool>`) first used,
and the median size of the system prompt where the logs hold prompts. A transcript holds the
tools used, not the tool list: "first used" is all it can say.

An event is attributed to a version change when a version was first seen in its window and
carries most of its harness's requests after it; the evidence (requests on each side, the
intervals, the penalty) goes with it. No list of versions is shipped: nothing is known here
that the logs did not show.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from sniff.analyses.cost.summary import LocalDays
from sniff.analyses.drift.part import DriftPart
from sniff.analyses.drift.points import ChangePoint
from sniff.analyses.drift.series import UNKNOWN_VERSION, Series, week_of_day

SYSTEM_CHANGE = 0.1
"""A system prompt whose median size moved by at least 10 % has changed."""


@dataclass(frozen=True, slots=True)
class VersionChange:
    """A harness's version first seen: `to`, after `previous` (its most used before)."""

    harness: str
    previous: str | None
    to: str
    first_seen: datetime
    share_after: float
    """The share of the harness's requests after the event made by the new version."""


@dataclass(frozen=True, slots=True)
class Context:
    """What else changed in an event's periods, as the logs show it."""

    versions: tuple[VersionChange, ...] = ()
    models_first: tuple[str, ...] = ()
    models_last: tuple[str, ...] = ()
    tools_first: tuple[str, ...] = ()
    servers_first: tuple[str, ...] = ()
    system_tokens: tuple[int, int] | None = None
    """The median system-prompt size before and after, where it moved."""


@dataclass(frozen=True, slots=True)
class Event:
    """One moment at which one or more series moved."""

    at: str
    """The first period of the new levels."""
    last: str
    points: tuple[ChangePoint, ...]
    context: Context
    attributed: VersionChange | None


@dataclass(frozen=True, slots=True)
class Sources:
    """What an event's context is read from: the series, the part they were made of, their
    periods (`drift.BY`) and the zone of their days."""

    series: list[Series]
    part: DriftPart
    by: str
    zone: tzinfo

    def period(self, day: str) -> str:
        """The period a day falls in: itself, or its week."""
        return day if self.by == "day" else week_of_day(day)

    def period_at(self, moment: float) -> str:
        """The period a moment (POSIX time) falls in."""
        return self.period(LocalDays(self.zone)(datetime.fromtimestamp(moment, UTC)))


def drift_events(points: list[ChangePoint], sources: Sources) -> list[Event]:
    """The events of `points` (oldest first), each with its context and attribution."""
    overall = next(s for s in sources.series if s.dimension == "overall")
    position = {period: index for index, period in enumerate(overall.periods)}
    groups: list[list[ChangePoint]] = []
    for point in sorted(points, key=lambda p: position[p.at]):
        if groups and position[point.at] - position[groups[-1][0].at] <= 1:
            groups[-1].append(point)
        else:
            groups.append([point])
    events = []
    for group in groups:
        first = position[group[0].at]
        last = max(position[point.at] for point in group)
        window = overall.periods[max(first - 1, 0) : last + 1]
        context = _context(sources, overall, window, first)
        # a version, not a harness appearing: one its harness ran before, and most of it after
        known = [v for v in context.versions if v.previous and v.to != UNKNOWN_VERSION]
        attributed = max(known, key=lambda v: v.share_after, default=None)
        if attributed is not None and attributed.share_after < 0.5:
            attributed = None
        events.append(Event(group[0].at, overall.periods[last], tuple(group), context, attributed))
    return events


def _context(sources: Sources, overall: Series, window: tuple[str, ...], first: int) -> Context:
    own = set(window[1:]) if first > 0 else set(window)
    ends = (overall.periods[0], overall.periods[-1])
    models = [s for s in sources.series if s.dimension == "model" and s.value]
    tools, servers = _tools_first(sources.part.tools_first, sources.period_at, own)
    return Context(
        versions=_versions(sources, overall, set(window), first),
        models_first=tuple(s.value or "" for s in models if s.periods[0] in own - {ends[0]}),
        models_last=tuple(s.value or "" for s in models if s.periods[-1] in own - {ends[1]}),
        tools_first=tools,
        servers_first=servers,
        system_tokens=_system(
            sources.part.system, sources.period, overall.periods[max(first - 1, 0) : first + 1]
        ),
    )


def _versions(
    sources: Sources, overall: Series, window: set[str], first: int
) -> tuple[VersionChange, ...]:
    start = overall.periods[0]
    versions = [s for s in sources.series if s.dimension == "version"]
    new = [s for s in versions if s.periods[0] in window and s.periods[0] != start]
    if not new:
        return ()
    after = set(overall.periods[first:])
    changes = []
    for series in new:
        harness, _, version = (series.value or "").partition(" ")
        own = next(s for s in sources.series if s.dimension == "harness" and s.value == harness)
        seen = datetime.fromtimestamp(sources.part.first_seen[series.value or ""], UTC)
        others = [s for s in versions if s is not series and s.value and _of(s.value, harness)]
        later = sum(_requests_in(own, after))
        share = sum(_requests_in(series, after)) / later if later else 0.0
        previous = _in_use_before(others, series.periods[0])
        changes.append(VersionChange(harness, previous, version, seen, share))
    return tuple(sorted(changes, key=lambda change: change.first_seen))


def _of(label: str, harness: str) -> bool:
    """Whether a version label is of `harness`, and names a version."""
    name, _, version = label.partition(" ")
    return name == harness and version != UNKNOWN_VERSION


def _requests_in(series: Series, periods: set[str]) -> list[int]:
    return [b.requests for p, b in zip(series.periods, series.buckets, strict=True) if p in periods]


def _in_use_before(others: list[Series], period: str) -> str | None:
    """The version (of the harness's other ones) with most requests in the last period up to
    `period` (the new version's first) in which any of them ran."""
    last = max((p for s in others for p in s.periods if p <= period), default=None)
    if last is None:
        return None
    used = [(sum(_requests_in(s, {last})), s.value or "") for s in others]
    requests, label = max(used)
    return label.partition(" ")[2] if requests else None


def _tools_first(
    first_calls: Mapping[str, float], period_at: Callable[[float], str], own: set[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The tools (MCP servers apart) first used in the periods `own`, the first period of
    the logs left out (everything is new there)."""
    first: dict[str, float] = {}
    for name, at in first_calls.items():
        if name.startswith("mcp__") and name.count("__") >= 2:
            name = "mcp:" + name.split("__")[1]  # a server is new when its first tool is
        if name not in first or at < first[name]:
            first[name] = at
    if not first:
        return (), ()
    start = period_at(min(first.values()))
    new = [name for name, at in first.items() if period_at(at) in own - {start}]
    servers = sorted(name[4:] for name in new if name.startswith("mcp:"))
    return tuple(sorted(n for n in new if not n.startswith("mcp:"))), tuple(servers)


def _system(
    system: Mapping[str, Mapping[int, int]], period: Callable[[str], str], pair: tuple[str, ...]
) -> tuple[int, int] | None:
    if len(pair) != 2:
        return None
    sizes: dict[str, list[int]] = {pair[0]: [], pair[1]: []}
    for day, counts in system.items():
        held = sizes.get(period(day))
        if held is not None:
            for size, requests in counts.items():
                held.extend([size] * requests)
    if not sizes[pair[0]] or not sizes[pair[1]]:
        return None
    before, after = (int(statistics.median(sizes[p])) for p in pair)
    if abs(after - before) < SYSTEM_CHANGE * max(before, 1):
        return None
    return (before, after)
