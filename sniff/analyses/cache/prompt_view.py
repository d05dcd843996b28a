"""Provides `prompt_view`: a logged prompt's blocks, what the cache did with each, what changed.

Why from usage: a provider reports only how many prompt tokens it read from cache, wrote to it
and left uncached, in that order from the start of the prompt. Laying the blocks out along the
prompt, in tokens scaled to the reported total, tells which blocks were read, written or missed;
comparing block hashes with the previous request tells which block broke the prefix.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sniff.model import Block, Request


class CacheState(StrEnum):
    """What the cache did with a block."""

    READ = "read"
    WRITTEN = "written"
    UNCACHED = "uncached"


@dataclass(frozen=True, slots=True)
class BlockRow:
    """One block of the prompt, in order."""

    index: int
    """1-based position in the prompt."""
    block: Block
    state: CacheState
    start: int
    """Where the block starts along the prompt, in reported tokens."""
    changed: bool
    """The first block that differs from the previous request's prompt."""


@dataclass(frozen=True, slots=True)
class PromptView:
    """A request's prompt as blocks, and how it relates to the previous request's."""

    rows: list[BlockRow]
    first_changed: int | None
    """1-based index of the first block that differs from the previous prompt, if one does."""
    comparison: str
    """What the comparison with the previous prompt found, in words."""


def prompt_view(request: Request, previous: Request | None) -> PromptView:
    """The blocks of `request`'s prompt, each with its cache state, and the first change.

    A request whose log holds no prompt gives no rows.
    """
    blocks = request.blocks
    usage = request.usage
    counted = sum(block.tokens for block in blocks)
    scale = usage.prompt_tokens / counted if counted else 0.0
    read_end = usage.cache_read_tokens
    write_end = read_end + usage.cache_write_tokens
    first_changed, comparison = _first_change(blocks, previous)
    rows: list[BlockRow] = []
    position = 0.0
    for index, block in enumerate(blocks, start=1):
        size = block.tokens * scale
        middle = position + size / 2
        state = (
            CacheState.READ
            if middle < read_end
            else CacheState.WRITTEN
            if middle < write_end
            else CacheState.UNCACHED
        )
        rows.append(BlockRow(index, block, state, round(position), index == first_changed))
        position += size
    return PromptView(rows, first_changed, comparison)


def _first_change(blocks: tuple[Block, ...], previous: Request | None) -> tuple[int | None, str]:
    if not blocks:
        return None, "the log does not hold this request's prompt"
    if previous is None:
        return None, "first request of its chain: nothing to compare with"
    if not previous.blocks:
        return None, "the previous request's prompt is not in the log"
    for index, (mine, theirs) in enumerate(zip(blocks, previous.blocks, strict=False), start=1):
        if mine.content_hash != theirs.content_hash:
            return (
                index,
                f"block {index} differs from the previous request ({mine.kind}, {mine.role})",
            )
    if len(blocks) < len(previous.blocks):
        return None, f"blocks {len(blocks) + 1}+ of the previous request were removed"
    added = len(blocks) - len(previous.blocks)
    return None, f"same prefix as the previous request, {added} block(s) appended"
