"""Provides the linter's records: prompts as located blocks of text, and findings."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any


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
class LintBlock:
    """One block of a prompt, with where it sits and what it says."""

    path: str
    """Where it sits in the request: `system[0]`, `tools[2]`, `messages[3].content[0]`, ..."""
    kind: str
    """`tool`, `text`, `image`, `tool_use`, `tool_result`, ..."""
    role: str
    """`tools`, `system`, `user` or `assistant`."""
    text: str
    """What the model reads of it (for tools and structured blocks, their JSON)."""
    mark: str | None = None
    """Its cache breakpoint: `5m`, `1h`, or None."""
    raw: Any = None
    """The block as the request holds it (for --fix)."""
    offset: int = -1
    """Where `text` starts in the file it was read from (-1: not known)."""
    key_order: tuple[str, ...] = ()
    """For tools: the order of the schema's keys as written (to spot unstable serialization)."""


@dataclass(frozen=True, slots=True)
class LintPrompt:
    """A prompt to check: a prompt file, a request body, or a logged request."""

    file: str
    blocks: tuple[LintBlock, ...]
    api: str
    """`text` (a plain prompt file), `anthropic-messages`, `openai-chat` or `openai-responses`."""
    model: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    """Request settings that change the cached prefix: tool_choice, thinking, cache key, ..."""
    request: str | None = None
    """The request's id, for logged requests."""
    line: int = 1
    """The line of the file the prompt starts on."""
    session: str | None = None
    started: float | None = None
    body: Any = None
    """The whole request body (for --fix)."""
    source_text: str = ""
    """The file's text, for locating evidence (prompt files only)."""
    index: int | None = None
    """The body's place in a JSON prompt file that is a list of bodies (None: not a list)."""
    cache_usage: int | None = None
    """Prompt tokens the logged response says were read from or written to the cache (None:
    no usage logged: a prompt file, or a call that failed)."""

    @property
    def logged(self) -> bool:
        """A request from a log (one of a chain), not a prompt file."""
        return self.request is not None

    @property
    def from_log(self) -> bool:
        """A request read from a log: one of a chain, with no file text of its own (the bodies
        of a JSON list, also a chain, are a prompt file)."""
        return self.logged and not self.source_text

    def breakpoints(self) -> list[int]:
        """Indexes of the blocks marked as cache breakpoints."""
        return [i for i, block in enumerate(self.blocks) if block.mark]


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
