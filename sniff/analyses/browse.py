"""Provides `Archive`: a dataset analysed once and indexed for browsing, project to request.

Why one object: the browser walks from an archive's totals to a project's sessions, a
session's timeline and one request, and every step must show the same numbers as `sniff scan`
and `sniff cache --breaks`. The analyses run once, here; the views only look things up.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import tzinfo

from sniff.analyses.cache.breaks import Break, BreakReport, Tolerated, chain_links, find_breaks
from sniff.analyses.cost.summary import SessionRow, Summary, Totals, summarize
from sniff.model import Dataset, Request
from sniff.pricing import PriceBook


@dataclass(frozen=True, slots=True)
class BreakCost:
    """The breaks that were someone's fault (expected ones are not) in a group, and their price."""

    count: int = 0
    usd: float = 0.0

    def plus(self, found: Break) -> BreakCost:
        """These and one more break."""
        return BreakCost(self.count + 1, self.usd + (found.cost_usd or 0.0))


@dataclass(frozen=True, slots=True)
class ProjectRow:
    """One project of the archive."""

    project: str
    sessions: int
    totals: Totals
    breaks: BreakCost


@dataclass(frozen=True, slots=True)
class SessionView:
    """One session of a project, with its breaks."""

    row: SessionRow
    breaks: BreakCost


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    """One request of a session's timeline, and what happened to the cache before it."""

    request: Request
    found: Break | None
    """The break this request was, if any (expected ones included)."""
    previous: Request | None
    """The request it continues: the one before it in its chain."""
    gap_seconds: float | None
    """Time since the previous request of its chain started (None: first of its chain)."""
    ttl_seconds: float | None
    """How long the cache the previous request left was kept."""
    shared_tokens: int | None = None
    """The prefix it shares with the previous request: what it should read."""
    tolerated: Tolerated | None = None
    """Its reads dropped, but within the tolerance for the uncached tail."""

    @property
    def idle(self) -> bool:
        """The gap outlived the cache: whatever was cached had expired."""
        return (
            self.gap_seconds is not None
            and self.ttl_seconds is not None
            and self.gap_seconds > self.ttl_seconds
        )


@dataclass(slots=True)
class Archive:
    """Every analysis the browser shows, over one dataset."""

    dataset: Dataset
    zone: tzinfo
    summary: Summary
    breaks: BreakReport
    projects: list[ProjectRow]
    _projects: dict[str, ProjectRow] = field(default_factory=dict)
    _sessions: dict[str, list[SessionView]] = field(default_factory=dict)
    _timelines: dict[str, list[TimelineEntry]] = field(default_factory=dict)
    _entries: dict[str, TimelineEntry] = field(default_factory=dict)
    _by_line: dict[tuple[str, int], str] = field(default_factory=dict)

    @property
    def totals(self) -> Totals:
        """Sums over the whole archive."""
        return self.summary.totals

    @property
    def fault_breaks(self) -> BreakCost:
        """Every break that was a fault."""
        cost = BreakCost()
        for found in self.breaks.breaks:
            if found.fault:
                cost = cost.plus(found)
        return cost

    def project(self, name: str) -> ProjectRow | None:
        """The project of this name, with its totals and breaks (None when not in the archive)."""
        return self._projects.get(name)

    def sessions(self, project: str) -> list[SessionView]:
        """A project's sessions, most expensive first."""
        return self._sessions.get(project, [])

    def timeline(self, session_id: str) -> list[TimelineEntry]:
        """A session's requests in the order they were sent."""
        return self._timelines.get(session_id, [])

    def request(self, key: str) -> Request | None:
        """The request of this key."""
        entry = self._entries.get(key)
        return None if entry is None else entry.request

    def entry(self, key: str) -> TimelineEntry | None:
        """The request of this key with its break, its predecessor and the gap between."""
        return self._entries.get(key)

    def at_line(self, file: str, line: int) -> Request | None:
        """The request kept from this line of this file."""
        key = self._by_line.get((file, line))
        return None if key is None else self.request(key)


def build_archive(dataset: Dataset, prices: PriceBook, zone: tzinfo) -> Archive:
    """Analyse a dataset for browsing: the summary, the breaks, and the indexes."""
    requests = dataset.requests
    summary = summarize(requests, zone)
    report = find_breaks(requests, prices, zone=zone)
    by_request = {found.request.key: found for found in report.breaks}
    links = chain_links(requests)
    tolerated = {item.request.key: item for item in report.tolerated}
    project_breaks: dict[str, BreakCost] = defaultdict(BreakCost)
    session_breaks: dict[str, BreakCost] = defaultdict(BreakCost)
    for found in report.breaks:
        if found.fault:
            request = found.request
            project_breaks[request.project] = project_breaks[request.project].plus(found)
            session_breaks[request.session_id] = session_breaks[request.session_id].plus(found)
    sessions: dict[str, list[SessionView]] = defaultdict(list)
    for row in summary.sessions:
        sessions[row.project].append(SessionView(row, session_breaks[row.session_id]))
    projects = [
        ProjectRow(group.key, len(sessions[group.key]), group.totals, project_breaks[group.key])
        for group in summary.by_project
    ]
    timelines: dict[str, list[TimelineEntry]] = defaultdict(list)
    entries: dict[str, TimelineEntry] = {}
    for request in sorted(requests, key=lambda r: r.when):
        link = links.get(request.key)
        entry = (
            TimelineEntry(request, by_request.get(request.key), None, None, None)
            if link is None
            else TimelineEntry(
                request,
                by_request.get(request.key),
                link.previous,
                link.gap_seconds,
                link.ttl_seconds,
                link.shared_tokens,
                tolerated.get(request.key),
            )
        )
        timelines[request.session_id].append(entry)
        entries[request.key] = entry
    return Archive(
        dataset=dataset,
        zone=zone,
        summary=summary,
        breaks=report,
        projects=projects,
        _projects={row.project: row for row in projects},
        _sessions=dict(sessions),
        _timelines=dict(timelines),
        _entries=entries,
        _by_line={(request.file, request.line): request.key for request in requests},
    )
