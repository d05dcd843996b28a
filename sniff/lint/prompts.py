"""Provides the prompts lint checks: each a located sequence of blocks of text."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sniff.model import Block


@dataclass(frozen=True, slots=True)
class LintBlock:
    """One block of a prompt as lint reads it: the record's `Block` (read with its text and
    place, `Prompts.TEXT`), the text compared, and where it sits in its prompt file."""

    block: Block
    text: str
    """What the model reads of it (for tools and structured blocks, their JSON; a tool's with
    sorted keys, so that its key order alone does not make it another tool)."""
    offset: int = -1
    """Where `text` starts in the file it was read from (-1: not known)."""

    @property
    def path(self) -> str:
        """Where it sits in the request: `system[0]`, `tools[2]`, `messages[3].content[0]`."""
        return self.block.path or ""

    @property
    def kind(self) -> str:
        """`tool`, `text`, `image`, `tool_use`, `tool_result`, ..."""
        return self.block.kind

    @property
    def role(self) -> str:
        """`tools`, `system`, `user` or `assistant`."""
        return self.block.role

    @property
    def mark(self) -> str | None:
        """Its cache breakpoint: `5m`, `1h`, or None."""
        return self.block.cache_control


def lint_block(block: Block) -> LintBlock:
    """A block read with its text as lint compares it: a tool definition by its sorted JSON
    (its text as written, `block.text`, tells its key order)."""
    text = block.text or ""
    if (block.path or "").startswith("tools["):
        text = json.dumps(json.loads(text), sort_keys=True)
    return LintBlock(block, text)


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
    helper: bool = False
    """A logged call the harness made for itself (a compaction's summary, a title, a quota
    probe): not a prompt the user wrote or can change."""

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
