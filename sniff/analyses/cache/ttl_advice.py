"""Provides the longer-TTL verdict: whether a provider's longer cache lifetime pays, per session.

Why one module: `sniff cache --breaks` and lint's SN012 both advise a longer TTL, and must give
the same figure for the same session. The verdict follows the provider's own rules (its
`longer_ttl` in `data/cache_policies.toml`): every write of the default TTL priced at the longer
TTL's write price instead (reads unchanged), against the breaks it would have spared, those
after an idle gap longer than the TTL in force but within the longer lifetime, which would have
read what they rebuilt instead of writing it again. Each request is priced at its own model,
date and prompt size. Where the provider sells nothing longer, or the agent tool has no setting
for it (the Codex CLI), there is no verdict.

The figures are built from parts of the logs (`TtlPart`) and summed with `math.fsum`, exact
whatever the order: the verdict over parts joined is the verdict over all their requests.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from typing import TYPE_CHECKING

from sniff.analyses.cache.chains import start_of
from sniff.model import Request
from sniff.price_table import Rates
from sniff.pricing import PriceBook

if TYPE_CHECKING:
    from sniff.analyses.cache.break_report import Break
    from sniff.engine.policies import LongerTtl


@cache
def longer_ttls() -> dict[str, LongerTtl]:
    """Provider → the longer lifetime its bundled policy sells (providers that sell one)."""
    from sniff.engine.policies import load_policies

    return {
        name: policy.longer_ttl
        for name, policy in load_policies().items()
        if policy.longer_ttl is not None
    }


def longer_ttl_for(request: Request) -> LongerTtl | None:
    """The longer lifetime the request could have asked for: its provider's, where its model,
    its date and the tool that sent it allow."""
    return _longer_ttl(request.provider, request.source, request.model, request.when.date())


@cache
def _longer_ttl(provider: str, source: str, model: str, day: date) -> LongerTtl | None:
    longer = longer_ttls().get(provider)
    return longer if longer is not None and longer.offered(source, model, day) else None


@dataclass(slots=True)
class Tally:
    """Requests that could have used a longer TTL, and the parts of its verdict: summed
    exactly (`math.fsum`) when the verdict is made, whatever the order they came in."""

    requests: int = 0
    unpriced: int = 0
    extra: list[float] = field(default_factory=list)
    """What the default TTL's writes would have cost more, each request's (and, less, each
    spared break's writes, which would not have been made)."""
    avoided: list[float] = field(default_factory=list)
    """What each spared break cost more than reads."""
    spared: list[Break] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Count another tally in."""
        self.requests += other.requests
        self.unpriced += other.unpriced
        self.extra += other.extra
        self.avoided += other.avoided
        self.spared += other.spared

    def verdict(self, longer: LongerTtl, session: str | None) -> Verdict:
        """The verdict of these requests (`session` None: every session)."""
        priced = self.requests > self.unpriced
        return Verdict(
            longer,
            session,
            self.requests,
            self.unpriced,
            math.fsum(self.extra) if priced else None,
            math.fsum(self.avoided) if priced else None,
            tuple(sorted(self.spared, key=_in_time)),
        )


@dataclass(frozen=True, slots=True)
class TtlPart:
    """What one part of the logs brings to the advice; parts that share no chain join."""

    writes: dict[tuple[str, str], Tally]
    """(provider, session) → its requests that could have used the provider's longer TTL."""
    spared: list[Break]
    """The breaks a longer TTL would have spared, in the order they were found."""
    no_setting: dict[str, int]
    """Log source → its requests whose provider sells a longer TTL the tool cannot ask for."""


def ttl_part(
    requests: Iterable[Request],
    breaks: Iterable[Break],
    ttl_in_force: Callable[[Break], float],
    prices: PriceBook,
) -> TtlPart:
    """The part of `requests` (those a report covers) and of their `breaks`.

    Args:
        ttl_in_force: how long the cache the break's predecessor left was kept (seconds).
    """
    writes: dict[tuple[str, str], Tally] = {}
    no_setting: dict[str, int] = {}
    for request in requests:
        longer = longer_ttl_for(request)
        if longer is None:
            sold = longer_ttls().get(request.provider)
            if sold is not None and request.source in sold.not_in:
                no_setting[request.source] = no_setting.get(request.source, 0) + 1
            continue
        tally = writes.setdefault((longer.provider, request.session_id), Tally())
        tally.requests += 1
        if not prices.is_priced(request.model, request.provider):
            tally.unpriced += 1
            continue
        written = _default_writes(request, longer)
        if written and longer.write_price:
            rates = prices.rates(
                request.model, request.when, request.usage.prompt_tokens, request.provider
            )
            if rates is not None:
                tally.extra.append(written * _dearer(rates, longer))
    spared = [
        found
        for found in breaks
        if found.cause == "ttl_expired"
        and found.gap_seconds is not None
        and (longer := longer_ttl_for(found.request)) is not None
        and found.gap_seconds <= longer.seconds
        and ttl_in_force(found) < longer.seconds
    ]
    return TtlPart(writes, spared, no_setting)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a longer TTL would have changed for one session, or for every session reported."""

    longer: LongerTtl
    session: str | None
    """None: every session the report covers."""
    requests: int
    unpriced_requests: int
    extra_write_cost_usd: float | None
    """The default TTL's writes paid again at the longer TTL's price (None: none priced)."""
    avoided_rebuild_cost_usd: float | None
    """What the spared breaks cost more than reads (None: none priced)."""
    spared: tuple[Break, ...]
    """The breaks it would have spared, in time order."""

    @property
    def net_saving_usd(self) -> float | None:
        """Rebuilds avoided minus the dearer writes (negative: it would have cost more)."""
        if self.extra_write_cost_usd is None or self.avoided_rebuild_cost_usd is None:
            return None
        return self.avoided_rebuild_cost_usd - self.extra_write_cost_usd

    @property
    def pays(self) -> bool:
        """Whether it would have saved money."""
        net = self.net_saving_usd
        return net is not None and net > 0

    @property
    def avoided_tokens(self) -> int:
        """The tokens the spared breaks rebuilt."""
        return sum(found.rebuilt_tokens for found in self.spared)


@dataclass(frozen=True, slots=True)
class TtlAdvice:
    """What each provider's longer TTL would have changed, over everything and per session."""

    retentions: tuple[Verdict, ...] = ()
    """One per provider whose longer TTL some request could have used, over every session."""
    sessions: tuple[Verdict, ...] = ()
    """The sessions with a break it would have spared, the best net saving first."""
    no_setting: tuple[tuple[str, int], ...] = ()
    """(log source, requests) of tools that cannot ask for their provider's longer TTL."""

    def of(self, provider: str) -> Verdict | None:
        """The verdict over every session for `provider`'s longer TTL, if any applies."""
        return next((v for v in self.retentions if v.longer.provider == provider), None)


def join(parts: Sequence[TtlPart]) -> TtlPart:
    """The parts as one (their sets must share no chain)."""
    writes: dict[tuple[str, str], Tally] = {}
    no_setting: dict[str, int] = {}
    for part in parts:
        for key, tally in part.writes.items():
            writes.setdefault(key, Tally()).add(tally)
        for source, count in part.no_setting.items():
            no_setting[source] = no_setting.get(source, 0) + count
    spared = [found for part in parts for found in part.spared]
    return TtlPart(writes, spared, no_setting)


def advise(part: TtlPart, prices: PriceBook) -> TtlAdvice:
    """The verdicts of a part (or of parts joined)."""
    spared: dict[tuple[str, str], list[Break]] = {}
    for found in part.spared:
        longer = longer_ttl_for(found.request)
        assert longer is not None  # a spared break's request could have used it
        spared.setdefault((longer.provider, found.request.session_id), []).append(found)
    sessions: list[Verdict] = []
    everything: dict[str, Tally] = {}
    for provider, session in sorted(part.writes):
        tally, longer = part.writes[(provider, session)], longer_ttls()[provider]
        its = spared.get((provider, session), [])
        sums = Tally(
            tally.requests,
            tally.unpriced,
            [*tally.extra, *(-_rewritten(b, longer, prices) for b in its)],
            [b.cost_usd or 0.0 for b in its],
            its,
        )
        if its:
            sessions.append(sums.verdict(longer, session))
        everything.setdefault(provider, Tally()).add(sums)
    retentions = tuple(sums.verdict(longer_ttls()[p], None) for p, sums in everything.items())
    sessions.sort(key=lambda v: (-(v.net_saving_usd or 0.0), v.session or ""))
    return TtlAdvice(retentions, tuple(sessions), tuple(sorted(part.no_setting.items())))


def _default_writes(request: Request, longer: LongerTtl) -> int:
    """The tokens the request wrote at the default TTL: the price class the longer TTL
    replaces names the token class (`cache_write_5m` → `cache_write_5m_tokens`)."""
    if not longer.instead_of:
        return 0
    tokens: int = getattr(request.usage, f"{longer.instead_of}_tokens")
    return tokens


def _dearer(rates: Rates, longer: LongerTtl) -> float:
    """What a token written at the longer TTL costs more than at the default one."""
    dearer: float = getattr(rates, longer.write_price) - getattr(rates, longer.instead_of)
    return dearer


def _rewritten(found: Break, longer: LongerTtl, prices: PriceBook) -> float:
    """The dearer writes a spared break does not make: what it rebuilt at the default TTL is
    read instead (the rest of its rebuild was 1-hour writes, or uncached input)."""
    request = found.request
    if not longer.write_price:
        return 0.0
    rates = prices.rates(request.model, request.when, request.usage.prompt_tokens, request.provider)
    if rates is None:
        return 0.0
    tokens = min(found.rebuilt_tokens - found.rebuilt_1h_tokens, _default_writes(request, longer))
    return tokens * _dearer(rates, longer)


def _in_time(found: Break) -> tuple[float, str]:
    return (start_of(found.request), found.request.key)
