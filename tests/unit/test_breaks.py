"""Cache breaks (`sniff.analyses.cache.breaks`) on small, hand-built request chains.

Every test builds `Request` records directly: a chain is a session's agent, each request
started `at` seconds after T0 and continuing the one named by `previous` (Claude Code's
`parentUuid` link) or, without a link, the chain's request before it. The expected numbers are
worked out by hand in the comments, from the rule in the module's docstring: a request should
read what its predecessor read and wrote; a break rebuilt that prefix, and costs the rebuilt
tokens at the write (or input) price minus the read price.

Prices are the published ones, per million tokens (input, cache read, 5m write, 1h write,
output), given to a `PriceBook` as overrides so that no price snapshot is involved.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import msgspec
import pytest
from genai_prices.types import ModelPrice

from sniff.analyses.cache.breaks import CAUSES, BreakReport, CacheRules, find_breaks
from sniff.logs import load
from sniff.model import Agent, Block, Request, Usage
from sniff.pricing import PriceBook
from tests.conftest import Lines

T0 = datetime(2026, 2, 11, 10, 0, tzinfo=UTC)
SONNET = "claude-sonnet-4-5-20250929"
OPUS = "claude-opus-4-6"
HAIKU = "claude-haiku-4-5-20251001"
GPT = "gpt-5.1"
MINUTE = 60.0
PRICES = {
    SONNET: (3.00, 0.30, 3.75, 6.00, 15.00),
    OPUS: (5.00, 0.50, 6.25, 10.00, 25.00),
    HAIKU: (1.00, 0.10, 1.25, 2.00, 5.00),
    GPT: (1.25, 0.125, None, None, 10.00),  # automatic caching: no write price
}
BOOK = PriceBook(
    {
        model: ModelPrice(
            input_mtok=Decimal(str(prices[0])),
            cache_read_mtok=Decimal(str(prices[1])),
            cache_write_mtok=None if prices[2] is None else Decimal(str(prices[2])),
            cache_write_1h_mtok=None if prices[3] is None else Decimal(str(prices[3])),
            output_mtok=Decimal(str(prices[4])),
        )
        for model, prices in PRICES.items()
    }
)


def per_token(model: str) -> tuple[float, ...]:
    """The model's published prices, in USD per token."""
    return tuple((price or 0.0) / 1e6 for price in PRICES[model])


# --- builders ----------------------------------------------------------------------------------


def req(
    key: str,
    at: float,
    read: int = 0,
    write: int = 0,
    uncached: int = 4,
    *,
    write_1h: int = 0,
    previous: str | None = None,
    model: str = SONNET,
    session: str = "s1",
    agent: Agent = Agent.MAIN,
    agent_id: str = "main",
    version: str | None = "2.1.38",
    provider: str = "anthropic",
    file: str | None = None,
    blocks: tuple[Block, ...] = (),
    opens_turn: bool = False,
    thinks: bool = False,
    compacted: bool = False,
) -> Request:
    """One successful request that started `at` seconds after T0 and took 5 seconds."""
    start = T0 + timedelta(seconds=at)
    return Request(
        source="claude-code" if provider == "anthropic" else "request-log",
        key=key,
        project="/home/dana/src/breaks-demo",
        session_id=session,
        agent=agent,
        agent_id=agent_id,
        model=model,
        provider=provider,
        ended_at=start + timedelta(seconds=5),
        usage=Usage(
            input_tokens=uncached,
            cache_read_tokens=read,
            cache_write_5m_tokens=write,
            cache_write_1h_tokens=write_1h,
        ),
        file=file or f"{session}.jsonl",
        line=1,
        started_at=start,
        version=version,
        blocks=blocks,
        previous=previous,
        opens_turn=opens_turn,
        thinks=thinks,
        compacted=compacted,
    )


def gpt(key: str, at: float, read: int, uncached: int, previous: str | None = None) -> Request:
    """An OpenAI request: cached tokens are reported, writes are not."""
    return req(
        key, at, read, 0, uncached, previous=previous, model=GPT, provider="openai", version=None
    )


def breaks(*requests: Request, keep: Callable[[Request], bool] | None = None) -> BreakReport:
    return find_breaks(list(requests), BOOK, keep=keep)


def causes(report: BreakReport) -> dict[str, str]:
    """Request key → cause of every break, cold starts included."""
    return {found.request.key: found.cause for found in report.breaks}


