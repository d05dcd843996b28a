"""The longer-TTL verdict (`sniff.analyses.cache.ttl_advice`): one computation for `cache --breaks`
and lint SN012, by each provider's own rules.

Hand-built chains use the builders and published prices of `test_breaks`: a longer TTL costs
every write of the default TTL at its own price (Anthropic: 1-hour writes at 2x base input
instead of 1.25x), and spares the breaks after idle gaps it would have bridged, which read what
they rebuilt instead of writing it again.
"""

from __future__ import annotations

import math
from datetime import timedelta

import msgspec
import pytest

from sniff.analyses.cache.breaks import break_part, break_report, find_breaks
from sniff.model import Request
from sniff.present.json.breaks import ttl_advice_json
from sniff.present.terminal.breaks import ttl_advice_lines
from tests.unit.test_breaks import BOOK, MINUTE, SONNET, breaks, causes, gpt, per_token, req


def test_one_hour_writes_are_weighed_against_the_rebuilds_they_avoid() -> None:
    report = breaks(
        req("a", 0, 0, 10_000),
        req("b", 30, 10_000, 500, previous="a"),
        req("c", 20 * MINUTE, 0, 10_900, previous="b"),  # expired after 20 min: 10,500 rebuilt
        req("d", 21 * MINUTE, 10_900, 200, previous="c"),
        req("e", 200 * MINUTE, 0, 11_300, previous="d"),  # over an hour: 1 h would not help
        # a chain already on 1-hour writes adds nothing
        req("x", 0, 0, 0, session="s2", write_1h=9_000),
        req("y", 25 * MINUTE, 9_000, 0, session="s2", write_1h=300, previous="x"),
    )
    assert causes(report) == {
        "a": "cold_start",
        "c": "ttl_expired",
        "e": "ttl_expired",
        "x": "cold_start",
    }
    _, read, write_5m, write_1h, _ = per_token(SONNET)
    [hour] = report.ttl_advice.retentions
    # every 5-minute write paid at the 1-hour price (10,000 + 500 + 10,900 + 200 + 11,300),
    # but for the 10,500 rebuilt by c, which a 1-hour TTL would not write at all
    extra = (32_900 - 10_500) * (write_1h - write_5m)
    avoided = 10_500 * (write_5m - read)
    assert (hour.longer.provider, hour.longer.ttl, hour.requests) == ("anthropic", "1h", 7)
    assert hour.extra_write_cost_usd == pytest.approx(extra)
    assert [b.request.key for b in hour.spared] == ["c"]
    assert hour.avoided_rebuild_cost_usd == pytest.approx(avoided)
    assert hour.net_saving_usd == pytest.approx(avoided - extra)
    assert hour.pays is False  # $0.0362 saved, $0.0504 more for writes
    # only the session with a spared break is listed, with the same figures
    [session] = report.ttl_advice.sessions
    assert session.session == "s1"
    assert session.net_saving_usd == hour.net_saving_usd


def test_one_hour_pays_when_rebuilds_dominate() -> None:
    # three rebuilds of ~30,000 tokens after 10-minute gaps, few new tokens in between
    requests = [req("a0", 0, 0, 30_000), req("a1", 30, 30_000, 100, previous="a0")]
    for index in range(1, 4):
        cached = requests[-1].usage.cache_read_tokens + requests[-1].usage.cache_write_tokens
        rebuild = req(f"b{index}", index * 10 * MINUTE, 0, cached + 100, previous=requests[-1].key)
        requests += [
            rebuild,
            req(f"c{index}", index * 10 * MINUTE + 30, cached + 100, 100, previous=rebuild.key),
        ]
    report = breaks(*requests)
    _, read, write_5m, write_1h, _ = per_token(SONNET)
    rebuilt = 30_100 + 30_300 + 30_500
    written = sum(request.usage.cache_write_5m_tokens for request in requests)
    hour = report.ttl_advice.of("anthropic")
    assert hour is not None
    assert [found.cause for found in report.faults] == ["ttl_expired"] * 3
    assert len(hour.spared) == 3 and hour.avoided_tokens == rebuilt
    assert hour.avoided_rebuild_cost_usd == pytest.approx(rebuilt * (write_5m - read))
    assert hour.extra_write_cost_usd == pytest.approx((written - rebuilt) * (write_1h - write_5m))
    assert hour.pays is True
    legacy = ttl_advice_json(report)
    assert legacy["recommend_1h"] is True
    assert legacy["net_saving_usd"] == round(hour.net_saving_usd or 0.0, 6)


def test_each_session_gets_its_own_verdict_and_the_whole_is_their_sum() -> None:
    """The scope may not pay while one session does: lint names that session, with the figure
    `cache --breaks` lists for it."""
    paying = [
        req("a", 0, 0, 30_000),
        req("b", 10 * MINUTE, 0, 30_100),  # rebuilt after 10 minutes
        req("c", 20 * MINUTE, 0, 30_200),  # and again
    ]
    # a busy session that never pauses: 1-hour writes would only cost more
    costly = [req(f"k{n}", n * MINUTE, 20_000 * (n - 1), 20_000, session="s2") for n in range(1, 6)]
    report = breaks(*paying, *costly)
    advice = report.ttl_advice
    [hour] = advice.retentions
    [session] = advice.sessions
    assert session.session == "s1" and session.pays
    assert hour.pays is False
    s2_extra = 100_000 * (per_token(SONNET)[3] - per_token(SONNET)[2])
    assert hour.extra_write_cost_usd == pytest.approx(
        (session.extra_write_cost_usd or 0.0) + s2_extra
    )
    assert hour.avoided_rebuild_cost_usd == session.avoided_rebuild_cost_usd
    lines = " ".join(ttl_advice_lines(advice))
    assert f"would have cost {_money(-(hour.net_saving_usd or 0.0))} more" in lines
    assert f"It pays in 1 session: s1 {_money(session.net_saving_usd or 0.0)}" in lines


