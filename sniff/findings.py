"""Provides lint's findings: `Finding`, its `Severity` and the `Saving` a fix is worth.

Why apart from `sniff.model`: they are not read from logs but made by lint, and the report and
the browser rank them beside cache breaks without depending on lint. Plain frozen dataclasses:
there are few of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


class Severity(IntEnum):
    """How bad a finding is; `--fail-on` compares against it."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        """`info`, `warning` or `error`."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        """A severity from its name (raises KeyError for an unknown one)."""
        return cls[text.upper()]


@dataclass(frozen=True, slots=True)
class Saving:
    """What fixing a finding is worth, from the cache engine's replay."""

    cached_tokens: int
    """More prompt tokens read from cache."""
    usd: float | None
    basis: str
    """What the figure covers, e.g. `these 12 requests` or `per 1,000 calls at 1 call/min`."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem, where it is, why it matters, what to do."""

    rule: str
    severity: Severity
    message: str
    file: str
    line: int = 0
    column: int = 0
    request: str | None = None
    block_path: str | None = None
    evidence: str = ""
    fix: str = ""
    saving: Saving | None = None

    @property
    def where(self) -> str:
        """`file:line:col`, or `file:line request block` for logged requests."""
        place = f"{self.file}:{self.line}:{self.column}" if self.line else self.file
        if self.request:
            place += f" request {self.request}"
        if self.block_path:
            place += f" {self.block_path}"
        return place
