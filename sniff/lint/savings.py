"""Provides what fixing a finding is worth: the cache engine replays requests with and without it.

For logged requests, the session's requests are replayed as they were and with the volatile
content taken out of the prefix (it then sits after the last breakpoint), under the provider's
own policy; the difference in cached tokens and dollars is the saving. For a prompt file there is
no history, so the saving is an estimate: 1,000 calls at a stated rate, each with different
volatile content and template placeholders filled differently, as they would be at run time,
replayed both ways (the fix takes both out of the cached prefix).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from sniff import tokens
from sniff.engine import PrefixTree, build_prompts, load_policies, simulate
from sniff.findings import Saving
from sniff.lint.prompts import LintBlock, LintPrompt
from sniff.lint.volatile import find_placeholders, find_volatile
from sniff.model import Agent, Block, Request, Usage
from sniff.pricing import PriceBook

CALLS = 1_000
DEFAULT_MODEL = "claude-sonnet-4-5"
KeyOf = Callable[[LintPrompt, int, LintBlock], str]


def chain_saving(chain: list[LintPrompt], prices: PriceBook) -> Saving | None:
    """The cached tokens and dollars a session would gain without volatile prefix content."""
    if len(chain) < 2:
        return None
    before = _replay(chain, _as_is, prices)
    after = _replay(chain, _stable, prices)
    return _saving(before, after, f"these {len(chain):,} requests")


def file_saving(prompt: LintPrompt, prices: PriceBook, calls_per_minute: float) -> Saving | None:
    """The estimated gain over 1,000 calls at `calls_per_minute`, volatile content (and what
    fills the placeholders) varying."""
    if all(_stable_text(block.text) == block.text for block in prompt.blocks):
        return None
    spacing = 60.0 / calls_per_minute
    copies = [
        LintPrompt(
            prompt.file,
            prompt.blocks,
            prompt.api,
            prompt.model,
            prompt.params,
            request=f"call {n}",
            started=n * spacing,
            session="estimate",
        )
        for n in range(CALLS)
    ]
    rate = f"{calls_per_minute:g} call{'s' if calls_per_minute != 1 else ''}/min"
    return _saving(
        _replay(copies, _varying, prices),
        _replay(copies, _stable, prices),
        f"per {CALLS:,} calls at {rate} (estimate)",
    )


def _as_is(_prompt: LintPrompt, _index: int, block: LintBlock) -> str:
    return _hash(block.text)


def _varying(prompt: LintPrompt, _index: int, block: LintBlock) -> str:
    """A prompt file's block at run time: volatile content, and what a template fills in,
    differ on every call."""
    text = block.text
    return _hash(text + (prompt.request or "") if _stable_text(text) != text else text)


def _stable(_prompt: LintPrompt, _index: int, block: LintBlock) -> str:
    """The fix: volatile content and placeholders leave the block (they move after the last
    breakpoint, or to the end of a prompt file)."""
    return _hash(_stable_text(block.text))


@lru_cache(maxsize=4096)
def _stable_text(text: str) -> str:
    """`text` without its volatile content and template placeholders; memoized, as a replay
    asks it of the same blocks for each of its 1,000 calls."""
    for volatile in reversed(find_volatile(text)):
        text = text[: volatile.start] + text[volatile.end :]
    for placeholder in reversed(find_placeholders(text)):
        text = text[: placeholder.start()] + text[placeholder.end() :]
    return text


def _replay(chain: list[LintPrompt], key_of: KeyOf, prices: PriceBook) -> tuple[int, float | None]:
    """Total cached tokens and cost of the chain under its provider's policy."""
    requests = [_request(prompt, n, key_of) for n, prompt in enumerate(chain)]
    policies = load_policies()
    policy = policies["openai" if requests[0].provider == "openai" else "anthropic"]
    usages = simulate(build_prompts(requests, PrefixTree()), policy)
    read, cost = 0, 0.0
    priced = True
    for request, usage in zip(sorted(requests, key=lambda r: r.when), usages, strict=True):
        read += usage.read
        billed_writes = usage.write_5m if policy.writes_billed else 0
        simulated = Usage(
            input_tokens=usage.uncached + (0 if policy.writes_billed else usage.write_5m),
            cache_read_tokens=usage.read,
            cache_write_5m_tokens=billed_writes,
            cache_write_1h_tokens=usage.write_1h,
        )
        found = prices.cost(request.model, request.when, simulated, request.provider)
        if found is None:
            priced = False
        else:
            cost += found.total_usd
    return read, cost if priced else None


def _request(prompt: LintPrompt, number: int, key_of: KeyOf) -> Request:
    blocks = []
    for index, block in enumerate(prompt.blocks):
        blocks.append(
            Block(
                block.kind,
                block.role,
                key_of(prompt, index, block),
                tokens.count(block.text, key=_hash(block.text)),
                block.mark,
            )
        )
    automatic = not prompt.api.startswith("openai") and not any(b.cache_control for b in blocks)
    if automatic and blocks:  # a prompt file, or a body without marks: cached at its end
        last = blocks[-1]
        blocks[-1] = Block(last.kind, last.role, last.content_hash, last.tokens, "5m")
    size = sum(block.tokens for block in blocks)
    moment = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(
        seconds=prompt.started if prompt.started is not None else number * 10
    )
    provider = "openai" if prompt.api.startswith("openai") else "anthropic"
    return Request(
        source="lint",
        key=f"{prompt.file}:{prompt.request or number}",
        project=prompt.file,
        session_id=prompt.session or prompt.file,
        agent=Agent.MAIN,
        agent_id="main",
        model=prompt.model or DEFAULT_MODEL,
        provider=provider,
        ended_at=moment + timedelta(seconds=1),
        usage=Usage(input_tokens=size),
        file=prompt.file,
        line=prompt.line,
        started_at=moment,
        first_token_at=moment + timedelta(milliseconds=500),
        blocks=tuple(blocks),
    )


def _saving(
    before: tuple[int, float | None], after: tuple[int, float | None], basis: str
) -> Saving | None:
    gained = after[0] - before[0]
    if gained <= 0:
        return None
    usd = None if before[1] is None or after[1] is None else before[1] - after[1]
    return Saving(gained, usd, basis)


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
