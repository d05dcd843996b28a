"""Provides what fixing a finding is worth: the cache engine replays requests with and without it.

For logged requests, the session's requests are replayed as they were and with the volatile
content taken out of the prefix (it then sits after the last breakpoint), under the provider's
own policy; the difference in cached tokens and dollars is the saving. For a prompt file there is
no history, so the saving is an estimate: 1,000 calls at a stated rate, each with different
volatile content and template placeholders filled differently, as they would be at run time,
replayed both ways (the fix takes both out of the cached prefix). Those calls share every block
up to the first that varies and none after it, so the blocks a cache cannot tell apart are
joined for the replay (`_joined`): its work is the calls times a few blocks, not times every
paragraph of the file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from msgspec.structs import replace

from sniff import tokens
from sniff.engine import Policy, PrefixTree, build_prompts, load_policies, simulate
from sniff.findings import Saving
from sniff.lint.prompts import LintBlock, LintPrompt
from sniff.lint.volatile import find_placeholders, find_volatile
from sniff.model import Agent, Block, Request, Usage
from sniff.pricing import PriceBook

CALLS = 1_000
DEFAULT_MODEL = "claude-sonnet-4-5"
START = datetime(2026, 1, 1, tzinfo=UTC)
"""When a replay's first request is sent."""
KeyOf = Callable[[LintBlock], str]


def chain_saving(chain: list[LintPrompt], prices: PriceBook) -> Saving | None:
    """The cached tokens and dollars a session would gain without volatile prefix content."""
    if len(chain) < 2:
        return None
    policy = load_policies()[_provider(chain[0])]
    before = [_request(p, n, _blocks(p, _as_is)) for n, p in enumerate(chain)]
    after = [_request(p, n, _blocks(p, _stable)) for n, p in enumerate(chain)]
    return _saving(
        _replay(before, policy, prices),
        _replay(after, policy, prices),
        f"these {len(chain):,} requests",
    )


def file_saving(prompt: LintPrompt, prices: PriceBook, calls_per_minute: float) -> Saving | None:
    """The estimated gain over 1,000 calls at `calls_per_minute`, volatile content (and what
    fills the placeholders) varying."""
    if all(_stable_text(block.text) == block.text for block in prompt.blocks):
        return None
    policy = load_policies()[_provider(prompt)]
    spacing = 60.0 / calls_per_minute
    rate = f"{calls_per_minute:g} call{'s' if calls_per_minute != 1 else ''}/min"
    return _saving(
        _replay(_calls(prompt, spacing, varying=True), policy, prices),
        _replay(_calls(prompt, spacing, varying=False), policy, prices),
        f"per {CALLS:,} calls at {rate} (estimate)",
    )


def _calls(prompt: LintPrompt, spacing: float, *, varying: bool) -> list[Request]:
    """The 1,000 calls of a prompt file, `spacing` seconds apart: as it is (`varying`: its
    volatile content, and what fills its placeholders, differ in every call) or fixed (none
    of either left), with the blocks the cache cannot tell apart joined."""
    blocks = _blocks(prompt, _stable if not varying else _as_is)
    per_call = [varying and _stable_text(block.text) != block.text for block in prompt.blocks]
    joined = _joined(blocks, per_call)
    first = LintPrompt(prompt.file, (), prompt.api, prompt.model, session="estimate", started=0)
    sent = _request(first, 0, [block for block, _ in joined])
    calls = []
    for number in range(CALLS):  # each the first call, sent `number` spacings later
        label = f"call {number}"
        filled = tuple(
            replace(block, content_hash=_hash(block.content_hash + label)) if differs else block
            for block, differs in joined
        )
        started, first_token, ended = _times(START + timedelta(seconds=number * spacing))
        calls.append(
            replace(
                sent,
                key=f"{prompt.file}:{label}",
                blocks=filled,
                started_at=started,
                first_token_at=first_token,
                ended_at=ended,
            )
        )
    return calls


