"""Provides `context_growth`: each session's prompt size over time, and when starting afresh
would have been cheaper than carrying the grown context on.

Why: a long session re-reads its whole context on every request. Cache reads are cheap per
token, but a context that has grown by a hundred thousand tokens is read again on each later
request; a fresh session (a short hand-off written once) would have dropped it.

The rule, per segment of a session's main chain (a compaction starts a new segment, since it
resets the context; subagents are chains of their own and are counted apart):

- the *base* is the short context a fresh session would start from: the segment's first
  request's prompt, or a size the caller gives;
- starting fresh at request k drops what the context carried beyond the base there,
  `carried = prompt[k] - base`, from every later request i of the segment (a fresh session
  grows again as the old one did): `dropped[i] = min(carried, max(prompt[i] - base, 0))`;
- the repeated reads are `reads = sum(dropped[i] * cache_read_price[i])` over the later
  requests (each at its own model's price for its date and prompt size, from the PriceBook);
- the rebuild is `base * cache_write_price[k]` (at request k, the write price of the TTLs the
  session wrote with so far, each by its share of the tokens written; 5 minutes' when none);
- the *crossing* is the first request where `reads > rebuild`; a fresh session started there
  would have saved `reads - rebuild`.

A session with a request of an unpriced model gets no flag, and says which model.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sniff.model import Agent, Harness, Request
from sniff.pricing import PriceBook


@dataclass(frozen=True, slots=True)
class Point:
    """One request of a session's main chain, as the series shows it."""

    key: str
    at: datetime
    prompt_tokens: int
    compacted: bool
    """A compaction came just before it: the context was reset and a new segment starts."""


@dataclass(frozen=True, slots=True)
class Crossing:
    """The request from which a fresh session would have been cheaper, and the computation."""

    index: int
    """Its position in the session's series (0-based)."""
    key: str
    at: datetime
    base_tokens: int
    """The short context a fresh session starts from."""
    prompt_tokens: int
    later_requests: int
    """The requests of its segment after it, whose reads a fresh start would have cut."""
    dropped_tokens: int
    """Sum over those requests of the tokens a fresh start would not have read."""
    reads_usd: float
    """What reading those tokens cost at the cache-read price."""
    rebuild_usd: float
    """What writing the base once costs at the cache-write price."""

    @property
    def carried_tokens(self) -> int:
        """What the context held beyond the base at the crossing."""
        return self.prompt_tokens - self.base_tokens

    @property
    def saved_usd(self) -> float:
        """What a fresh session started here would have saved."""
        return self.reads_usd - self.rebuild_usd


@dataclass(frozen=True, slots=True)
class SessionGrowth:
    """One session's main-chain prompt sizes and, where it grew too far, the crossing."""

    session_id: str
    project: str
    harness: Harness
    points: tuple[Point, ...]
    subagent_requests: int
    """Requests of its subagents, left out of the series."""
    crossing: Crossing | None
    unpriced: str | None = None
    """Why it cannot be judged: a model with no known price (then `crossing` is None)."""

    @property
    def compactions(self) -> int:
        """How many times its context was reset."""
        return sum(point.compacted for point in self.points)

    @property
    def peak_tokens(self) -> int:
        """Its largest prompt."""
        return max((point.prompt_tokens for point in self.points), default=0)


@dataclass(frozen=True, slots=True)
class ContextReport:
    """Every session's growth, the flagged ones first by what a fresh start would save."""

    sessions: tuple[SessionGrowth, ...]
    base_tokens: int | None
    """The base the caller gave; None: each segment's first prompt."""
    min_saving_usd: float = 0.0
    """The least a fresh session must save for its session to be flagged: advice is worth
    giving only where the saving is material."""

    def material(self, session: SessionGrowth) -> bool:
        """Whether `session` crossed, with a saving of at least `min_saving_usd`."""
        crossing = session.crossing
        return crossing is not None and crossing.saved_usd >= self.min_saving_usd

    @property
    def flagged(self) -> tuple[SessionGrowth, ...]:
        """The sessions with a crossing that saves at least `min_saving_usd`."""
        return tuple(session for session in self.sessions if self.material(session))

    @property
    def unpriced(self) -> tuple[SessionGrowth, ...]:
        """The sessions that could not be judged."""
        return tuple(session for session in self.sessions if session.unpriced is not None)


def context_growth(
    requests: Iterable[Request],
    prices: PriceBook,
    base_tokens: int | None = None,
    min_saving_usd: float = 0.0,
) -> ContextReport:
    """Each session's growth (see the module docstring); `base_tokens`: the short context,
    else each segment's first prompt; `min_saving_usd`: the least saving that flags one."""
    by_session: dict[str, list[Request]] = defaultdict(list)
    for request in requests:
        if not request.rollup:
            by_session[request.session_id].append(request)
    grown = [
        session_growth(session_id, chain, prices, base_tokens)
        for session_id, chain in by_session.items()
    ]
    found = [session for session in grown if session.points]
    found.sort(key=_order)
    return ContextReport(tuple(found), base_tokens, min_saving_usd)


