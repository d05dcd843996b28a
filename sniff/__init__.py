"""sniff: what AI coding agents cost, whether prompt caching works, and what breaks it."""

from __future__ import annotations

__version__ = "0.1.0"
