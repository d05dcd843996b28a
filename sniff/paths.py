"""Provides `cache_folder`: the one folder where sniff keeps what it can always make again.

The index, the kept answers, the price tables resolved from genai-prices and the tokenizer's
verified encoding live under it. `SNIFF_CACHE_DIR` names another folder (set empty: keep
nothing); else it is the user's cache folder, where the platform puts those (platformdirs).
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_folder() -> Path | None:
    """The user's cache folder for sniff (`SNIFF_CACHE_DIR` overrides; empty disables)."""
    configured = os.environ.get("SNIFF_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sniff", appauthor=False))