def _order(session: SessionGrowth) -> tuple[float, int, str]:
    saved = session.crossing.saved_usd if session.crossing is not None else 0.0
    return (-saved, -session.peak_tokens, session.session_id)


def session_growth(
    session_id: str, requests: Sequence[Request], prices: PriceBook, base_tokens: int | None
) -> SessionGrowth:
    """One session's series and crossing; `requests` are all of its requests."""
    ordered = sorted(requests, key=lambda request: (request.when, request.ended_at, request.key))
    main: list[Request] = []
    resets: list[bool] = []
    pending_reset = False
    for request in ordered:
        if request.agent is Agent.COMPACTION:
            pending_reset = True
        elif request.agent is Agent.MAIN and not request.error and request.usage.prompt_tokens:
            resets.append(pending_reset or request.compacted)
            main.append(request)
            pending_reset = False
    points = tuple(
        Point(request.key, request.when, request.usage.prompt_tokens, reset)
        for request, reset in zip(main, resets, strict=True)
    )
    first = ordered[0]
    subagents = sum(request.agent is Agent.SUBAGENT for request in ordered)
    unpriced = _unpriced(main, prices)
    crossing = None
    if unpriced is None:
        crossing = _first_crossing(main, points, prices, base_tokens)
    return SessionGrowth(
        session_id, first.project, first.harness, points, subagents, crossing, unpriced
    )


def _unpriced(main: Sequence[Request], prices: PriceBook) -> str | None:
    """Why the session cannot be judged: its unpriced models, most used first (None: all
    priced)."""
    missing = Counter(
        request.model
        for request in main
        if prices.rates(request.model, request.when, request.usage.prompt_tokens, request.provider)
        is None
    )
    if not missing:
        return None
    names = ", ".join(name for name, _ in missing.most_common())
    return f"no known price for {names}: its cache reads and writes cannot be priced"


def _segments(points: Sequence[Point]) -> list[range]:
    """The positions of each segment: a compaction starts a new one."""
    if not points:
        return []
    starts = [0] + [i for i, point in enumerate(points) if point.compacted and i > 0]
    ends = starts[1:] + [len(points)]
    return [range(start, end) for start, end in zip(starts, ends, strict=True)]


def _first_crossing(
    main: Sequence[Request], points: Sequence[Point], prices: PriceBook, base_tokens: int | None
) -> Crossing | None:
    """The earliest crossing over the session's segments."""
    for segment in _segments(points):
        base = points[segment.start].prompt_tokens if base_tokens is None else base_tokens
        found = _crossing(main, points, segment, base, prices)
        if found is not None:
            return found
    return None


def _rate(
    request: Request, prompt_tokens: int, prices: PriceBook, written: tuple[int, int] = (0, 0)
) -> tuple[float, float]:
    """The cache-read and cache-write prices of a request's model for a prompt of this size
    (priced: `_unpriced` checked it). The write price is that of the TTLs the session wrote
    with so far (`written`: its 5-minute and 1-hour tokens), each by its share: a session that
    keeps its cache an hour rebuilds at the 1-hour price; one that wrote nothing, at 5 minutes'."""
    rates = prices.rates(request.model, request.when, prompt_tokens, request.provider)
    assert rates is not None
    five, hour = written
    if not five + hour:
        return rates.cache_read, rates.cache_write_5m
    return rates.cache_read, (five * rates.cache_write_5m + hour * rates.cache_write_1h) / (
        five + hour
    )


def _crossing(
    main: Sequence[Request], points: Sequence[Point], segment: range, base: int, prices: PriceBook
) -> Crossing | None:
    """The first request of a segment from which starting afresh would have been cheaper."""
    excess = [max(points[i].prompt_tokens - base, 0) for i in segment]
    reads = [_rate(main[i], points[i].prompt_tokens, prices)[0] for i in segment]
    # an upper bound of the reads from k on, to skip requests that cannot cross
    later_rates = [0.0] * (len(segment) + 1)
    for j in range(len(segment) - 1, -1, -1):
        later_rates[j] = later_rates[j + 1] + reads[j]
    five = hour = 0
    for j, i in enumerate(segment[:-1]):
        carried = excess[j]
        five += main[i].usage.cache_write_5m_tokens
        hour += main[i].usage.cache_write_1h_tokens
        rebuild = base * _rate(main[i], base, prices, (five, hour))[1]
        if carried <= 0 or carried * later_rates[j + 1] <= rebuild:
            continue
        dropped = [min(carried, later) for later in excess[j + 1 :]]
        paid = sum(tokens * rate for tokens, rate in zip(dropped, reads[j + 1 :], strict=True))
        if paid > rebuild:
            point = points[i]
            return Crossing(
                index=i, key=point.key, at=point.at, base_tokens=base,
                prompt_tokens=point.prompt_tokens, later_requests=len(dropped),
                dropped_tokens=sum(dropped), reads_usd=paid, rebuild_usd=rebuild,
            )  # fmt: skip
    return None
