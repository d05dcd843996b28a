"""Provides the price of a request: per model, per date, per token class, from genai-prices.

Why: prices change (new models, price cuts, long-context tiers, batch variants), so no price is
ever written in sniff's code. genai-prices ships a dated price snapshot inside the package, which
sniff reads offline; it never asks the library to fetch fresh prices.

The library prices one usage at a time and takes a fraction of a millisecond to do it, too slow
for a hundred thousand requests. Cost is linear in tokens within one price period and one
long-context tier, so sniff asks the library for the per-token rate of each class once per
model period and tier (see `price_table`) and multiplies.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

from sniff.errors import UserError
from sniff.model import Cost, Usage
from sniff.paths import cache_folder
from sniff.price_table import (
    Period,
    PriceCache,
    PriceTable,
    Rates,
    period_from_price,
    table_from_library,
)

SYNTHETIC_MODELS = frozenset({"<synthetic>"})
"""Models that name harness-generated messages, never billed."""

PRICE_KEYS = (
    "input_mtok",
    "cache_read_mtok",
    "cache_write_mtok",
    "cache_write_1h_mtok",
    "output_mtok",
)
"""The genai-prices price keys a `--pricing` file may set, in USD per million tokens."""
MAX_PRICE_MTOK = 10_000
"""The highest price a `--pricing` file may set, in USD per million tokens. The priciest model
in genai-prices' data costs $600 (o1-pro's output): this leaves a 16-fold margin for new models
and premium contracts, and still stops what no price can be, like 1e308, whose costs overflow."""

_LIVE = "live"
"""Marks a model whose prices depend on the time of day: resolved per minute, never cached."""


def cost_at(rates: Rates, usage: Usage) -> Cost:
    """Price a usage at these rates."""
    return Cost(
        input_usd=usage.input_tokens * rates.input,
        cache_read_usd=usage.cache_read_tokens * rates.cache_read,
        cache_write_5m_usd=usage.cache_write_5m_tokens * rates.cache_write_5m,
        cache_write_1h_usd=usage.cache_write_1h_tokens * rates.cache_write_1h,
        output_usd=usage.output_tokens * rates.output,
        uncached_usd=usage.prompt_tokens * rates.input + usage.output_tokens * rates.output,
    )


@dataclass(frozen=True, slots=True)
class PriceSource:
    """Where prices came from, for the report's assumptions."""

    library: str
    """`genai-prices <version>`."""
    overrides: tuple[str, ...]
    """Models whose prices came from a `--pricing` file."""


class PriceBook:
    """Looks up rates per model and date, memoized, with optional user overrides."""

    def __init__(
        self, overrides: dict[str, Any] | None = None, cache: PriceCache | None = None
    ) -> None:
        """Create a price book.

        Args:
            overrides: model name → genai-prices `ModelPrice`, from `load_overrides`.
            cache: where price tables persist between runs (default: the user cache folder).
        """
        self._overrides = {name.lower(): price for name, price in (overrides or {}).items()}
        self._cache = cache
        self._tables: dict[str, PriceTable | str | None] = {}
        self._days: dict[tuple[str, Any], Period] = {}
        self._live: dict[str, Any] = {}
        self._library = ""

    @property
    def cache(self) -> PriceCache:
        """The persistent price tables, opened on first use."""
        if self._cache is None:
            self._cache = PriceCache(cache_folder())
        return self._cache

    def rates(
        self, model: str, when: datetime, prompt_tokens: int = 0, provider: str | None = None
    ) -> Rates | None:
        """The rates of `model` at `when` for a prompt of `prompt_tokens`: of the model as the
        price data names it, else of it at the `provider` the log names (`_lookups`).

        Returns None for a model with no known price.
        """
        model = self._named(model, provider)
        moment = when if when.tzinfo is UTC else _utc(when)
        day = moment.date()
        period = self._days.get((model, day))
        if period is None:
            table = self._table(model)
            if table is None:
                return None
            if table == _LIVE:
                return self._live_rates(model, moment, prompt_tokens)
            assert isinstance(table, PriceTable)
            period = self._days[(model, day)] = table.period(day.isoformat())
        return period.rates(prompt_tokens)

    def cost(
        self, model: str, when: datetime, usage: Usage, provider: str | None = None
    ) -> Cost | None:
        """The cost of one request, or None when its model is unpriced."""
        rates = self.rates(model, when, usage.prompt_tokens, provider)
        return None if rates is None else cost_at(rates, usage)

    def is_priced(self, model: str, provider: str | None = None) -> bool:
        """Whether any price is known for `model` (at `provider`)."""
        return self._table(self._named(model, provider)) is not None

    def _named(self, model: str, provider: str | None) -> str:
        """The name `model` is priced under: its own; or, where the price data knows no
        model of that name, `provider/model`, which `_lookups` looks up at that provider (a
        GLM model an agent logged as Z.ai's, a Qwen model as OpenRouter's)."""
        if not provider or "/" in model or self._table(model) is not None:
            return model
        qualified = f"{provider}/{model}"
        return qualified if self._table(qualified) is not None else model

    def prepare(self) -> None:
        """Load price data now, while there is time (e.g. while logs are parsed elsewhere)."""
        if not self.cache.tables:
            self._snapshot()

    def save(self) -> None:
        """Keep newly resolved price tables for the next run."""
        self.cache.save(self.source().library)

    def source(self) -> PriceSource:
        """Name the price data in use."""
        library = self._library or self.cache.library
        if not library:
            from importlib.metadata import version

            library = self._library = f"genai-prices {version('genai-prices')}"
        return PriceSource(library=library, overrides=tuple(sorted(self._overrides)))

    def _table(self, model: str) -> PriceTable | str | None:
        if model in self._tables:
            return self._tables[model]
        override = self._overrides.get(model.lower())
        table: PriceTable | str | None
        if override is not None:
            table = PriceTable((period_from_price(None, override),))
        elif not model or model in SYNTHETIC_MODELS:
            table = None
        else:
            cached = self.cache.get(model)
            if cached is False:
                info = self._find(model)
                table = None if info is None else (table_from_library(info) or _LIVE)
                if table != _LIVE:
                    self.cache.put(model, table if isinstance(table, PriceTable) else None)
                else:
                    self._live[model] = info
            else:
                table = cached if isinstance(cached, PriceTable) else None
        self._tables[model] = table
        return table

    def _find(self, model: str) -> Any:
        snapshot = self._snapshot()
        for model_ref, provider_id in _lookups(model):
            try:
                return snapshot.find_provider_model(model_ref, None, provider_id, None)[1]
            except LookupError:
                continue
        return None

    def _snapshot(self) -> Any:
        from genai_prices.data_snapshot import get_snapshot

        return get_snapshot()

    def _live_rates(self, model: str, moment: datetime, prompt_tokens: int) -> Rates:
        key = (model, moment.replace(second=0, microsecond=0))
        period = self._days.get(key)
        if period is None:
            period = self._days[key] = period_from_price(None, self._live[model].get_prices(moment))
        return period.rates(prompt_tokens)