def _money(usd: float) -> str:
    from sniff.numbers import money

    return money(usd)


def test_openai_extended_retention_spares_gaps_under_half_an_hour_at_no_charge() -> None:
    report = breaks(
        gpt("a", 0, 0, 20_000),
        gpt("b", 20 * MINUTE, 0, 20_500, previous="a"),  # in_memory lost it after 20 min
        gpt("c", 21 * MINUTE, 20_480, 300, previous="b"),
        gpt("d", 70 * MINUTE, 0, 21_000, previous="c"),  # 49 min: longer than it is kept
    )
    assert causes(report) == {"a": "cold_start", "b": "ttl_expired", "d": "ttl_expired"}
    [retention] = report.ttl_advice.retentions
    assert (retention.longer.provider, retention.longer.ttl) == ("openai", "24h")
    assert retention.extra_write_cost_usd == 0.0  # no charge for it
    [spared] = retention.spared
    assert spared.request.key == "b"
    assert retention.net_saving_usd == spared.cost_usd and retention.pays
    assert "prompt_cache_retention" in retention.longer.setting
    assert ttl_advice_json(report)["recommend_1h"] is False  # no Anthropic request


def test_a_codex_rollout_gets_no_longer_ttl_advice() -> None:
    """The same OpenAI requests sent by the Codex CLI: the tool has no setting for it."""
    rollout = [
        codex(gpt("a", 0, 0, 20_000)),
        codex(gpt("b", 20 * MINUTE, 0, 20_500, previous="a")),
    ]
    report = breaks(*rollout)
    assert causes(report) == {"a": "cold_start", "b": "ttl_expired"}
    advice = report.ttl_advice
    assert (advice.retentions, advice.sessions) == ((), ())
    assert advice.no_setting == (("codex", 2),)
    assert ttl_advice_json(report)["retentions"] == []
    [line] = ttl_advice_lines(advice)
    assert line.startswith("No longer-TTL advice for the 2 codex requests")


def codex(request: Request) -> Request:
    return msgspec.structs.replace(request, source="codex")


def test_no_verdict_for_a_model_without_a_longer_retention() -> None:
    # gpt-5.5 has only the extended retention: nothing longer to choose
    chain = [gpt("a", 0, 0, 20_000), gpt("b", 20 * MINUTE, 0, 20_500, previous="a")]
    advice = breaks(*(msgspec.structs.replace(r, model="gpt-5.5") for r in chain)).ttl_advice
    assert (advice.retentions, advice.sessions, advice.no_setting) == ((), (), ())


def test_no_verdict_before_the_provider_sold_it() -> None:
    chain = [long_ago(req("a", 0, 0, 20_000)), long_ago(req("b", 600, 0, 20_100))]
    advice = breaks(*chain).ttl_advice
    assert (advice.retentions, advice.sessions, advice.no_setting) == ((), (), ())


def long_ago(request: Request) -> Request:
    """The request 500 days earlier: before Anthropic's 1-hour TTL (2025-04-11)."""
    shift = timedelta(days=500)
    assert request.started_at is not None
    return msgspec.structs.replace(
        request, started_at=request.started_at - shift, ended_at=request.ended_at - shift
    )


def test_an_unknown_model_gets_no_figure_and_no_advice() -> None:
    chain = [
        req("a", 0, 0, 30_000, model="claude-nonesuch-9"),
        req("b", 10 * MINUTE, 0, 30_100, model="claude-nonesuch-9"),
    ]
    report = breaks(*chain)
    [hour] = report.ttl_advice.retentions
    assert hour.extra_write_cost_usd is None and hour.net_saving_usd is None
    assert hour.pays is False
    assert ttl_advice_json(report)["net_saving_usd"] is None  # never $0
    assert "unpriced" in ttl_advice_lines(report.ttl_advice)[0]


def test_parts_joined_give_exactly_the_verdict_of_everything() -> None:
    first = [req("a", 0, 0, 30_000), req("b", 10 * MINUTE, 0, 30_100, previous="a")]
    second = [
        req("x", 5, 0, 12_345, session="s2"),
        req("y", 7 * MINUTE, 0, 12_400, session="s2", previous="x"),
        req("z", 8 * MINUTE, 12_400, 77, session="s2", previous="y"),
    ]
    whole = find_breaks([*first, *second], BOOK).ttl_advice
    parts = [break_part(second, BOOK), break_part(first, BOOK)]
    assert break_report(parts, BOOK).ttl_advice == whole
    [hour] = whole.retentions
    assert {verdict.session for verdict in whole.sessions} == {"s1", "s2"}
    assert hour.net_saving_usd == pytest.approx(
        math.fsum(verdict.net_saving_usd or 0.0 for verdict in whole.sessions)
    )


def test_a_break_rebuilt_partly_as_input_saves_only_the_writes_it_made() -> None:
    """Where a rebuild was paid partly as uncached input, the 1-hour TTL spares that input
    (read instead) but no 5-minute write: only the written part is taken off the dearer writes."""
    report = breaks(
        req("a", 0, 0, 30_000),
        req("b", 10 * MINUTE, 0, 20_000, 10_100, previous="a"),  # 20,000 written, 10,000 input
    )
    [found] = report.faults
    assert found.rebuilt_tokens == 30_000
    _, _, write_5m, write_1h, _ = per_token(SONNET)
    hour = report.ttl_advice.of("anthropic")
    assert hour is not None
    assert hour.extra_write_cost_usd == pytest.approx(30_000 * (write_1h - write_5m))