def warm_chain(
    size: int = 16_000, *, model: str = SONNET, file: str | None = None
) -> list[Request]:
    """A cold start `a` and a request `b` 30 s later that reads it all and writes 2,000 more."""
    return [
        req("a", 0, 0, size, 3, model=model, file=file),
        req("b", 30, size, 2_000, 6, previous="a", model=model, file=file),
    ]


# --- what is not a break -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "after"),
    [
        # reads what a and b read and wrote: 16,000 + 2,000
        ("reads all it shared", req("c", 60, 18_000, 700, previous="b")),
        # reads grew, though not to all of it: the reads of b were not lost
        ("reads grew, short of the shared prefix", req("c", 60, 17_000, 1_700, previous="b")),
        # an hour later, still reading more than b: whatever happened, nothing was rebuilt
        ("reads grew after a long gap", req("c", 3_600, 18_000, 700, previous="b")),
    ],
)
def test_requests_whose_reads_do_not_drop_are_not_breaks(label: str, after: Request) -> None:
    report = breaks(*warm_chain(), after)
    assert report.faults == [], label
    assert report.tolerated == [], label
    assert causes(report) == {"a": "cold_start"}


@pytest.mark.parametrize(
    ("before_read", "before_write", "read", "tolerance", "tolerated"),
    [
        # b left 8,000 + 100 = 8,100 cached: 2 % is 162, so the tolerance is 256 tokens;
        # c reads 100 less than b did, so its shortfall is 200 (tolerated) or 257 (a break)
        (8_000, 100, 7_900, 256, True),
        (8_000, 100, 7_843, 256, False),
        # b left 50,000 + 500 = 50,500: the tolerance is 2 %, 1,010 tokens
        (50_000, 500, 49_490, 1_010, True),
        (50_000, 500, 49_489, 1_010, False),
    ],
)
def test_a_drop_within_the_tolerance_is_tolerated_not_a_break(
    before_read: int, before_write: int, read: int, tolerance: int, tolerated: bool
) -> None:
    report = breaks(
        req("a", 0, 0, before_read),
        req("b", 30, before_read, before_write, previous="a"),
        req("c", 60, read, before_read + before_write - read + 300, previous="b"),
    )
    shortfall = before_read + before_write - read
    if tolerated:
        assert report.faults == []
        [item] = report.tolerated
        assert (item.request.key, item.drop, item.tolerance) == ("c", shortfall, tolerance)
    else:
        assert report.tolerated == []
        assert [found.request.key for found in report.faults] == ["c"]


# --- each cause on its own ---------------------------------------------------------------------


def test_model_switch() -> None:
    # /model opus: the first opus request reads nothing and writes the whole prompt
    report = breaks(*warm_chain(), req("c", 90, 0, 18_400, 6, previous="b", model=OPUS))
    [found] = report.faults
    assert (found.request.key, found.cause, found.previous.key if found.previous else None) == (
        "c",
        "model_switch",
        "b",
    )
    assert (found.expected_read, found.rebuilt_tokens) == (18_000, 18_000)
    assert found.gap_seconds == pytest.approx(60)
    # priced at the new model's rates
    _, read, write_5m, _, _ = per_token(OPUS)
    assert found.cost_usd == pytest.approx(18_000 * (write_5m - read))


def test_compaction_when_the_prompt_falls_below_half() -> None:
    report = breaks(
        req("a", 0, 0, 20_000),
        req("b", 30, 20_000, 130_000, previous="a"),  # a 150,004-token prompt
        # after the summary: reads the system part, writes the summary (20,004 < 75,002)
        req("c", 120, 15_000, 5_000, previous="b"),
    )
    assert causes(report)["c"] == "compaction"


def test_compaction_when_a_compaction_call_ran_in_between() -> None:
    # the prompt only fell to 60 %, but a compaction agent ran between b and c, and c does not
    # continue b (a compact_boundary has no parent), so the chain's previous request stands in
    report = breaks(
        req("a", 0, 0, 20_000),
        req("b", 30, 20_000, 30_000, previous="a"),
        req("x", 40, 50_000, 1_300, agent=Agent.COMPACTION, agent_id="acompact-4be09d"),
        req("c", 100, 15_000, 15_000),
    )
    # the summariser's first (and only) request is the compaction's cost too: expected
    assert causes(report) == {"a": "cold_start", "x": "compaction", "c": "compaction"}
    assert report.faults == []
    [found] = [found for found in report.breaks if found.request.key == "c"]
    assert found.previous is not None and found.previous.key == "b"


def test_version_change() -> None:
    report = breaks(*warm_chain(), req("c", 90, 0, 18_400, 4, previous="b", version="2.1.39"))
    assert causes(report)["c"] == "version_change"