def _joined(blocks: list[Block], per_call: list[bool]) -> list[tuple[Block, bool]]:
    """`blocks` (each `per_call` or the same in every call) with the runs a replay of calls
    cannot tell apart joined into one block: their hashes combined, their tokens summed, the
    last one's mark kept; each with whether it differs per call.

    Why this is exact: the calls mark the same blocks, and share every block before the first
    per-call one and none after it. A simulation reads of a prompt the prefixes its marks end
    (where entries are written and looked up) and how far each reaches; a lookup walking back
    from a mark finds only entries written at marks, which the call looks up where they are.
    Caching every prefix (OpenAI), it reads the longest prefix an earlier call shared: up to
    the first per-call block. So runs ending at a mark, before the first per-call block or at
    the end are all a cache tells apart. (A self-hosted engine's cache, evicting block by
    block, would tell more: lint prices Anthropic's and OpenAI's policies only.)
    """
    first = next((i for i, differs in enumerate(per_call) if differs), len(blocks))
    joined: list[tuple[Block, bool]] = []
    start = 0
    for index, block in enumerate(blocks):
        if block.cache_control or index + 1 in (first, len(blocks)):
            joined.append(_join(blocks[start : index + 1], any(per_call[start : index + 1])))
            start = index + 1
    return joined


def _join(run: list[Block], differs: bool) -> tuple[Block, bool]:
    if len(run) == 1:
        return run[0], differs
    key = _hash("".join(block.content_hash for block in run))
    return replace(run[-1], content_hash=key, tokens=sum(b.tokens for b in run)), differs


def _as_is(block: LintBlock) -> str:
    return _hash(block.text)


def _stable(block: LintBlock) -> str:
    """The fix: volatile content and placeholders leave the block (they move after the last
    breakpoint, or to the end of a prompt file)."""
    return _hash(_stable_text(block.text))


@lru_cache(maxsize=4096)
def _stable_text(text: str) -> str:
    """`text` without its volatile content and template placeholders; memoized, as the
    savings of a file's findings ask it of the same blocks."""
    for volatile in reversed(find_volatile(text)):
        text = text[: volatile.start] + text[volatile.end :]
    for placeholder in reversed(find_placeholders(text)):
        text = text[: placeholder.start()] + text[placeholder.end() :]
    return text


def _replay(requests: list[Request], policy: Policy, prices: PriceBook) -> tuple[int, float | None]:
    """Total cached tokens and cost of the requests under their provider's `policy`."""
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


def _blocks(prompt: LintPrompt, key_of: KeyOf) -> list[Block]:
    """The prompt's blocks as the engine reads them, each keyed by `key_of`; without a
    breakpoint (a prompt file, or a body without marks), cached at its end."""
    blocks = [
        Block(
            block.kind,
            block.role,
            key_of(block),
            tokens.count(block.text, key=_hash(block.text)),
            block.mark,
        )
        for block in prompt.blocks
    ]
    automatic = not prompt.api.startswith("openai") and not any(b.cache_control for b in blocks)
    if automatic and blocks:
        blocks[-1] = replace(blocks[-1], cache_control="5m")
    return blocks


def _provider(prompt: LintPrompt) -> str:
    return "openai" if prompt.api.startswith("openai") else "anthropic"


def _request(prompt: LintPrompt, number: int, blocks: Sequence[Block]) -> Request:
    size = sum(block.tokens for block in blocks)
    started, first_token, ended = _times(
        START + timedelta(seconds=prompt.started if prompt.started is not None else number * 10)
    )
    return Request(
        source="lint",
        key=f"{prompt.file}:{prompt.request or number}",
        project=prompt.file,
        session_id=prompt.session or prompt.file,
        agent=Agent.MAIN,
        agent_id="main",
        model=prompt.model or DEFAULT_MODEL,
        provider=_provider(prompt),
        ended_at=ended,
        usage=Usage(input_tokens=size),
        file=prompt.file,
        line=prompt.line,
        started_at=started,
        first_token_at=first_token,
        blocks=tuple(blocks),
    )


def _times(sent: datetime) -> tuple[datetime, datetime, datetime]:
    """When a replayed request is sent, has its first token (half a second later) and ends
    (a second later)."""
    return sent, sent + timedelta(milliseconds=500), sent + timedelta(seconds=1)


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
