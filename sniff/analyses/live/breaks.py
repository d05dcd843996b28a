"""Provides `LiveBreaks`: the cache breaks of a watch's new requests, judged against what each
session's earlier requests keep (`cache.appended`), not against the whole session again.

Why: judging a session's breaks walks every request of it; a watch judged them again after each
response, so on a session of 70,000 requests an event came seconds after its line. A session
whose new requests the kept frontier cannot judge (a new copy of a settled request, a request
continuing one it does not keep) is judged whole, and gets a new frontier: the breaks are
always those of the whole session.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from sniff.analyses.cache.appended import Judged, Refused, judge_appended
from sniff.analyses.cache.break_report import Break
from sniff.analyses.cache.break_rules import CacheRules
from sniff.analyses.cache.chains import Frontier
from sniff.model import Request
from sniff.pricing import PriceBook

EVERYTHING = "<seen>"
"""The one "file" the watch's earlier requests are linked under: the follower merged every
copy already, so no new request is another file's copy of one of them."""


def _nothing() -> Frontier:
    return Frontier([], [], {}, -math.inf, [], {})


class LiveBreaks:
    """Per session, what its requests so far keep for judging the next ones."""

    def __init__(self, prices: PriceBook, rules: CacheRules | None = None) -> None:
        self.prices = prices
        self.rules = rules or CacheRules()
        self.frontiers: dict[str, Frontier] = {}
        self.settled: set[str] = set()
        """`k:` and the key of every request judged for good (none a later line may change):
        a new request continuing one of these that its session's frontier does not keep
        cannot be judged by it (`cache.appended._fits`)."""

    def start(self, requests: Sequence[Request]) -> None:
        """Judge what the logs hold when the watch starts (no break of it is reported)."""
        sessions: dict[str, list[Request]] = {}
        for request in requests:
            sessions.setdefault(request.session_id, []).append(request)
        for session, held in sessions.items():
            self._whole(session, held)

    def step(
        self, session: str, changed: Sequence[Request], whole: Callable[[], Sequence[Request]]
    ) -> list[Break]:
        """The breaks among a session's requests `changed` by a step (new ones, and new copies
        of earlier ones), as judged among all its requests (`whole`, asked only when the kept
        frontier cannot tell)."""
        frontier = self.frontiers.get(session, _nothing())
        linked = {EVERYTHING: self.settled}
        judged = judge_appended(frontier, changed, linked, self.prices, self.rules, _every)
        if isinstance(judged, Refused):
            return self._whole(session, whole())
        self._keep(session, judged, frontier)
        keys = {request.key for request in changed}
        return [found for found in judged.breaks if found.request.key in keys]

    def _whole(self, session: str, requests: Sequence[Request]) -> list[Break]:
        """Judge a session's requests from its start; its breaks."""
        start = _nothing()
        judged = judge_appended(start, requests, {}, self.prices, self.rules, _every)
        assert isinstance(judged, Judged)  # nothing kept to contradict: every request is new
        self._keep(session, judged, start)
        return judged.breaks

    def _keep(self, session: str, judged: Judged, before: Frontier) -> None:
        self.frontiers[session] = judged.frontier(before)
        self.settled.update("k:" + r.key for r in judged.every if r.key not in judged.still)


def _every(_request: Request) -> bool:
    return True