def test_below_minimum() -> None:
    # claude-haiku-4-5 caches nothing under 4,096 tokens: after b read and wrote 5,994, c's
    # prompt fell to 3,628 (more than half of b's 5,998): nothing read, nothing written
    report = breaks(
        req("a", 0, 0, 5_592, model=HAIKU, agent=Agent.SUBAGENT, agent_id="a91d2e5"),
        req(
            "b", 3, 5_592, 402, previous="a", model=HAIKU, agent=Agent.SUBAGENT, agent_id="a91d2e5"
        ),
        req(
            "c", 6, 0, 0, 3_628, previous="b", model=HAIKU, agent=Agent.SUBAGENT, agent_id="a91d2e5"
        ),
    )
    [found] = report.faults
    assert (found.cause, found.expected_read, found.rebuilt_tokens) == (
        "below_minimum",
        3_628,
        3_628,
    )
    uncached, read, *_ = per_token(HAIKU)
    assert found.cost_usd == pytest.approx(3_628 * (uncached - read))  # rebuilt as input


def test_prefix_changed_when_the_prompt_shrinks_slightly() -> None:
    # an old tool result (inside b's writes) cleared: the prompt falls to 82 % of c's, and d
    # reads only a's prefix
    report = breaks(
        req("a", 0, 0, 16_420),
        req("b", 30, 16_420, 9_850, previous="a"),
        req("c", 60, 26_270, 40_000, previous="b"),  # 66,274
        req("d", 90, 16_420, 38_000, 6, previous="c"),  # 54,426
    )
    [found] = report.faults
    assert (found.request.key, found.cause) == ("d", "prefix_changed")
    # expected: the whole prompt (smaller than what c cached); rebuilt: the 38,000 written and
    # the 6 uncached tokens
    assert (found.expected_read, found.rebuilt_tokens) == (54_426, 38_006)


def test_prefix_changed_names_the_first_block_that_differs() -> None:
    # request logs hold the prompt: the tool list changed, the prompt still grew
    tool = Block("tool", "tools", "t1", 900)
    new_tool = Block("tool", "tools", "t2", 700)
    system = Block("text", "system", "s", 4_000)
    message = Block("text", "user", "m", 100)
    report = breaks(
        req("a", 0, 0, 5_000, blocks=(tool, system, message)),
        req("b", 30, 5_000, 300, previous="a", blocks=(tool, system, message, message)),
        req("c", 60, 0, 6_000, previous="b", blocks=(tool, new_tool, system, message, message)),
    )
    [found] = report.faults
    assert (found.cause, found.detail) == ("prefix_changed", "block 2 changed: tool (tools)")


@pytest.mark.parametrize(("gap", "cause"), [(301.0, "ttl_expired"), (299.0, "unexplained")])
def test_ttl_expired_after_five_minutes_start_to_start(gap: float, cause: str) -> None:
    report = breaks(*warm_chain(), req("c", 30 + gap, 0, 18_400, previous="b"))
    [found] = report.faults
    assert found.cause == cause
    assert found.gap_seconds == pytest.approx(gap)


@pytest.mark.parametrize(("gap", "cause"), [(30 * MINUTE, "unexplained"), (3_601.0, "ttl_expired")])
def test_one_hour_ttl_where_the_chain_wrote_one_hour_entries(gap: float, cause: str) -> None:
    report = breaks(
        req("a", 0, 0, 0, write_1h=27_213),
        req("b", 30, 27_213, 0, write_1h=2_000, previous="a"),
        req("c", 30 + gap, 0, 0, write_1h=29_500, previous="b"),
    )
    [found] = report.faults
    assert (found.cause, found.rebuilt_1h_tokens) == (cause, 29_213)
    _, read, _, write_1h, _ = per_token(SONNET)
    assert found.cost_usd == pytest.approx(29_213 * (write_1h - read))


def test_resume_through_a_link_into_another_session() -> None:
    # `claude --continue` 70 s later: a new session in a new file replays the old one, and its
    # first new request continues b (the replayed copies count once, for the old session)
    report = breaks(
        *warm_chain(file="old.jsonl"),
        req("c", 100, 0, 18_300, previous="b", session="s2", file="new.jsonl"),
    )
    [found] = report.faults
    assert (found.cause, found.previous.key if found.previous else None) == ("resume", "b")
    assert found.gap_seconds == pytest.approx(70)


def test_a_new_session_without_a_link_is_a_cold_start() -> None:
    report = breaks(*warm_chain(), req("c", 100, 0, 18_300, session="s2"))
    assert causes(report) == {"a": "cold_start", "c": "cold_start"}
    assert report.faults == []


