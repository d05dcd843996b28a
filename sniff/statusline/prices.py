"""Provides `CachedPrices`: a price book that knows only the prices kept by earlier runs.

Why: importing the price library and resolving a model costs more than a status line may spend;
`sniff scan` and the other commands keep every model's resolved prices (`price_table.PriceCache`),
so a model missing from them is said unpriced here, never $0.
"""

from __future__ import annotations

from typing import Any

from sniff.pricing import PriceBook, PriceSource


class CachedPrices(PriceBook):
    """A price book that knows only the prices kept on disk by earlier runs."""

    kept_only = True
    """Its parts are kept apart from the price library's (`workspace.parts.KEPT_PRICES`)."""

    def _find(self, model: str) -> Any:
        return None  # not kept: unpriced here, never looked up in the price library

    def prepare(self) -> None:
        """Loads nothing: the price library stays unimported."""

    def save(self) -> None:
        """Keeps nothing: a model missing here is one this run could not price."""

    def source(self) -> PriceSource:
        return PriceSource(library=self.cache.library or "kept prices", overrides=())
