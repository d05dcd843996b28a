"""Latency: per-request timing, percentiles, peaks explained by the cache, goodput."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import numpy
import pytest

from sniff.analyses.latency.measures import (
    Slo,
    analyze_latency,
    is_hit,
    output_band,
)
from sniff.analyses.latency.timing import timing
from sniff.model import Agent, Request, Usage

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def call(
    started: datetime | None,
    ttft: float | None,
    e2e: float,
    *,
    output: int = 200,
    read: int = 0,
    prompt: int = 10_000,
    source: str = "request-log",
    model: str = "claude-sonnet-4-5-20250929",
    error: str | None = None,
    key: str = "r",
) -> Request:
    base = started or START
    return Request(
        source=source,
        key=key,
        project="p",
        session_id="s",
        agent=Agent.MAIN,
        agent_id="main",
        model=model,
        provider="anthropic",
        ended_at=base + timedelta(seconds=e2e),
        started_at=started,
        first_token_at=None if ttft is None else base + timedelta(seconds=ttft),
        usage=Usage(input_tokens=prompt - read, cache_read_tokens=read, output_tokens=output),
        file="f.jsonl",
        line=1,
        error=error,
    )


def test_timing_follows_the_definitions() -> None:
    measured = timing(call(START, 0.8, 5.8, output=101))
    assert measured is not None and measured.exact
    assert measured.ttft == pytest.approx(0.8)
    assert measured.e2e == pytest.approx(5.8)
    assert measured.tpot == pytest.approx(5.0 / 100)  # (end − first token) / (output − 1)


def test_timing_refuses_what_the_log_cannot_tell() -> None:
    assert timing(call(None, None, 3.0)) is None  # no start: nothing to measure from
    assert timing(call(START, 0.5, 2.0, error="overloaded")) is None  # failed call
    single = timing(call(START, 0.5, 2.0, output=1))
    assert single is not None and single.tpot is None  # one token has no time per token
    skewed = timing(call(START, -0.2, 2.0))  # first token "before" the request: clocks differ
    assert skewed is not None and skewed.ttft is None and skewed.e2e == pytest.approx(2.0)
    approximate = timing(call(START, 0.5, 2.0, source="claude-code"))
    assert approximate is not None and not approximate.exact
    # a log that stamps records as written has no first and last token: no TPOT from it
    assert approximate.tpot is None and approximate.ttft == pytest.approx(0.5)


def test_tpot_says_which_logs_cannot_give_it() -> None:
    requests = [
        call(START, 0.5, 0.5 + 1e-5 * i, source="claude-code", key=f"cc{i}") for i in range(40)
    ]
    requests += [call(START, 0.5, 5.5, source="codex", key="codex")]
    requests += [call(START, 0.5, 2.5 + i / 100, key=f"log{i}") for i in range(3)]
    report = analyze_latency(requests, "tpot", UTC)
    assert report.count == 3 and report.exact == 3  # only the request log's
    assert report.not_measurable == {"claude-code": 40, "codex": 1}
    assert any("no time per output token for 40 claude-code, 1 codex" in n for n in report.notes)
    assert analyze_latency(requests, "ttft", UTC).not_measurable == {}


def test_percentiles_keep_what_the_fit_leaves_out() -> None:
    rng = random.Random(3)
    values = [rng.lognormvariate(0, 0.2) for _ in range(200)] + [900.0, 1000.0]
    requests = [call(START, v, v + 1, key=str(i)) for i, v in enumerate(values)]
    report = analyze_latency(requests, "ttft", UTC)
    assert report.percentiles is not None and report.percentiles.maximum == 1000.0
    assert any("left out of the peak fit as outliers: 2 above" in n for n in report.notes)
    assert sum(count for _, _, count in report.peaks.bins) == 200


def test_percentiles_match_numpy() -> None:
    rng = random.Random(7)
    values = [rng.lognormvariate(0, 0.6) for _ in range(501)]
    requests = [call(START, v, v + 1, key=str(i)) for i, v in enumerate(values)]
    report = analyze_latency(requests, "ttft", UTC)
    assert report.percentiles is not None
    for got, q in ((report.percentiles.p50, 50), (report.percentiles.p99, 99)):
        assert got == pytest.approx(float(numpy.percentile(values, q)))
    assert report.count == 501 and report.exact == 501


def two_populations(hit_share_by_day: list[float], per_day: int = 600) -> list[Request]:
    """Cache hits answer in about 0.8 s, misses in about 3 s; each day has its own hit share."""
    rng = numpy.random.default_rng(3)
    requests = []
    for day, hit_share in enumerate(hit_share_by_day):
        for index in range(per_day):
            hit = index < hit_share * per_day
            ttft = float(rng.lognormal(numpy.log(0.8 if hit else 3.0), 0.25))
            started = START + timedelta(days=7 * day, seconds=index * 10)  # a week apart
            requests.append(
                call(started, ttft, ttft + 2, read=9_000 if hit else 0, key=f"{day}-{index}")
            )
    return requests


def test_each_peak_is_explained_by_the_cache() -> None:
    report = analyze_latency(two_populations([0.7]), "ttft", UTC)
    assert len(report.explained) == 2
    fast, slow = report.explained
    assert fast.peak.location == pytest.approx(0.8, rel=0.1)
    assert slow.peak.location == pytest.approx(3.0, rel=0.1)
    assert fast.hit_share is not None and fast.hit_share > 0.95
    assert slow.hit_share is not None and slow.hit_share < 0.05
    assert fast.peak.share == pytest.approx(0.7, abs=0.05)


def test_peaks_over_time_change_height_not_place() -> None:
    report = analyze_latency(two_populations([0.8, 0.3]), "ttft", UTC)
    first, second = report.over_time
    assert first.shares[0] == pytest.approx(0.8, abs=0.05)
    assert second.shares[0] == pytest.approx(0.3, abs=0.05)
    assert first.hit_rate is not None and second.hit_rate is not None
    assert first.hit_rate > second.hit_rate
    for index in range(2):  # each peak's median stays where it was
        one, two = first.medians[index], second.medians[index]
        assert one is not None and two is not None and two == pytest.approx(one, rel=0.1)


def test_goodput_counts_requests_meeting_every_target() -> None:
    requests = [
        call(START, 0.5, 4.0, key="fast"),
        call(START + timedelta(hours=1), 0.9, 12.0, key="slow end"),
        call(START + timedelta(hours=2), 2.5, 6.0, key="slow start", model="claude-opus-4-6"),
        call(START + timedelta(hours=3), None, 5.0, key="no first token"),
    ]
    report = analyze_latency(requests, "e2e", UTC, Slo(ttft=1.0, e2e=10.0))
    goodput = report.goodput
    assert goodput is not None
    assert (goodput.total.measured, goodput.total.good, goodput.unmeasured) == (3, 1, 1)
    # one good request; the three measured started in three clock hours of one day
    assert (goodput.active_hours, goodput.active_days) == (3, 1)
    assert goodput.per_hour == pytest.approx(1 / 3)
    assert goodput.per_active_day == pytest.approx(1.0)
    by_model = {row.key: (row.measured, row.good) for row in goodput.by_model}
    assert by_model == {"claude-sonnet-4-5-20250929": (2, 1), "claude-opus-4-6": (1, 0)}
    assert analyze_latency(requests, "e2e", UTC).goodput is None  # no target, no goodput


def test_goodput_is_per_hour_of_activity_not_of_the_span() -> None:
    # eleven good requests in two busy hours, fifteen months apart
    requests = [call(START + timedelta(minutes=i), 0.5, 1.0, key=f"a{i}") for i in range(6)]
    later = START + timedelta(days=460)
    requests += [call(later + timedelta(minutes=i), 0.5, 1.0, key=f"b{i}") for i in range(5)]
    goodput = analyze_latency(requests, "ttft", UTC, Slo(ttft=1.0)).goodput
    assert goodput is not None and goodput.total.good == 11
    assert goodput.active_hours == 2 and goodput.per_hour == pytest.approx(5.5)
    assert goodput.per_active_day == pytest.approx(5.5)


def test_hits_and_output_bands() -> None:
    assert is_hit(call(START, 1, 2, read=6_000)) is True
    assert is_hit(call(START, 1, 2, read=4_000)) is False
    assert is_hit(call(START, 1, 2, prompt=0)) is None
    assert [output_band(n) for n in (5, 100, 5_000, 50_000)] == [
        "< 100",
        "100–999",
        "1k–10k",
        "≥ 10k",
    ]


def test_few_samples_say_so_rather_than_invent_peaks() -> None:
    requests = [call(START, 1.0 + i / 10, 3.0, key=str(i)) for i in range(8)]
    report = analyze_latency(requests, "ttft", UTC)
    assert report.explained == [] and report.count == 8
    assert any("few" in note for note in report.notes)


def shown(ttft: float, visible: float | None, model: str, key: str) -> Request:
    """A Claude Code request whose first visible token came `visible` s after its start."""
    from msgspec.structs import replace

    request = call(START, ttft, 30.0, source="claude-code", model=model, key=key)
    moment = None if visible is None else START + timedelta(seconds=visible)
    return replace(request, visible_at=moment)


def test_the_first_visible_token_sits_beside_ttft_per_model() -> None:
    thinker, plain = "claude-opus-4-6", "claude-sonnet-4-20250514"
    requests = [
        shown(1.0, 4.0, thinker, "a"),  # 3 s later
        shown(2.0, 3.0, thinker, "b"),  # 1 s later
        shown(1.5, 1.5, thinker, "c"),  # no thinking: the text came first
        shown(0.5, 0.5, plain, "d"),
        shown(0.7, None, plain, "e"),  # neither text nor a tool call
    ]
    report = analyze_latency(requests, "visible", UTC, Slo(visible=2.0, ttft=1.8))
    assert report.count == 4 and report.not_measurable == {"claude-code": 1}
    assert report.percentiles is not None and report.percentiles.maximum == pytest.approx(4.0)
    everything, first, second = report.beside
    assert (everything.model, everything.requests, everything.later) == ("all models", 4, 2)
    assert (first.model, first.requests, first.later) == (thinker, 3, 2)
    assert first.ttft_median == pytest.approx(1.5) and first.visible_median == pytest.approx(3.0)
    assert first.difference_median == pytest.approx(2.0)  # of the two later: 3 s and 1 s
    assert (second.model, second.later, second.difference_median) == (plain, 0, None)
    assert any("not thinking time" in note for note in report.notes)
    assert report.goodput is not None
    assert report.goodput.slo == {"ttft": 1.8, "visible": 2.0}
    # c (1.5 s, 1.5 s) and d meet both; a and b miss visible; e has no visible: unmeasured
    assert (report.goodput.total.measured, report.goodput.total.good) == (4, 2)
    assert report.goodput.unmeasured == 1


def test_one_model_has_no_all_models_row_and_other_metrics_no_beside() -> None:
    requests = [shown(1.0, 2.0, "claude-opus-4-6", "a")]
    assert [row.model for row in analyze_latency(requests, "visible", UTC).beside] == [
        "claude-opus-4-6"
    ]
    assert analyze_latency(requests, "ttft", UTC).beside == []
    assert all("not thinking time" not in n for n in analyze_latency(requests, "ttft", UTC).notes)


def test_thinking_shares_weigh_each_response_by_its_output() -> None:
    from msgspec.structs import replace

    from sniff.analyses.latency.visible import thinking_shares

    def thought(share: float | None, output: int, model: str, key: str) -> Request:
        request = call(START, 1.0, 5.0, output=output, source="claude-trace", model=model, key=key)
        return replace(request, thinking_share=share)

    requests = [
        thought(0.5, 100, "claude-opus-4-6", "a"),
        thought(0.2, 300, "claude-opus-4-6", "b"),
        thought(None, 900, "claude-opus-4-6", "c"),  # no estimate: left out
        thought(0.9, 0, "claude-haiku-4-5", "d"),  # no output reported
    ]
    everything, opus, haiku = thinking_shares(requests)
    assert (everything.responses, everything.output_tokens) == (3, 400)
    assert everything.share == pytest.approx((0.5 * 100 + 0.2 * 300) / 400)
    assert (opus.model, opus.responses, opus.share) == ("claude-opus-4-6", 2, pytest.approx(0.275))
    assert (haiku.output_tokens, haiku.share) == (0, pytest.approx(0.9))
    report = analyze_latency(requests, "visible", UTC)
    assert [row.model for row in report.thinking] == [
        "all models",
        "claude-opus-4-6",
        "claude-haiku-4-5",
    ]
    assert analyze_latency(requests, "ttft", UTC).thinking == []