def test_unexplained() -> None:
    # 20 s later, same model and version, the prompt grew, and still nothing was read
    report = breaks(*warm_chain(), req("c", 50, 0, 18_400, previous="b"))
    [found] = report.faults
    assert (found.cause, found.rebuilt_tokens) == ("unexplained", 18_000)


@pytest.mark.parametrize(("gap", "cause"), [(601.0, "ttl_expired"), (599.0, "unexplained")])
def test_openai_rebuilds_are_paid_as_input_and_expire_after_ten_idle_minutes(
    gap: float, cause: str
) -> None:
    # automatic caching: b cached its whole 5,292-token prompt in 128-token steps (5,248)
    report = breaks(
        gpt("a", 0, 0, 5_000),
        gpt("b", 30, 4_992, 300, previous="a"),
        gpt("c", 30 + gap, 0, 5_600, previous="b"),
    )
    [cold] = [found for found in report.breaks if not found.fault]
    [found] = report.faults
    uncached, read, *_ = per_token(GPT)
    # a cold start caches nothing billable: its uncached input is what it paid more for
    assert (cold.request.key, cold.rebuilt_tokens) == ("a", 5_000)
    assert cold.cost_usd == pytest.approx(5_000 * (uncached - read))
    assert (found.cause, found.expected_read, found.rebuilt_tokens) == (cause, 5_248, 5_248)
    assert found.rebuilt_1h_tokens == 0
    assert found.cost_usd == pytest.approx(5_248 * (uncached - read))


# --- precedence --------------------------------------------------------------------------------


def test_causes_are_listed_in_precedence_order() -> None:
    assert CAUSES == (
        "cold_start",
        "model_switch",
        "compaction",
        "version_change",
        "below_minimum",
        "thinking_dropped",
        # only a provider names these (its diagnostics): precise forms of prefix_changed
        "tools_changed",
        "system_changed",
        "messages_changed",
        "prompt_cache_key_changed",
        "service_tier_changed",
        "text_format_changed",
        "reasoning_effort_changed",
        "verbosity_changed",
        "input_changed",
        "prefix_changed",
        "ttl_expired",
        "resume",
        "unexplained",
    )


HOUR = 3_600.0


@pytest.mark.parametrize(
    ("label", "after", "cause"),
    [
        (
            "model switch after a long gap",
            req("c", HOUR, 0, 18_400, previous="b", model=OPUS),
            "model_switch",
        ),
        (
            "model switch and version change",
            req("c", 60, 0, 18_400, previous="b", model=OPUS, version="2.1.39"),
            "model_switch",
        ),
        ("compaction after a long gap", req("c", HOUR, 0, 8_000, previous="b"), "compaction"),
        (
            "compaction and version change",
            req("c", 60, 0, 8_000, previous="b", version="2.1.39"),
            "compaction",
        ),
        (
            "version change after a long gap (a resume a day later)",
            req("c", 24 * HOUR, 0, 18_400, previous="b", version="2.1.39", session="s2"),
            "version_change",
        ),
        (
            # without a logged prompt the log shows only that the prompt shrank somewhere;
            # the hour idle alone explains rebuilding all of it
            "a shrunk prompt after a long gap",
            req("c", HOUR, 0, 15_000, previous="b"),
            "ttl_expired",
        ),
        (
            "a shrunk prompt within the TTL",
            req("c", 200, 0, 15_000, previous="b"),
            "prefix_changed",
        ),
        (
            "resume after more than five minutes",
            req("c", 400, 0, 18_400, previous="b", session="s2"),
            "ttl_expired",
        ),
    ],
)
def test_the_first_cause_in_precedence_wins(label: str, after: Request, cause: str) -> None:
    report = breaks(*warm_chain(), after)
    assert causes(report)["c"] == cause, label


def test_below_minimum_comes_before_an_expired_ttl() -> None:
    report = breaks(
        req("a", 0, 0, 5_592, model=HAIKU),
        req("b", 3, 5_592, 402, previous="a", model=HAIKU),
        req("c", 900, 0, 0, 3_628, previous="b", model=HAIKU),
    )
    assert causes(report)["c"] == "below_minimum"


# --- cold starts, the price ----------------------------------------------------------------------


