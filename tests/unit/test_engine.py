"""The prefix-cache simulator: provider rules replayed on small, hand-checked request sequences.

Every test builds `Request` records directly, turns them into prompts (`build_prompts`) and
replays them under a policy (`simulate`). The expected numbers are worked out by hand in the
comments, from the rules in `../shared/docs/prompt-caching.md` (§1.1-1.3 Anthropic, §2.1
OpenAI, §4 vLLM/SGLang, §5.1-5.2 pseudocode). Each request's reported prompt size is the sum
of its blocks, so block token counts are used unscaled and positions are exact.

Results are written `(read, write_5m, write_1h, uncached)`. Under the automatic and LRU
policies every token not read counts as `write_5m` (writes there are free: unbilled).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest

from sniff.analyses.cache import simulation as cache_analysis
from sniff.analyses.cache.simulation import Measures, analyze_cache
from sniff.engine import (
    Policy,
    PrefixTree,
    SimPrompt,
    SimUsage,
    build_prompts,
    load_policies,
    session_ttls,
    simulate,
    simulation,
    with_overrides,
)
from sniff.ingest.record import Prompts
from sniff.logs import load
from sniff.model import Agent, Block, Request, Usage
from sniff.pricing import PriceBook
from tests.conftest import SHARED_SAMPLES

ROOT = Path(__file__).resolve().parents[2]
CLAUDE_CODE_SAMPLE = ROOT / "sample_logs" / "claude-code"

T0 = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
SONNET_4_5 = "claude-sonnet-4-5-20250929"
HAIKU_4_5 = "claude-haiku-4-5-20251001"
SONNET_4_6 = "claude-sonnet-4-6"
GPT = "gpt-4.1"
MINUTE = 60.0
DAY = 86400.0


# --- builders ----------------------------------------------------------------------------------


def blk(name: str, tokens: int, mark: str | None = None) -> Block:
    """One prompt block; `name` is its content (hash): equal names are equal content."""
    return Block("text", "user", name, tokens, mark)


def numbered(count: int, marks: dict[int, str] | None = None, size: int = 100) -> list[Block]:
    """Blocks 1..count of `size` tokens each, marked where `marks` (1-based position) says."""
    marks = marks or {}
    return [blk(f"b{i}", size, marks.get(i)) for i in range(1, count + 1)]


def req(
    key: str,
    blocks: Sequence[Block] = (),
    *,
    at: float = 0.0,
    first: float = 1.0,
    end: float | None = None,
    prompt: int | None = None,
    model: str = SONNET_4_5,
    provider: str = "anthropic",
    previous: str | None = None,
    agent: Agent = Agent.MAIN,
    session: str = "s1",
    source: str = "test",
    version: str | None = None,
    when: datetime = T0,
    usage: Usage | None = None,
) -> Request:
    """A request sent `at` seconds after `when`, first token `first` seconds later.

    Its reported prompt size is the sum of its blocks (or `prompt` for usage-only requests),
    all of it as uncached input: the simulator never reads the reported cache fields.
    """
    start = when + timedelta(seconds=at)
    first_token = start + timedelta(seconds=first)
    ended = first_token + timedelta(seconds=1) if end is None else start + timedelta(seconds=end)
    tokens = sum(block.tokens for block in blocks) if prompt is None else prompt
    return Request(
        source=source,
        key=key,
        project="p",
        session_id=session,
        agent=agent,
        agent_id="main" if agent is Agent.MAIN else f"agent-{key}",
        model=model,
        provider=provider,
        ended_at=ended,
        usage=usage or Usage(input_tokens=tokens, output_tokens=10),
        file="f",
        line=1,
        started_at=start,
        first_token_at=first_token,
        version=version,
        blocks=tuple(blocks),
        previous=previous,
    )


def policy_named(name: str, **overrides: object) -> Policy:
    policy = load_policies()[name]
    return with_overrides(policy, **overrides) if overrides else policy  # type: ignore[arg-type]


def run(
    requests: Iterable[Request], policy: Policy | str = "anthropic", **overrides: object
) -> list[tuple[int, int, int, int]]:
    """`(read, write_5m, write_1h, uncached)` of each request, in the order sent."""
    chosen = policy_named(policy, **overrides) if isinstance(policy, str) else policy
    return [as_tuple(sim) for sim in simulate(build_prompts(requests, PrefixTree()), chosen)]


def as_tuple(sim: SimUsage) -> tuple[int, int, int, int]:
    return (sim.read, sim.write_5m, sim.write_1h, sim.uncached)


def prompts_of(requests: Iterable[Request]) -> list[SimPrompt]:
    return build_prompts(requests, PrefixTree())


# --- Anthropic: minimum cacheable length (§1.3) ------------------------------------------------


JAN = T0
APRIL_1 = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)
JUNE_1 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
MINIMUMS = [
    (SONNET_4_5, JAN, 1024),
    (HAIKU_4_5, JAN, 4096),
    (SONNET_4_6, APRIL_1, 2048),  # 2026-03-13 to 2026-05-12: 2,048
    (SONNET_4_6, JUNE_1, 1024),  # from 2026-05-13 on: 1,024
]


@pytest.mark.parametrize(("model", "day", "minimum"), MINIMUMS)
def test_bundled_minimums_by_model_and_date(model: str, day: datetime, minimum: int) -> None:
    assert policy_named("anthropic").min_tokens_for(model, day.date()) == minimum


@pytest.mark.parametrize(("model", "day", "minimum"), MINIMUMS)
def test_a_prefix_one_token_below_the_minimum_is_not_written(
    model: str, day: datetime, minimum: int
) -> None:
    short = [blk("a", minimum - 1, "5m")]
    requests = [
        req("r1", short, model=model, when=day),
        req("r2", short, at=10, model=model, when=day),
    ]
    # minimum-1 tokens < minimum: r1 writes nothing, so r2 (10 s later) has nothing to read
    assert run(requests) == [(0, 0, 0, minimum - 1), (0, 0, 0, minimum - 1)]


@pytest.mark.parametrize(("model", "day", "minimum"), MINIMUMS)
def test_a_prefix_of_exactly_the_minimum_is_written_and_read(
    model: str, day: datetime, minimum: int
) -> None:
    exact = [blk("a", minimum, "5m")]
    requests = [
        req("r1", exact, model=model, when=day),
        req("r2", exact, at=10, model=model, when=day),
    ]
    # r1 writes its `minimum`-token prefix (5m); r2 reads all of it
    assert run(requests) == [(0, minimum, 0, 0), (minimum, 0, 0, 0)]


def test_the_minimum_applies_to_each_breakpoint_on_its_own() -> None:
    # system 600 (marked) + message 900 (marked): the 600-token prefix is below sonnet-4-5's
    # 1,024 and is not written; the 1,500-token one is: write_5m = C - B = 1,500 - 0.
    first = [blk("system", 600, "5m"), blk("m1", 900, "5m")]
    # r2 shares only the system block: no entry at 600 to find, a miss; it writes 1,400.
    second = [blk("system", 600, "5m"), blk("m2", 800, "5m")]
    assert run([req("r1", first), req("r2", second, at=10)]) == [
        (0, 1500, 0, 0),
        (0, 1400, 0, 0),
    ]


def test_min_tokens_override_replaces_every_model_rule() -> None:
    policy = policy_named("anthropic", min_tokens=2000)
    assert policy.min_tokens_for(HAIKU_4_5, JAN.date()) == 2000
    assert policy.min_tokens_for(SONNET_4_5, JAN.date()) == 2000
    # sonnet-4-5, 1,500 tokens: written under the bundled 1,024, not under the override 2,000
    sonnet = [req("r1", [blk("a", 1500, "5m")]), req("r2", [blk("a", 1500, "5m")], at=10)]
    assert run(sonnet) == [(0, 1500, 0, 0), (1500, 0, 0, 0)]
    assert run(sonnet, policy) == [(0, 0, 0, 1500), (0, 0, 0, 1500)]
    # haiku-4-5, 3,000 tokens: below its bundled 4,096 rule, above the override 2,000
    haiku = [
        req("r1", [blk("a", 3000, "5m")], model=HAIKU_4_5),
        req("r2", [blk("a", 3000, "5m")], at=10, model=HAIKU_4_5),
    ]
    assert run(haiku) == [(0, 0, 0, 3000), (0, 0, 0, 3000)]
    assert run(haiku, policy) == [(0, 3000, 0, 0), (3000, 0, 0, 0)]


# --- Anthropic: 20-block lookback (§1.1 rule 3) ------------------------------------------------


def turn_2() -> Request:
    """Blocks 1..15 of 100 tokens, breakpoint on block 15: an entry at 1,500 tokens."""
    return req("turn2", numbered(15, {15: "5m"}))


def test_lookback_misses_an_entry_20_blocks_before_the_breakpoint() -> None:
    # The doc's worked example: the breakpoint at block 35 checks blocks 35, 34, ..., 16
    # (20 positions, itself included) and never reaches the entry at block 15: a miss, and
    # the whole 3,500-token prefix is written again.
    turn_3 = req("turn3", numbered(35, {35: "5m"}), at=10)
    assert run([turn_2(), turn_3]) == [(0, 1500, 0, 0), (0, 3500, 0, 0)]


def test_lookback_finds_an_entry_19_blocks_before_the_breakpoint() -> None:
    # Breakpoint at block 34 checks 34..15: finds block 15 (1,500 tokens), writes 3,400 - 1,500.
    turn_3 = req("turn3", numbered(34, {34: "5m"}), at=10)
    assert run([turn_2(), turn_3]) == [(0, 1500, 0, 0), (1500, 1900, 0, 0)]


def test_a_second_breakpoint_within_reach_makes_it_a_hit() -> None:
    # Breakpoints at 20 and 35: block 20 looks back over 20..1 and finds block 15 (A = 1,500);
    # writes at 2,000 and 3,500 (both 5m): write_5m = C - A = 3,500 - 1,500 = 2,000.
    turn_3 = req("turn3", numbered(35, {20: "5m", 35: "5m"}), at=10)
    assert run([turn_2(), turn_3]) == [(0, 1500, 0, 0), (1500, 2000, 0, 0)]


# --- Anthropic: TTL, refresh, expiry (§1.2) ----------------------------------------------------


def same_prompt(*starts: float, **options: object) -> list[Request]:
    """The same 2,000-token prompt (one block, 5m breakpoint) sent at each of `starts`."""
    return [
        req(f"r{i}", [blk("a", 2000, "5m")], at=start, **options)  # type: ignore[arg-type]
        for i, start in enumerate(starts)
    ]


WRITE = (0, 2000, 0, 0)
READ = (2000, 0, 0, 0)


def test_a_hit_refreshes_the_entry() -> None:
    # written at 0 (expires 300); read at 240 (refreshed: expires 540); read again at 480
    assert run(same_prompt(0, 4 * MINUTE, 8 * MINUTE)) == [WRITE, READ, READ]


def test_an_entry_not_read_for_more_than_5_minutes_misses() -> None:
    assert run(same_prompt(0, 8 * MINUTE)) == [WRITE, WRITE]
    assert run(same_prompt(0, 299)) == [WRITE, READ]
    assert run(same_prompt(0, 301)) == [WRITE, WRITE]


def test_the_lifetime_counts_from_the_writers_start_not_its_end() -> None:
    # r1 starts at 0 and streams until 200 s: its entry expires at 0 + 300, not 200 + 300.
    slow = req("r1", [blk("a", 2000, "5m")], first=100, end=200)
    at_290 = req("r2", [blk("a", 2000, "5m")], at=290)
    at_310 = req("r2", [blk("a", 2000, "5m")], at=310)
    assert run([slow, at_290]) == [WRITE, READ]
    assert run([slow, at_310]) == [WRITE, WRITE]


def test_a_refresh_counts_from_the_readers_start() -> None:
    # written at 0; read at 240 by a request streaming for 160 s: expires 240 + 300 = 540
    writer = req("r1", [blk("a", 2000, "5m")])
    reader = req("r2", [blk("a", 2000, "5m")], at=240, first=60, end=160)
    assert run([writer, reader, req("r3", [blk("a", 2000, "5m")], at=535)]) == [WRITE, READ, READ]
    assert run([writer, reader, req("r3", [blk("a", 2000, "5m")], at=545)]) == [WRITE, READ, WRITE]


# --- Anthropic: 1-hour and 5-minute breakpoints (§1.2 billing positions) ------------------------


def tools_only() -> Request:
    """Tools (1,200 tokens) with a 5m breakpoint: writes the entry A will be read from."""
    return req("r1", [blk("tools", 1200, "5m")])


def mixed(key: str, at: float, message: str = "msg") -> Request:
    """tools 1,200 | system 800 (1h) | message 1,000 (5m) | trailing 300 (unmarked) = 3,300."""
    blocks = [
        blk("tools", 1200),
        blk("system", 800, "1h"),
        blk(message, 1000, "5m"),
        blk(f"tail-{key}", 300),
    ]
    return req(key, blocks, at=at)


def test_billing_positions_a_b_c() -> None:
    # A = 1,200 (the tools entry, found from both breakpoints by lookback);
    # B = 2,000 (the 1h breakpoint on the system block); C = 3,000 (the last breakpoint).
    # read = A; write_1h = B - A = 800; write_5m = C - B = 1,000; uncached = 3,300 - C = 300.
    assert run([tools_only(), mixed("r2", 60)]) == [(0, 1200, 0, 0), (1200, 1000, 800, 300)]


def test_a_cold_request_writes_its_1h_and_5m_parts() -> None:
    # A = 0, B = 2,000, C = 3,000: write_1h = 2,000, write_5m = 1,000, uncached 300
    assert run([mixed("r1", 0)]) == [(0, 1000, 2000, 300)]


def test_a_1h_entry_survives_a_30_minute_gap_a_5m_one_does_not() -> None:
    # r1 writes system (2,000, 1h) and message (3,000, 5m). 4 minutes later: both live, the
    # message entry is the deepest hit (A = 3,000). 30 minutes later: the 5m entry is gone,
    # the 1h one is not (A = 2,000), and the message is written again (C - B = 1,000).
    assert run([mixed("r1", 0), mixed("r2", 4 * MINUTE)]) == [
        (0, 1000, 2000, 300),
        (3000, 0, 0, 300),
    ]
    assert run([mixed("r1", 0), mixed("r2", 30 * MINUTE)]) == [
        (0, 1000, 2000, 300),
        (2000, 1000, 0, 300),
    ]
    # and a 1h entry does expire after an hour: a cold start again
    assert run([mixed("r1", 0), mixed("r2", 61 * MINUTE)]) == [(0, 1000, 2000, 300)] * 2


def test_ttl_override_forces_one_ttl_on_every_breakpoint() -> None:
    # forced 1h: B = C = 3,000, all of C - A = 1,800 is written for an hour
    assert run([tools_only(), mixed("r2", 60)], ttl="1h") == [(0, 0, 1200, 0), (1200, 0, 1800, 300)]
    # forced 5m: the system block's 1h mark is written for 5 minutes
    assert run([tools_only(), mixed("r2", 60)], ttl="5m") == [(0, 1200, 0, 0), (1200, 1800, 0, 300)]
    # a forced-1h entry marked 5m by the request outlives a 30-minute gap
    assert run(same_prompt(0, 30 * MINUTE), ttl="1h") == [(0, 0, 2000, 0), READ]


def test_ttl_override_rejects_a_ttl_the_policy_does_not_know() -> None:
    from sniff.errors import UserError

    with pytest.raises(UserError):
        policy_named("anthropic", ttl="2h")


def test_session_ttls_mark_usage_only_writes_as_1h() -> None:
    # A usage-only session that reported 1h writes: its breakpoints are written for 1 hour.
    one_hour = Usage(input_tokens=5, cache_write_1h_tokens=1995)
    requests = [
        req("a", prompt=2000, source="claude-code", usage=one_hour),
        req("b", prompt=2500, at=30 * MINUTE, previous="a", source="claude-code"),
    ]
    ttls = session_ttls(requests)
    assert ttls == {"s1": "1h"}
    sims = simulate(build_prompts(requests, PrefixTree(), ttls), policy_named("anthropic"))
    # a: hidden block 2,000 (the only chain start) + a 0-token turn, both 1h: write_1h 2,000;
    # b, 30 minutes later: reads a's 2,000 (1h, live) and writes its 500-token turn for 1h
    assert [as_tuple(sim) for sim in sims] == [(0, 0, 2000, 0), (2000, 0, 500, 0)]


# --- Anthropic: availability after the first token (§1.1) --------------------------------------


def test_a_request_sent_before_the_writers_first_token_misses() -> None:
    writer = req("r1", [blk("a", 2000, "5m")], first=10)
    assert run([writer, req("r2", [blk("a", 2000, "5m")], at=5)]) == [WRITE, WRITE]
    assert run([writer, req("r2", [blk("a", 2000, "5m")], at=10)]) == [WRITE, READ]
    assert run([writer, req("r2", [blk("a", 2000, "5m")], at=11)]) == [WRITE, READ]


def test_a_concurrent_rewrite_does_not_delay_the_first_writers_entry() -> None:
    # r1 (first token at 10) writes the entry; r2 starts at 5, before it is readable, misses
    # and writes the same prefix (first token at 30). r3 at 12: r1's entry has been readable
    # since 10, so r3 reads it.
    requests = [
        req("r1", [blk("a", 2000, "5m")], first=10),
        req("r2", [blk("a", 2000, "5m")], at=5, first=25),
        req("r3", [blk("a", 2000, "5m")], at=12),
    ]
    assert run(requests) == [WRITE, WRITE, READ]


# --- Anthropic: at most 4 breakpoints ----------------------------------------------------------


def test_a_fifth_breakpoint_is_ignored() -> None:
    # 5 blocks of 1,100 tokens, all marked: only the first 4 count, so the deepest entry is at
    # 4,400 and the last 1,100 tokens are uncached; r2 reads 4,400 and no more.
    five = numbered(5, dict.fromkeys(range(1, 6), "5m"), size=1100)
    assert run([req("r1", five), req("r2", five, at=10)]) == [
        (0, 4400, 0, 1100),
        (4400, 0, 0, 1100),
    ]


def test_a_prompt_without_marks_is_cached_at_its_last_block() -> None:
    # No cache_control anywhere: automatic caching places the breakpoint on the last block.
    plain = [blk("a", 1000), blk("b", 500)]
    assert run([req("r1", plain), req("r2", plain, at=10)]) == [(0, 1500, 0, 0), (1500, 0, 0, 0)]


# --- OpenAI (§2.1, §5.2) -----------------------------------------------------------------------


def gpt(key: str, blocks: Sequence[Block], at: float = 0.0, model: str = GPT) -> Request:
    return req(key, blocks, at=at, model=model, provider="openai")


def test_openai_reads_nothing_below_1024_prompt_tokens() -> None:
    # r2: 1,000 tokens, under the minimum: nothing read though 900 are shared.
    # r3: 1,100 tokens, but its longest live prefix is 1,000 (r2's): below 1,024, nothing read.
    requests = [
        gpt("r1", [blk("a", 900)]),
        gpt("r2", [blk("a", 900), blk("b", 100)], at=10),
        gpt("r3", [blk("a", 900), blk("b", 100), blk("c", 100)], at=20),
    ]
    assert run(requests, "openai") == [(0, 900, 0, 0), (0, 1000, 0, 0), (0, 1100, 0, 0)]


def test_openai_rounds_cached_tokens_down_to_128() -> None:
    # shared prefix 1,300 → 10 × 128 = 1,280 read; the other 1,800 - 1,280 = 520 are not
    requests = [
        gpt("r1", [blk("a", 1300), blk("b", 200)]),
        gpt("r2", [blk("a", 1300), blk("c", 500)], at=10),
    ]
    assert run(requests, "openai") == [(0, 1500, 0, 0), (1280, 520, 0, 0)]


def resend(*starts: float, model: str = GPT) -> list[Request]:
    """The same 1,536-token (12 × 128) prompt sent at each of `starts`."""
    return [gpt(f"r{i}", [blk("a", 1536)], at=at, model=model) for i, at in enumerate(starts)]


def test_openai_entries_expire_after_600_idle_seconds() -> None:
    assert policy_named("openai").seconds(None) == 600
    assert run(resend(0, 599), "openai") == [(0, 1536, 0, 0), (1536, 0, 0, 0)]
    assert run(resend(0, 601), "openai") == [(0, 1536, 0, 0), (0, 1536, 0, 0)]
    # a hit at 500 keeps it warm: 1,050 is 550 s after the last use
    assert run(resend(0, 500, 1050), "openai") == [(0, 1536, 0, 0)] + [(1536, 0, 0, 0)] * 2


def test_openai_entries_live_at_most_an_hour_however_often_they_are_read() -> None:
    # read every 500 s: hits up to 3,500; at 4,000 the entry born at 0 is past its 3,600 s cap
    starts = [500.0 * i for i in range(9)]  # 0, 500, ..., 4,000
    expected = [(0, 1536, 0, 0)] + [(1536, 0, 0, 0)] * 7 + [(0, 1536, 0, 0)]
    assert run(resend(*starts), "openai") == expected


def test_openai_cache_is_per_model() -> None:
    requests = [gpt("r1", [blk("a", 1536)]), gpt("r2", [blk("a", 1536)], 10, "gpt-4.1-mini")]
    assert run(requests, "openai") == [(0, 1536, 0, 0), (0, 1536, 0, 0)]


def test_anthropic_cache_is_per_model() -> None:
    requests = [
        req("r1", [blk("a", 2000, "5m")]),
        req("r2", [blk("a", 2000, "5m")], at=10, model="claude-opus-4-1-20250805"),
    ]
    assert run(requests) == [WRITE, WRITE]


def test_openai_entries_are_readable_from_the_first_token() -> None:
    # r1's first token comes 10 s after it is sent: r2 sent at 5 misses, at 10 hits
    writer = req("r1", [blk("a", 1536)], first=10, model=GPT, provider="openai")
    assert run([writer, gpt("r2", [blk("a", 1536)], at=5)], "openai") == [(0, 1536, 0, 0)] * 2
    assert run([writer, gpt("r2", [blk("a", 1536)], at=10)], "openai") == [
        (0, 1536, 0, 0),
        (1536, 0, 0, 0),
    ]


def test_openai_a_prefix_used_by_every_request_stays_warm() -> None:
    # One conversation grows by a 100-token turn every 20 s for 12 minutes, always on the same
    # 2,048-token system prompt. A new conversation on the same system prompt 20 s after the
    # last turn: the system prompt was used 20 s ago, so 2,048 = 16 × 128 tokens are read.
    conversation = [
        gpt(f"t{i}", [blk("system", 2048), *numbered(i + 1)], at=20.0 * i) for i in range(37)
    ]
    fresh = gpt("new", [blk("system", 2048), blk("other", 500)], at=20.0 * 37)
    assert run([*conversation, fresh], "openai")[-1] == (2048, 500, 0, 0)


# --- ideal -------------------------------------------------------------------------------------


def test_ideal_reads_any_shared_prefix_with_no_minimum_and_no_expiry() -> None:
    # 10 shared tokens, a day later: read 10, the 7 new ones are not
    requests = [
        req("r1", [blk("a", 10), blk("b", 5)]),
        req("r2", [blk("a", 10), blk("c", 7)], at=DAY),
    ]
    assert run(requests, "ideal") == [(0, 15, 0, 0), (10, 7, 0, 0)]


def test_ideal_entries_are_readable_from_the_writers_start() -> None:
    requests = [req("r1", [blk("a", 10)], first=30), req("r2", [blk("a", 10)], at=1)]
    assert run(requests, "ideal") == [(0, 10, 0, 0), (10, 0, 0, 0)]


# --- engine (LRU, §4) --------------------------------------------------------------------------


def engine(capacity: int) -> Policy:
    return policy_named("engine", kv_tokens=capacity)


def test_engine_evicts_the_least_recently_used_prefix_first() -> None:
    # capacity 1,000, three 400-token prompts: a, b, then a again (a is now the most recent),
    # then c: 1,200 > 1,000, so b (least recently used) is evicted, not a.
    requests = [
        req("r1", [blk("a", 400)]),
        req("r2", [blk("b", 400)], at=1),
        req("r3", [blk("a", 400)], at=2),
        req("r4", [blk("c", 400)], at=3),
        req("r5", [blk("a", 400)], at=4),
        req("r6", [blk("b", 400)], at=5),
    ]
    assert run(requests, engine(1000)) == [
        (0, 400, 0, 0),
        (0, 400, 0, 0),
        (400, 0, 0, 0),
        (0, 400, 0, 0),
        (400, 0, 0, 0),
        (0, 400, 0, 0),
    ]


def test_engine_without_pressure_keeps_everything_forever() -> None:
    requests = [req("r1", [blk("a", 400)]), req("r2", [blk("a", 400)], at=30 * DAY)]
    assert run(requests, engine(1000)) == [(0, 400, 0, 0), (400, 0, 0, 0)]


def test_engine_reads_whole_16_token_blocks() -> None:
    requests = [req("r1", [blk("a", 100), blk("b", 50)]), req("r2", [blk("a", 100)], at=1)]
    # 100 shared tokens → 6 full blocks of 16 = 96
    assert run(requests, engine(10_000)) == [(0, 150, 0, 0), (96, 4, 0, 0)]


def test_engine_never_evicts_a_prefix_before_its_cached_extension() -> None:
    # capacity 960. r1 caches p (320) and its extension x (160); r2 caches q (320): 800.
    # r3 adds r (320): 1,120. p is as old as x but has a cached extension: x goes first, 960,
    # which fits. p stays: r4 reads it.
    requests = [
        req("r1", [blk("p", 320), blk("x", 160)]),
        req("r2", [blk("q", 320)], at=1),
        req("r3", [blk("r", 320)], at=2),
        req("r4", [blk("p", 320), blk("y", 160)], at=3),
    ]
    assert run(requests, engine(960)) == [
        (0, 480, 0, 0),
        (0, 320, 0, 0),
        (0, 320, 0, 0),
        (320, 160, 0, 0),
    ]


def test_engine_a_prefix_left_without_extensions_is_evicted_by_its_own_age() -> None:
    # capacity 800. r1: p (320, used at 0) + x (160); r2: q (320, used at 1): 800.
    # r3 adds r (320): 1,120. LRU over leaves (SGLang's evictable leaves, vLLM's free queue):
    # x (0) goes, 960; p is now a leaf last used at 0, older than q (1): p goes, 640.
    # So r4 still finds q.
    requests = [
        req("r1", [blk("p", 320), blk("x", 160)]),
        req("r2", [blk("q", 320)], at=1),
        req("r3", [blk("r", 320)], at=2),
        req("r4", [blk("q", 320)], at=3),
    ]
    assert run(requests, engine(800))[-1] == (320, 0, 0, 0)


# --- usage-only chains (Claude Code transcripts) -----------------------------------------------


def usage_only(
    key: str,
    prompt: int,
    at: float,
    previous: str | None = None,
    *,
    session: str = "s1",
    agent: Agent = Agent.MAIN,
    version: str = "2.0.28",
) -> Request:
    return req(
        key,
        prompt=prompt,
        at=at,
        previous=previous,
        session=session,
        agent=agent,
        version=version,
        source="claude-code",
    )


def test_usage_only_chain() -> None:
    requests = [
        usage_only("a", 5000, 0),
        usage_only("b", 6000, 60, previous="a"),
        usage_only("d", 3000, 120, session="s2"),
        usage_only("c", 4000, 180, previous="b"),
    ]
    prompts = prompts_of(requests)
    hidden = prompts[0].marks[0][0]
    # the hidden block is the smallest chain start of (claude-code, model, 2.0.28, main):
    # min(5,000, 3,000) = 3,000; c continues b but is not a chain start for that purpose
    assert (hidden.kind, hidden.end) == ("hidden", 3000)
    assert prompts[1].tail.parent is prompts[0].tail  # b = a's prompt + one 1,000-token turn
    assert prompts[2].marks[0][0] is hidden  # another session's chain start shares it
    assert prompts[3].tail.parent is hidden  # c shrank (4,000 < 6,000): a new chain
    assert run(requests) == [
        (0, 5000, 0, 0),  # a: writes hidden (3,000) and its tail (5,000)
        (5000, 1000, 0, 0),  # b: reads a's whole prompt, writes its turn
        (3000, 0, 0, 0),  # d: all hidden, read
        (3000, 1000, 0, 0),  # c: reads the hidden block only
    ]


def test_usage_only_chain_misses_after_the_ttl() -> None:
    # x (another session) makes the hidden block 3,000 and writes it at 0; a, at 1, reads it
    # (refreshed: expires 301) and writes its tail (expires 301). b, at 401, finds neither.
    requests = [
        usage_only("x", 3000, 0, session="s2"),
        usage_only("a", 5000, 1),
        usage_only("b", 6000, 401, "a"),
    ]
    assert run(requests)[1:] == [(3000, 2000, 0, 0), (0, 6000, 0, 0)]


def test_hidden_block_per_source_model_version_and_agent() -> None:
    requests = [
        usage_only("v1-big", 5000, 0),
        usage_only("v1-small", 4000, 1, session="s2"),
        usage_only("v2", 7000, 2, session="s3", version="2.0.55"),
        usage_only("sub", 2500, 3, session="s1", agent=Agent.SUBAGENT),
        usage_only("other-model", 4500, 4, session="s4"),
    ]
    requests[4] = msgspec.structs.replace(requests[4], model=HAIKU_4_5)
    hidden = [prompt.marks[0][0] for prompt in prompts_of(requests)]
    assert [node.kind for node in hidden] == ["hidden"] * 5
    assert [node.end for node in hidden] == [4000, 4000, 7000, 2500, 4500]
    assert hidden[0] is hidden[1]
    assert len({id(node) for node in hidden}) == 4


def test_compaction_continues_the_latest_main_request_of_its_session() -> None:
    requests = [
        usage_only("m1", 5000, 0),
        usage_only("m2", 7000, 30, previous="m1"),
        usage_only("sub", 9000, 40, agent=Agent.SUBAGENT),  # not main: not continued
        usage_only("other", 8000, 45, session="s2"),  # another session: not continued
        usage_only("x", 7500, 60, agent=Agent.COMPACTION),
    ]
    prompts = prompts_of(requests)
    assert prompts[4].tail.parent is prompts[1].tail
    # m1 is its kind's only chain start: hidden 5,000 + a 0-token turn, both written;
    # m2 reads 5,000 and writes 2,000; x reads all of m2's 7,000 and writes its 500
    sims = run(requests)
    assert [sims[0], sims[1], sims[4]] == [(0, 5000, 0, 0), (5000, 2000, 0, 0), (7000, 500, 0, 0)]


def test_failed_and_empty_requests_are_not_simulated() -> None:
    failed = msgspec.structs.replace(req("bad", [blk("a", 2000, "5m")]), error="overloaded")
    empty = req("empty", prompt=0, at=1)
    prompts = prompts_of([failed, empty, req("ok", [blk("a", 2000, "5m")], at=2)])
    assert [prompt.request.key for prompt in prompts] == ["ok"]


# --- the scramble test (DESIGN §6): results never depend on the reported cache counts ----------


def scrambled(usage: Usage, rng: random.Random, *, keep_1h: bool) -> Usage:
    """The same prompt size, split at random between input, cache reads and 5m writes.

    `keep_1h`: keep the 1h writes as they are (whether a session wrote any is the one reported
    cache fact the simulator reads, `session_ttls`); otherwise fold them into the others.
    """
    one_hour = usage.cache_write_1h_tokens if keep_1h else 0
    rest = usage.prompt_tokens - one_hour
    read = rng.randint(0, rest)
    write = rng.randint(0, rest - read)
    return usage_with(usage, rest - read - write, read, write, one_hour)


def usage_with(usage: Usage, uncached: int, read: int, write_5m: int, write_1h: int) -> Usage:
    return msgspec.structs.replace(
        usage,
        input_tokens=uncached,
        cache_read_tokens=read,
        cache_write_5m_tokens=write_5m,
        cache_write_1h_tokens=write_1h,
    )


def folded(usage: Usage) -> Usage:
    """The same usage with its 1h writes counted as 5m writes."""
    return usage_with(
        usage,
        usage.input_tokens,
        usage.cache_read_tokens,
        usage.cache_write_5m_tokens + usage.cache_write_1h_tokens,
        0,
    )


def synthetic_requests(usage_of: Callable[[int], Usage]) -> list[Request]:
    """A trace-like conversation (blocks) and a usage-only one, with usage from `usage_of`."""
    system = [blk("tools", 1500), blk("system", 800, "1h")]
    requests = []
    for turn in range(6):
        messages = [blk(f"m{i}", 300 + 50 * i) for i in range(turn + 1)]
        messages[-1] = blk(messages[-1].content_hash, messages[-1].tokens, "5m")
        requests.append(req(f"t{turn}", [*system, *messages], at=90.0 * turn, session="trace"))
    sizes = [4000, 4700, 6100, 6800, 3500, 4200]  # grows, shrinks once (a new chain), grows
    for turn, size in enumerate(sizes):
        previous = f"u{turn - 1}" if turn else None
        requests.append(usage_only(f"u{turn}", size, 100.0 * turn, previous, session="usage"))
    return [
        msgspec.structs.replace(request, usage=usage_of(request.usage.prompt_tokens))
        for request in requests
    ]


def compare(first: Sequence[Request], second: Sequence[Request]) -> None:
    """Simulated measures of `first` and `second` are identical, as logged and in what-ifs."""
    policies = load_policies()
    what_ifs = [
        with_overrides(policies["anthropic"], ttl="1h"),
        policies["openai"],
        policies["engine"],
        policies["ideal"],
    ]
    prices = PriceBook()
    one = analyze_cache(first, prices, policies, what_ifs=what_ifs)
    two = analyze_cache(second, prices, policies, what_ifs=what_ifs)
    assert one.simulated == two.simulated
    assert [w.measures for w in one.what_if] == [w.measures for w in two.what_if]
    assert [r.simulated for r in one.by_session] == [r.simulated for r in two.by_session]
    # the per-request detail, under each policy, with no report in between
    tree_one, tree_two = PrefixTree(), PrefixTree()
    prompts_one = build_prompts(first, tree_one, session_ttls(first))
    prompts_two = build_prompts(second, tree_two, session_ttls(second))
    for policy in [*policies.values(), *what_ifs]:
        assert list(map(as_tuple, simulate(prompts_one, policy))) == list(
            map(as_tuple, simulate(prompts_two, policy))
        )
    assert one.observed != two.observed  # the reported counts did differ
    assert one.simulated.cache_read_tokens > 0  # and the simulation did read


def test_scramble_synthetic_requests() -> None:
    rng = random.Random(6)

    def realistic(prompt: int) -> Usage:
        return Usage(input_tokens=3, cache_read_tokens=prompt - 503, cache_write_5m_tokens=500)

    def scramble(prompt: int) -> Usage:
        return scrambled(Usage(input_tokens=prompt), rng, keep_1h=False)

    first, second = synthetic_requests(realistic), synthetic_requests(scramble)
    assert [r.usage.prompt_tokens for r in first] == [r.usage.prompt_tokens for r in second]
    assert all(r.usage.cache_write_1h_tokens == 0 for r in [*first, *second])
    compare(first, second)


CLAUDE_TRACE_SAMPLE = SHARED_SAMPLES / "claude-trace-dev" / "apps" / "claude-trace" / "test"
SCRAMBLED_SAMPLES = {"claude-code": CLAUDE_CODE_SAMPLE, "claude-trace": CLAUDE_TRACE_SAMPLE}


@cache
def sample_requests(name: str) -> tuple[Request, ...]:
    path = SCRAMBLED_SAMPLES[name]
    if not path.exists():
        pytest.skip(f"{path} is not here")
    return load([path], with_prompts=Prompts.COUNTED).requests


@pytest.mark.parametrize("keep_1h", [True, False], ids=["1h-as-logged", "1h-zero"])
@pytest.mark.parametrize("name", list(SCRAMBLED_SAMPLES))
def test_scramble_real_sample(name: str, keep_1h: bool) -> None:
    rng = random.Random(1)
    logged = [
        request if keep_1h else msgspec.structs.replace(request, usage=folded(request.usage))
        for request in sample_requests(name)
    ]
    mixed_up = [
        msgspec.structs.replace(request, usage=scrambled(request.usage, rng, keep_1h=keep_1h))
        for request in logged
    ]
    compare(logged, mixed_up)


# --- a policy file ------------------------------------------------------------------------------


def test_policy_file_minimum_means_nothing_below_it_is_cached(tmp_path: Path) -> None:
    path = tmp_path / "policies.toml"
    path.write_text("[anthropic]\nmin_tokens = 100000\nmin_tokens_rules = []\n")
    policy = load_policies(path)["anthropic"]
    requests = sample_requests("claude-code")
    prompts = build_prompts(requests, PrefixTree(), session_ttls(requests))
    sims = simulate(prompts, policy)
    small = [sim for prompt, sim in zip(prompts, sims, strict=True) if prompt.prompt_tokens < 1e5]
    big = [sim for prompt, sim in zip(prompts, sims, strict=True) if prompt.prompt_tokens >= 1e5]
    assert len(small) == 123 and len(big) == 6
    assert all(sim.written == sim.read == 0 for sim in small)
    assert all(sim.written or sim.read for sim in big)


def test_what_ifs_replayed_in_forked_workers_equal_the_one_process_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    requests = load([ROOT / "sample_logs"], PriceBook(), use_index=False).requests
    bundled = simulation()
    policies, what_ifs = bundled.policies, bundled.what_ifs
    alone = analyze_cache(requests, PriceBook(), policies, what_ifs=what_ifs)
    pids = tmp_path / "pids"
    measure = cache_analysis._measure

    parent = os.getpid()

    def noted(*args: Any) -> Measures:
        with pids.open("a") as out:  # each process notes itself
            out.write(f"{os.getpid()}\n")
        # this process takes work too: on a busy machine it could take all of it before the
        # forked worker starts, so it waits (10 s at most) until the worker has taken some
        deadline = time.monotonic() + 10
        while os.getpid() == parent and time.monotonic() < deadline:
            if len(set(pids.read_text().split())) > 1:
                break
            time.sleep(0.01)
        return measure(*args)

    monkeypatch.setattr(cache_analysis, "_measure", noted)
    monkeypatch.setattr("sniff.ingest.parallel._usable_cores", lambda: 2)  # even on one core
    monkeypatch.setattr(cache_analysis, "PARALLEL_MIN_REQUESTS", 0)
    shared_out = analyze_cache(requests, PriceBook(), policies, what_ifs=what_ifs)
    assert len(set(pids.read_text().split())) == 2  # this process and a forked worker
    assert shared_out == alone
    assert [what_if.measures.requests for what_if in alone.what_if] == [alone.observed.requests] * 5
    assert alone.observed.requests > 100
