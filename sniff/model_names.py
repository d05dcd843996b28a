"""Provides a model's name as tables show it: without its snapshot date.

Why one place: tables name a model by its family (`claude-sonnet-4-5`), JSON by the dated id
the logs give (`claude-sonnet-4-5-20250929`); the terminal tables, the report's latency groups
and the status line must cut the same suffix the same way.
"""

from __future__ import annotations

import re

DATE_STAMP = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
"""A snapshot date at the end of a model's id: `-20250929` or `-2025-08-07`."""


def model_group(model: str) -> str:
    """`claude-sonnet-4-5` for `claude-sonnet-4-5-20250929`; a name without a date as it is."""
    return DATE_STAMP.sub("", model) or model