def test_cold_starts_are_reported_apart_and_are_not_faults() -> None:
    report = breaks(
        *warm_chain(),
        req("s", 10, 0, 11_253, 12, model=HAIKU, agent=Agent.SUBAGENT, agent_id="a4c19e2"),
        req(
            "t",
            20,
            11_253,
            680,
            8,
            previous="s",
            model=HAIKU,
            agent=Agent.SUBAGENT,
            agent_id="a4c19e2",
        ),
        # a first request below the minimum wrote nothing: nothing to report
        req("u", 40, 0, 0, 2_937, model=HAIKU, agent=Agent.SUBAGENT, agent_id="a91d2e5"),
    )
    assert causes(report) == {"a": "cold_start", "s": "cold_start"}
    assert all(not found.fault for found in report.breaks)
    assert report.faults == []
    # every table counts them, as expected breaks
    [row] = report.by_cause
    assert (row.key, row.faults, row.expected) == ("cold_start", 0, 2)
    assert row.rebuilt_tokens == 16_000 + 11_253
    [project] = report.by_project
    assert (project.faults, project.expected) == (0, 2)
    sonnet, haiku = per_token(SONNET), per_token(HAIKU)
    assert row.cost_usd == pytest.approx(
        16_000 * (sonnet[2] - sonnet[1]) + 11_253 * (haiku[2] - haiku[1])
    )


@pytest.mark.parametrize(
    ("read", "write_5m", "write_1h", "uncached", "cause", "rebuilt", "parts"),
    [
        # the prompt shrank to 30,000 tokens: of the 20,000 it did not read, 4,000 were written
        # for 1 h, 8,000 for 5 min, and 8,000 paid as uncached input
        (10_000, 8_000, 4_000, 8_000, "prefix_changed", 20_000, (8_000, 4_000, 8_000)),
        # the prompt grew; 8,000 of the 52,000 shared tokens were not read: written for 1 h
        # first (1-hour entries come before 5-minute ones), the rest for 5 min; the new tail
        # (6,004 tokens) would have been written anyway and is not counted
        (44_000, 10_000, 4_000, 4, "unexplained", 8_000, (4_000, 4_000, 0)),
    ],
)
def test_a_break_costs_its_rebuilt_tokens_at_their_price_minus_the_read_price(
    read: int,
    write_5m: int,
    write_1h: int,
    uncached: int,
    cause: str,
    rebuilt: int,
    parts: tuple[int, int, int],
) -> None:
    report = breaks(
        req("a", 0, 0, 30_000, write_1h=20_000),
        req("b", 30, 50_000, 2_000, previous="a"),  # shares 52,000 tokens with c
        req("c", 60, read, write_5m, uncached, write_1h=write_1h, previous="b"),
    )
    [found] = report.faults
    assert found.cause == cause
    assert (found.rebuilt_tokens, found.rebuilt_1h_tokens) == (rebuilt, parts[1])
    price_in, price_read, price_5m, price_1h, _ = per_token(SONNET)
    five_minute, one_hour, as_input = parts
    assert found.cost_usd == pytest.approx(
        five_minute * (price_5m - price_read)
        + one_hour * (price_1h - price_read)
        + as_input * (price_in - price_read),
        rel=1e-12,
    )


def test_an_unpriced_model_has_no_break_cost() -> None:
    report = breaks(
        *warm_chain(model="acme-super-1"),
        req("c", 50, 0, 18_400, previous="b", model="acme-super-1"),
    )
    [found] = report.faults
    assert (found.cause, found.cost_usd) == ("unexplained", None)


# --- windows, gaps, TTL advice -----------------------------------------------------------------


def test_a_time_window_keeps_chains_intact() -> None:
    requests = [
        *warm_chain(),
        req("c", 400, 0, 18_400, previous="b"),
        req("d", 420, 18_400, 300, previous="c"),
    ]
    cut = T0 + timedelta(seconds=300)
    report = breaks(*requests, keep=lambda request: request.when >= cut)
    # c is the first request in the window; its predecessor b is outside, and still counts
    [found] = report.breaks
    assert (found.request.key, found.cause) == ("c", "ttl_expired")
    assert found.previous is not None and found.previous.key == "b"
    assert found.gap_seconds == pytest.approx(370)
    # a window that ends before c: the cold start only
    before = breaks(*requests, keep=lambda request: request.when < cut)
    assert causes(before) == {"a": "cold_start"}


