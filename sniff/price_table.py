"""Provides per-model price tables read from genai-prices, and their cache on disk.

Why: importing genai-prices and resolving a model's prices takes about half a second, longer
than parsing a day of logs. A model's prices only change at dated steps, so sniff resolves each
model once into a table of periods (start date → per-token rates by long-context tier), stores
the tables in the user's cache folder, and reuses them until the installed genai-prices changes.
The rates in the table are the library's own answers, so the cache holds no price of sniff's.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import msgspec

from sniff import atomic_write
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.paths import price_data_identity

CACHE_FORMAT = 4
CACHE_FILE = "prices.json"


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per token of each class, for one model in one period and long-context tier."""

    input: float
    cache_read: float
    cache_write_5m: float
    cache_write_1h: float
    output: float


@dataclass(frozen=True, slots=True)
class Period:
    """A model's prices from `start` (an ISO date; None = since ever) until the next period."""

    start: str | None
    thresholds: tuple[int, ...]
    """Prompt sizes above which a long-context tier applies, ascending."""
    tiers: tuple[Rates, ...]
    """Rates below the first threshold, then above each threshold."""

    def rates(self, prompt_tokens: int) -> Rates:
        """The rates for a request with this many prompt tokens."""
        if not self.thresholds:
            return self.tiers[0]
        return self.tiers[sum(1 for start in self.thresholds if prompt_tokens > start)]


@dataclass(frozen=True, slots=True)
class PriceTable:
    """All periods of one model, oldest first."""

    periods: tuple[Period, ...]

    def period(self, day: str) -> Period:
        """The period in force on `day` (ISO date, UTC)."""
        starts = [period.start or "" for period in self.periods]
        return self.periods[max(bisect.bisect_right(starts, day) - 1, 0)]


def table_from_library(info: Any) -> PriceTable | None:
    """A model's price table from its genai-prices model info.

    Returns None when its prices depend on more than the date (time-of-day prices), which a
    table of dated periods cannot hold.
    """
    from genai_prices.types import ConditionalPrice, StartDateConstraint

    prices = info.prices
    starts: list[date] = []
    if isinstance(prices, list):
        for conditional in prices:
            assert isinstance(conditional, ConditionalPrice)
            constraint = conditional.constraint
            if isinstance(constraint, StartDateConstraint):
                starts.append(constraint.start_date)
            elif constraint is not None:
                return None
    starts = sorted(set(starts))
    moments = [datetime.combine(day, datetime.min.time(), tzinfo=UTC) for day in starts]
    before = (moments[0] - timedelta(days=1)) if moments else datetime(2000, 1, 1, tzinfo=UTC)
    periods = [period_from_price(None, info.get_prices(before))]
    periods += [
        period_from_price(day.isoformat(), info.get_prices(moment))
        for day, moment in zip(starts, moments, strict=True)
    ]
    return PriceTable(tuple(periods))


def period_from_price(start: str | None, model_price: Any) -> Period:
    """One period's rates, asked of the library one token class and one tier at a time."""
    from genai_prices.types import TieredPrices

    thresholds = sorted(
        {
            tier.start
            for value in vars(model_price).values()
            if isinstance(value, TieredPrices)
            for tier in value.tiers
        }
    )
    sizes = [1] + [start + 1 for start in thresholds]
    return Period(start, tuple(thresholds), tuple(_probe(model_price, n) for n in sizes))


def _probe(model_price: Any, prompt_tokens: int) -> Rates:
    """The library's price of each token class alone, per token, at this prompt size."""
    from genai_prices import Usage as LibraryUsage

    n = prompt_tokens

    def per_token(**usage: int) -> float:
        price: Decimal = model_price.calc_price(LibraryUsage(**usage))["total_price"]
        return float(price / n)

    input_rate = per_token(input_tokens=n)
    return Rates(
        input=input_rate,
        cache_read=per_token(input_tokens=n, cache_read_tokens=n),
        cache_write_5m=per_token(input_tokens=n, cache_write_tokens=n, cache_write_5m_tokens=n),
        cache_write_1h=per_token(input_tokens=n, cache_write_tokens=n, cache_write_1h_tokens=n),
        # Output is priced in the tier of the prompt it answers, so ask with that prompt.
        output=per_token(input_tokens=n, output_tokens=n) - input_rate,
    )


class PriceCache:
    """Price tables of the models seen so far, kept on disk between runs.

    The cache is valid for one installed copy of genai-prices (its data file's size and
    modification time); any other copy or a newer format means starting empty. A file that is
    damaged, too large or no regular file (a FIFO, a link to a device) is not read but written
    anew.
    Writes go to a temporary file renamed into place, so concurrent runs never read half a file.
    """

    def __init__(self, folder: Path | None) -> None:
        self.path = folder / CACHE_FILE if folder else None
        self.identity = _identity()
        self.library = ""
        self.tables: dict[str, PriceTable | None] = {}
        self.dirty = False
        self._load()

    def get(self, model: str) -> PriceTable | None | bool:
        """The model's table, None if it is known to be unpriced, False if not cached."""
        if model in self.tables:
            return self.tables[model]
        return False

    def put(self, model: str, table: PriceTable | None) -> None:
        """Remember a model's table (None: unpriced)."""
        self.tables[model] = table
        self.dirty = True

    def save(self, library: str) -> None:
        """Write the cache if anything was added; failures only cost speed next time."""
        if not self.dirty or self.path is None or self.identity is None:
            return
        kept = _CacheFile(CACHE_FORMAT, self.identity, library, dict(sorted(self.tables.items())))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write.replace(self.path, msgspec.json.encode(kept))
            self.dirty = False
        except OSError:
            pass

    def _load(self) -> None:
        if self.path is None or self.identity is None:
            return
        try:
            kept = msgspec.json.decode(read_regular(self.path, KEPT_FILE_BYTES), type=_CacheFile)
        except FileNotFoundError:
            return
        except (OSError, msgspec.DecodeError):  # damaged, special, or of another format
            self.dirty = True  # never trusted: replaced by what this run prices
            return
        if kept.format == CACHE_FORMAT and kept.identity == self.identity:
            self.tables, self.library = kept.models, kept.library


class _CacheFile(msgspec.Struct, frozen=True):
    """What the cache file holds; its tables are checked against their types when read."""

    format: int
    identity: list[int | str]
    library: str
    models: dict[str, PriceTable | None]


def _identity() -> list[int | str] | None:
    """The price data's identity as the cache file stores it; None: keep no cache."""
    identity = price_data_identity()
    return None if identity is None or identity[1] < 0 else list(identity)