VENDORS = {"moonshot-ai": "moonshotai", "moonshot": "moonshotai", "kimi": "moonshotai",
           "gemini": "google", "vertex": "google", "mistralai": "mistral", "zhipu": "zhipuai",
           "z-ai": "zai", "xai": "x-ai", "meta-llama": "meta"}  # fmt: skip
"""The names agents give a model's vendor in `vendor/model` ids, as the price data names the
provider (where they differ)."""


def _lookups(model: str) -> Iterator[tuple[str, str | None]]:
    """Where to look a model up, in order: its id as logged, wherever the price data finds it;
    an id of the form `vendor/model` (OpenRouter's, and agents that route through it or name
    the vendor) at OpenRouter, then the model at its vendor, then the model alone."""
    yield model, None
    vendor, slash, name = model.partition("/")
    if slash and name:
        yield model, "openrouter"
        yield name, VENDORS.get(vendor.lower(), vendor.lower())
        yield name, None


def _utc(when: datetime) -> datetime:
    return when.astimezone(UTC) if when.tzinfo else when.replace(tzinfo=UTC)


def load_overrides(path: Path) -> dict[str, Any]:
    """Read a `--pricing` file: per model, prices in USD per million tokens.

    TOML (`[models."name"]` tables) or JSON (`{"models": {"name": {...}}}`), with the keys
    `input_mtok`, `cache_read_mtok`, `cache_write_mtok` (5-minute writes), `cache_write_1h_mtok`
    and `output_mtok`.

    Raises:
        UserError: the file is missing, unreadable or malformed.
    """
    from genai_prices.types import ModelPrice

    from sniff.data_files import read_given

    raw = read_given(path, "pricing file")
    try:
        if path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(raw.decode())
        else:
            data = orjson.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        kind = "TOML" if path.suffix == ".toml" else "JSON"
        raise UserError(f"{path}: not valid {kind}: {error}") from error
    models = data.get("models") if isinstance(data, dict) else None
    if not isinstance(models, dict) or not models:
        raise UserError(f'{path}: expected a "models" table of model names to prices')
    overrides: dict[str, Any] = {}
    for name, prices in models.items():
        if not isinstance(prices, dict):
            raise UserError(f"{path}: prices of {name!r} must be a table")
        unknown = set(prices) - set(PRICE_KEYS)
        if unknown:
            raise UserError(
                f"{path}: unknown price key(s) for {name!r}: {', '.join(sorted(unknown))}"
                f" (known: {', '.join(PRICE_KEYS)})"
            )
        values: dict[str, Decimal] = {}
        for key, value in prices.items():
            # NaN fails both comparisons, infinity the second
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not (0 <= value <= MAX_PRICE_MTOK)
            ):
                raise UserError(
                    f"{path}: {name}.{key} must be a non-negative number of USD per million"
                    f" tokens, at most {MAX_PRICE_MTOK:,} (not {value!r:.40})"
                )
            values[key] = Decimal(str(value))
        if "input_mtok" not in values:
            raise UserError(f"{path}: {name!r} needs at least input_mtok")
        overrides[name] = ModelPrice(**values)
    return overrides