def test_gaps_histogram_counts_requests_breaks_and_their_cost() -> None:
    report = breaks(
        *warm_chain(),  # b: 30 s after a: < 1 min
        req("c", 120, 18_000, 500, previous="b"),  # 90 s: 1-5 min, no break
        req("d", 520, 0, 18_900, previous="c"),  # 400 s: 5-10 min, expired (18,500 rebuilt)
        req("e", 540, 18_900, 200, previous="d"),  # 20 s
        req("f", 2_540, 0, 19_300, previous="e"),  # 2,000 s: 30-60 min, expired (19,100)
        req("g", 2_560, 19_300, 200, previous="f"),  # 20 s
    )
    rows = {
        row.label: (row.requests, row.breaks.faults, row.breaks.fault_cost_usd)
        for row in report.gaps
    }
    _, read, write_5m, _, _ = per_token(SONNET)
    assert rows == {
        "first": (1, 0, 0.0),  # a: the cold start, counted as expected
        "≤ 1m": (3, 0, 0.0),
        "1–5m": (1, 0, 0.0),
        "5–10m": (1, 1, pytest.approx(18_500 * (write_5m - read))),
        "10–30m": (0, 0, 0.0),
        "30–60m": (1, 1, pytest.approx(19_100 * (write_5m - read))),
        "1–2h": (0, 0, 0.0),
        "> 2h": (0, 0, 0.0),
    }
    assert [row.upper_seconds for row in report.gaps][:4] == [None, 60.0, 300.0, 600.0]
    assert report.gaps[0].breaks.expected == 1


# --- defects found and fixed (sniff/analyses/cache/breaks.py) ---------------------------------


def test_a_rebuild_right_after_a_cold_start_is_a_break() -> None:
    # a wrote 16,000; ten minutes later b reads nothing and writes it all again
    report = breaks(req("a", 0, 0, 16_000), req("b", 600, 0, 16_300, previous="a"))
    assert causes(report) == {"a": "cold_start", "b": "ttl_expired"}


def test_a_large_rebuild_is_never_tolerated() -> None:
    report = breaks(
        req("a", 0, 0, 100),
        req("b", 30, 100, 50_000, previous="a"),
        req("c", 730, 0, 50_400, previous="b"),  # 50,100 rebuilt after 12 minutes
    )
    assert report.tolerated == []
    assert causes(report)["c"] == "ttl_expired"


def test_expired_five_minute_entries_of_a_chain_that_mixes_ttls() -> None:
    # the system prompt written for 1 h, the conversation for 5 min (as Claude Code 2.1.63 does)
    report = breaks(
        req("a", 0, 0, 2_290, write_1h=14_207),
        req("b", 30, 16_497, 2_480, previous="a"),
        req("c", 630, 14_207, 5_200, previous="b"),  # 10 min later only the 1-hour part is read
    )
    assert causes(report)["c"] == "ttl_expired"


def test_a_gap_of_exactly_five_minutes_is_counted_under_five_minutes() -> None:
    report = breaks(*warm_chain(), req("c", 330, 18_000, 400, previous="b"))
    rows = {row.label: row.requests for row in report.gaps}
    assert (rows["1–5m"], rows["5–10m"]) == (1, 0)


def test_the_faults_cost_is_their_costs_summed_dearest_first() -> None:
    from sniff.present.json.breaks import breaks_json, by_cause_json, ttl_advice_json

    report = breaks(
        *warm_chain(),
        req("c", 520, 0, 18_900, previous="b"),  # expired: a fault
        req("d", 540, 18_900, 200, previous="c"),
        req("e", 2_540, 0, 19_300, previous="d"),  # expired: a fault
        req("x", 10, 0, 11_253, 12, session="s2"),  # a cold start: not a fault
    )
    faults = report.faults
    assert [found.request.key for found in faults] == ["e", "c"]  # dearest first
    assert report.fault_cost_usd == sum(found.cost_usd or 0.0 for found in faults)
    assert report.fault_cost_usd > 0
    whole = breaks_json(report)
    assert by_cause_json(report) == whole["by_cause"]
    assert ttl_advice_json(report) == whole["ttl_advice"]


# --- thinking blocks dropped at a new user turn --------------------------------------------------


def thinking_turn(model: str = SONNET, *, last_read: int = 16_028) -> list[Request]:
    """The agtrace Claude sample's shape: a user turn whose three responses all thought, two
    of them sent back in tool results, then a new user message.

    a opens the turn and caches 16,028 tokens; its response (thinking, then a tool use) comes
    back in b's prompt, b's in c's. d opens the next turn: a model that drops earlier thinking
    blocks changes the prompt right after a's prefix, so d reads 16,028 and writes the rest.
    """
    return [
        req("a", 0, 12_135, 3_893, 10, model=model, opens_turn=True, thinks=True),
        req("b", 10, 16_028, 458, 14, previous="a", model=model, thinks=True),
        req("c", 20, 16_486, 169, 13, previous="b", model=model, thinks=True),
        req("d", 30, last_read, 333, 10, previous="c", model=model, opens_turn=True),
    ]


