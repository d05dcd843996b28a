"""Provides a model's name as tables show it: without its snapshot date.

Why one place: tables name a model by its family (`claude-sonnet-4-5`), JSON by the dated id
the logs give (`claude-sonnet-4-5-20250929`); the terminal tables, the report's latency groups
and the status line must cut the same suffix the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

DATE_STAMP = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
"""A snapshot date at the end of a model's id: `-20250929` or `-2025-08-07`."""


def model_group(model: str) -> str:
    """`claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`; a name without a date as it is."""
    return DATE_STAMP.sub("", model) or model


def table_names(models: Sequence[str]) -> list[str]:
    """Each model's name as a table shows it: without its date, except where two models of a
    table would then read the same (those keep their dated ids)."""
    undated = [model_group(model) for model in models]
    counts = Counter(model_group(model) for model in set(models))  # distinct names only
    return [
        short if counts[short] == 1 else model for model, short in zip(models, undated, strict=True)
    ]
