"""The context-growth rule: when a fresh session would have been cheaper, and the computation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sniff.analyses.cache.context_growth import context_growth
from sniff.model import Agent, Request, Usage
from sniff.price_table import PriceCache
from sniff.pricing import PriceBook

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SONNET = "claude-sonnet-4-20250514"
READ, WRITE = 0.30 / 1e6, 3.75 / 1e6
"""Claude Sonnet 4's cache-read and 5-minute cache-write prices per token (below 200k)."""


@pytest.fixture
def book(tmp_path: Path) -> PriceBook:
    return PriceBook(cache=PriceCache(tmp_path / "prices"))


def request(
    index: int,
    prompt: int,
    *,
    agent: Agent = Agent.MAIN,
    compacted: bool = False,
    model: str = SONNET,
    session: str = "s1",
) -> Request:
    when = START + timedelta(minutes=index)
    return Request(
        source="request-log", key=f"{session}-{index}", project="/home/dana/src/webshop",
        session_id=session, agent=agent, agent_id="main" if agent is Agent.MAIN else "a1",
        model=model, provider="anthropic", ended_at=when + timedelta(seconds=3),
        started_at=when, usage=Usage(cache_read_tokens=prompt - 100, input_tokens=100),
        file="requests.jsonl", line=index + 1, compacted=compacted,
    )  # fmt: skip


def chain(prompts: list[int], **given: object) -> list[Request]:
    return [request(i, prompt, **given) for i, prompt in enumerate(prompts)]  # type: ignore[arg-type]


GROWN = [10_000, 40_000] + [70_000] * 6
"""Base 10k; at #2 the context carries 30k beyond it, and each of the 6 later requests reads
them again: 180k tokens at the read price ($0.054) against writing 10k once ($0.0375)."""


def test_a_grown_session_is_flagged_at_the_first_request_where_a_fresh_one_pays(book):
    report = context_growth(chain(GROWN), book)
    (session,) = report.flagged
    crossing = session.crossing
    assert crossing is not None
    assert (crossing.index, crossing.key, crossing.base_tokens) == (1, "s1-1", 10_000)
    assert (crossing.carried_tokens, crossing.later_requests) == (30_000, 6)
    assert crossing.dropped_tokens == 180_000
    assert crossing.reads_usd == pytest.approx(180_000 * READ, rel=1e-12)
    assert crossing.rebuild_usd == pytest.approx(10_000 * WRITE, rel=1e-12)
    assert crossing.saved_usd == pytest.approx(180_000 * READ - 10_000 * WRITE, rel=1e-12)
    assert [point.prompt_tokens for point in session.points] == GROWN
    assert session.peak_tokens == 70_000


def test_a_session_that_grew_too_little_is_not_flagged(book):
    # at #2, 2k carried for 3 later requests: $0.0018 of reads against $0.0375
    report = context_growth(chain([10_000, 12_000, 14_000, 16_000, 18_000]), book)
    (session,) = report.sessions
    assert session.crossing is None and report.flagged == ()
    assert session.unpriced is None


def test_one_request_short_of_crossing_is_not_flagged(book):
    # 30k carried over 4 later requests is 120k tokens: $0.036, under the $0.0375 rebuild
    report = context_growth(chain([10_000] + [40_000] * 5), book)
    assert report.flagged == ()
    report = context_growth(chain([10_000] + [40_000] * 6), book)
    (session,) = report.flagged
    assert session.crossing is not None and session.crossing.dropped_tokens == 150_000


def test_a_compaction_resets_the_growth(book):
    requests = chain(GROWN)
    requests[2] = request(2, 70_000, compacted=True)  # the context is summarised before #3
    report = context_growth(requests, book)
    (session,) = report.sessions
    # the segment from #3 on starts at 70k: nothing grew beyond its own base
    assert session.crossing is None
    assert session.compactions == 1
    assert [point.compacted for point in session.points] == [False, False, True] + [False] * 5


def test_a_compaction_request_marks_the_next_main_request(book):
    requests = chain(GROWN)
    requests.insert(2, request(2, 60_000, agent=Agent.COMPACTION))
    requests[3:] = [request(i + 3, p) for i, p in enumerate(GROWN[2:])]
    (session,) = context_growth(requests, book).sessions
    assert session.crossing is None and session.compactions == 1
    assert len(session.points) == len(GROWN)  # the compaction call is not in the series


def test_later_requests_count_only_within_the_segment(book):
    requests = chain(GROWN)
    requests += [request(8, 10_000, compacted=True), request(9, 12_000)]
    (session,) = context_growth(requests, book).flagged
    assert session.crossing is not None and session.crossing.later_requests == 6


def test_subagents_are_kept_apart(book):
    requests = chain(GROWN) + [request(i + 20, 150_000, agent=Agent.SUBAGENT) for i in range(3)]
    (session,) = context_growth(requests, book).flagged
    assert session.subagent_requests == 3 and len(session.points) == len(GROWN)
    assert session.crossing is not None and session.crossing.dropped_tokens == 180_000


def test_a_given_base_replaces_the_first_prompt(book):
    # base 5k: at #1, 5k carried for 7 later requests is 35k tokens, $0.0105 of reads against
    # $0.01875 to write 5k; at #2, 35k carried for 6 later requests is 210k tokens: $0.063
    report = context_growth(chain(GROWN), book, base_tokens=5_000)
    (session,) = report.flagged
    crossing = session.crossing
    assert crossing is not None and (crossing.index, crossing.base_tokens) == (1, 5_000)
    assert crossing.dropped_tokens == 210_000
    assert crossing.reads_usd == pytest.approx(210_000 * READ, rel=1e-12)
    assert crossing.rebuild_usd == pytest.approx(5_000 * WRITE, rel=1e-12)


def test_an_unpriced_model_gives_no_flag_and_says_why(book):
    report = context_growth(chain(GROWN, model="mystery-model-9"), book)
    (session,) = report.sessions
    assert session.crossing is None and report.flagged == ()
    assert session.unpriced is not None and "mystery-model-9" in session.unpriced
    assert report.unpriced == (session,)


def test_failed_and_empty_requests_are_left_out(book):
    requests = chain(GROWN)
    requests.insert(1, request(50, 0))
    (session,) = context_growth(requests, book).flagged
    assert len(session.points) == len(GROWN)


def test_flagged_sessions_come_first_by_what_they_would_save(book):
    small = chain([10_000] + [40_000] * 6, session="small")
    large = chain(GROWN + [70_000] * 4, session="large")
    quiet = chain([10_000, 11_000], session="quiet")
    report = context_growth(small + quiet + large, book)
    assert [s.session_id for s in report.sessions] == ["large", "small", "quiet"]


def test_a_session_writing_one_hour_caches_rebuilds_at_the_one_hour_price(book):
    """Writes with a 1-hour TTL so far: the rebuild is priced at it ($6 per million, twice the
    input price), not at 5 minutes' ($3.75). The base, the first prompt, is 11,000 tokens."""
    hourly = [
        Request(
            **{
                **{name: getattr(found, name) for name in found.__struct_fields__},
                "usage": Usage(
                    cache_read_tokens=found.usage.cache_read_tokens,
                    input_tokens=100,
                    cache_write_1h_tokens=1000,
                ),
            }
        )  # fmt: skip
        for found in chain(GROWN)
    ]
    (session,) = context_growth(hourly, book).flagged
    assert session.crossing is not None
    assert session.crossing.rebuild_usd == pytest.approx(11_000 * 6.0 / 1e6, rel=1e-12)