def test_thinking_dropped_at_a_new_user_turn_is_expected_and_priced() -> None:
    report = breaks(*thinking_turn())
    [found] = [found for found in report.breaks if found.request.key == "d"]
    # c left 16,486 + 169 = 16,655 cached; d's prompt is 16,371 (its thinking went): d should
    # read 16,371 and read 16,028, 343 short (over the 327-token tolerance): the 333 it wrote
    # and 10 uncached tokens were rebuilt
    assert (found.cause, found.fault) == ("thinking_dropped", False)
    assert (found.expected_read, found.rebuilt_tokens) == (16_371, 343)
    uncached, read, write_5m, _, _ = per_token(SONNET)
    assert found.cost_usd == pytest.approx(333 * (write_5m - read) + 10 * (uncached - read))
    assert "drops earlier thinking blocks" in found.detail
    assert report.faults == []
    assert report.expected_count("thinking_dropped") == 1


def test_a_model_that_keeps_thinking_blocks_changed_its_prefix() -> None:
    # Opus 4.6 keeps earlier thinking blocks: the same shortfall is a real prefix change
    [found] = breaks(*thinking_turn(OPUS)).faults
    assert found.cause == "prefix_changed"


@pytest.mark.parametrize(
    ("label", "chain"),
    [
        # d read less than the prefix before the first thinking block: more changed than that
        ("reads short of the first thought", thinking_turn(last_read=12_135)),
        # no response of the turn thought
        (
            "no thinking",
            [
                msgspec.structs.replace(r, thinks=False) if r.key != "d" else r
                for r in thinking_turn()
            ],
        ),
        # only c (whose response no prompt had sent back yet) thought: nothing cached changed
        (
            "only the last response thought",
            [
                msgspec.structs.replace(r, thinks=r.key == "c") if r.key != "d" else r
                for r in thinking_turn()
            ],
        ),
        # d answers tool results: the API keeps thinking blocks within a tool loop
        (
            "no new user turn",
            [msgspec.structs.replace(r, opens_turn=r.key == "a") for r in thinking_turn()],
        ),
    ],
)
def test_thinking_dropped_needs_its_evidence(label: str, chain: list[Request]) -> None:
    assert causes(breaks(*chain))["d"] == "prefix_changed", label


def test_the_thinking_rule_is_policy_data_a_file_overrides(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(
        '[anthropic]\nthinking_rules = [{ model = "claude-sonnet-4-5", strips = false }]\n'
    )
    report = find_breaks(thinking_turn(), BOOK, CacheRules(policy))
    assert causes(report)["d"] == "prefix_changed"
    assert causes(breaks(*thinking_turn()))["d"] == "thinking_dropped"


def test_logged_prompts_show_the_dropped_thinking_block() -> None:
    # a claude-trace pair: c's prompt sent back a's thinking; d (a new user message, linked to
    # c) no longer holds it, so its prompt differs from c's at that block
    system, user = Block("text", "system", "s", 16_000), Block("text", "user", "u1", 28)
    thought, answer = Block("thinking", "assistant", "t", 300), Block("text", "assistant", "x", 40)
    result, user2 = Block("tool_result", "user", "r", 100), Block("text", "user", "u2", 20)
    report = breaks(
        req("a", 0, 0, 16_028, opens_turn=True, thinks=True, blocks=(system, user)),
        req("c", 10, 16_028, 1_000, previous="a", blocks=(system, user, thought, answer, result)),
        req(
            "d",
            20,
            16_028,
            800,
            previous="c",
            opens_turn=True,
            blocks=(system, user, answer, result, user2),
        ),
    )
    [found] = [found for found in report.breaks if found.request.key == "d"]
    assert found.cause == "thinking_dropped"
    assert "block 3 changed" in found.detail


# --- compaction ----------------------------------------------------------------------------------


def test_the_first_request_after_a_marked_compaction_is_a_compaction() -> None:
    # the prompt fell only to 60 % (not below half), and no compaction call is in the logs:
    # the compact_boundary the transcript holds says what happened
    report = breaks(
        req("a", 0, 0, 20_000),
        req("b", 30, 20_000, 30_000, previous="a"),
        req("c", 100, 15_000, 15_000, compacted=True),
    )
    [found] = [found for found in report.breaks if found.request.key == "c"]
    assert (found.cause, found.fault) == ("compaction", False)
    assert report.faults == []


def test_a_compaction_planted_in_a_claude_code_session_is_judged_compaction(
    tmp_path: Path, cc: type[Lines]
) -> None:
    """A session compacted by Claude Code: a compact_boundary (no parent), its summary, and a
    request that reads only the system prompt (15,000 of the 50,000 cached before)."""
    session = cc.write(
        tmp_path / "projects" / "-home-dana-src-webshop" / f"{cc.SESSION}.jsonl",
        [
            cc.user("u1", None, "2026-02-11T10:00:00.000Z"),
            cc.assistant("m1", "a1", "u1", "2026-02-11T10:00:05.000Z", cc.usage(4, 0, 20_000)),
            cc.tool_result("t1", "a1", "2026-02-11T10:00:06.000Z", "toolu_1"),
            cc.assistant("m2", "a2", "t1", "2026-02-11T10:00:30.000Z", cc.usage(4, 20_000, 30_000)),
            {
                "parentUuid": None,
                "logicalParentUuid": "a2",
                "isSidechain": False,
                "sessionId": cc.SESSION,
                "version": "2.1.39",
                "type": "system",
                "subtype": "compact_boundary",
                "content": "Conversation compacted",
                "timestamp": "2026-02-11T10:01:00.000Z",
                "uuid": "b1",
                "compactMetadata": {"trigger": "auto", "preTokens": 50_004},
            },
            cc.user(
                "s1",
                "b1",
                "2026-02-11T10:01:00.100Z",
                "This session is being continued from a previous conversation...",
                isCompactSummary=True,
                isVisibleInTranscriptOnly=True,
            ),
            cc.assistant("m3", "a3", "s1", "2026-02-11T10:01:40.000Z", cc.usage(4, 15_000, 15_000)),
        ],
    )
    requests = load([session]).requests
    after = next(r for r in requests if r.key == "m3")
    assert (after.compacted, after.previous) == (True, None)
    report = find_breaks(requests, BOOK)
    assert causes(report) == {"m1": "cold_start", "m3": "compaction"}
    assert report.faults == []


def test_transcripts_record_thinking_and_new_user_turns(tmp_path: Path, cc: type[Lines]) -> None:
    thinking = {"type": "thinking", "thinking": "Let me look.", "signature": "sig"}
    session = cc.write(
        tmp_path / "projects" / "-home-dana-src-webshop" / f"{cc.SESSION}.jsonl",
        [
            cc.user("u1", None, "2026-02-11T10:00:00.000Z"),
            cc.assistant(
                "m1",
                "a1",
                "u1",
                "2026-02-11T10:00:05.000Z",
                cc.usage(10, 12_135, 3_893),
                block=thinking,
                model=SONNET,
            ),
            cc.assistant(
                "m1",
                "a1b",
                "a1",
                "2026-02-11T10:00:06.000Z",
                cc.usage(10, 12_135, 3_893),
                block={"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}},
                model=SONNET,
            ),
            cc.tool_result("t1", "a1b", "2026-02-11T10:00:07.000Z", "toolu_1"),
            cc.assistant(
                "m2",
                "a2",
                "t1",
                "2026-02-11T10:00:10.000Z",
                cc.usage(14, 16_028, 458),
                block=thinking,
                model=SONNET,
            ),
            cc.assistant(
                "m2",
                "a2b",
                "a2",
                "2026-02-11T10:00:11.000Z",
                cc.usage(14, 16_028, 458),
                model=SONNET,
            ),
            cc.user("u2", "a2b", "2026-02-11T10:00:20.000Z", "And now the tests."),
            cc.assistant(
                "m3",
                "a3",
                "u2",
                "2026-02-11T10:00:25.000Z",
                cc.usage(10, 16_028, 600),
                model=SONNET,
            ),
        ],
    )
    requests = {r.key: r for r in load([session]).requests}
    assert [(r.opens_turn, r.thinks) for r in requests.values()] == [
        (True, True),
        (False, True),
        (True, False),
    ]
    # m2's prompt sent back m1's thinking; m3 (a new user message) dropped it: it read only
    # what m1 cached (16,028 of the 16,486 m2 left) and wrote the rest again
    [found] = [
        found
        for found in find_breaks(list(requests.values()), BOOK).breaks
        if found.request.key == "m3"
    ]
    assert found.cause == "thinking_dropped"


def test_every_cause_is_explained() -> None:
    from sniff.present.causes import EXPLANATIONS

    assert set(EXPLANATIONS) == set(CAUSES)
