"""The rules of `sniff drift`: the ratio sums and their interval, the guards against noise,
the grouping of change points into events, and what an event is attributed to."""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import msgspec
import pytest

from sniff.analyses.drift.part import drift_part, series_of
from sniff.analyses.drift.points import Rules
from sniff.analyses.drift.report import analyze_drift, compare_versions
from sniff.analyses.drift.series import Sums, week_of_day
from sniff.errors import UserError
from sniff.model import Activity, Agent, Block, Cost, Harness, Request, ToolCall, Usage

START = datetime(2026, 3, 1, 9, tzinfo=UTC)


def request(
    when: datetime,
    session: str,
    hit: float,
    *,
    version: str = "1.0",
    model: str = "claude-sonnet-4-5",
    usd: float | None = 0.01,
    key: str | None = None,
    **extra: object,
) -> Request:
    read = round(10_000 * hit)
    cost = None if usd is None else Cost(0.0, 0.0, 0.0, 0.0, usd, usd)
    return Request(
        source="claude-code", key=key or f"{session}-{when.isoformat()}", project="/p",
        session_id=session, agent=Agent.MAIN, agent_id="main", model=model, provider="anthropic",
        ended_at=when, usage=Usage(input_tokens=10_000 - read, cache_read_tokens=read),
        file="f.jsonl", line=1, version=version, cost=cost, harness=Harness.CLAUDE_CODE,
        **extra,  # type: ignore[arg-type]
    )  # fmt: skip


def archive(hits: list[float], *, sessions: int = 3, calls: int = 10, change: int | None = None,
            seed: int = 1, noise: float = 0.0) -> list[Request]:  # fmt: skip
    """`sessions` sessions a day of `calls` requests, day d reading hits[d] (± noise); from
    day `change` on, version 2.0."""
    rng = random.Random(seed)
    made = []
    for day, hit in enumerate(hits):
        for s in range(sessions):
            version = "2.0" if change is not None and day >= change else "1.0"
            for c in range(calls):
                when = START + timedelta(days=day, hours=s, minutes=c)
                value = min(max(hit + rng.uniform(-noise, noise), 0.0), 1.0)
                made.append(request(when, f"d{day}s{s}", value, version=version))
    return made


def test_the_ratio_and_its_interval_follow_the_linearised_formula() -> None:
    pairs = [(90.0, 100.0), (50.0, 100.0), (30.0, 40.0), (0.0, 10.0)]
    sums = Sums()
    for num, den in pairs:
        sums.add(num, den)
    ratio = sum(n for n, _ in pairs) / sum(d for _, d in pairs)
    assert sums.level == ratio
    spread = sum((n - ratio * d) ** 2 for n, d in pairs) / (len(pairs) - 1) * len(pairs)
    assert sums.variance == pytest.approx(spread / sum(d for _, d in pairs) ** 2)
    low, high = sums.interval() or (0.0, 0.0)
    assert high - ratio == pytest.approx(ratio - low)
    assert high - ratio == pytest.approx(1.959964 * math.sqrt(sums.variance or 0.0))
    assert Sums().level is None and Sums().interval() is None


def test_a_sessions_requests_in_one_period_are_one_unit() -> None:
    made = archive([0.9, 0.9], sessions=2, calls=5)
    [overall, *_] = series_of(drift_part(made, {}, (), UTC, "day"))
    sums = overall.total.sums_of("hit_rate")
    assert (sums.n, sums.requests) == (4, 20)  # 2 sessions × 2 days, 20 requests
    assert overall.periods == ("2026-03-01", "2026-03-02")


def test_rollups_and_failures_are_left_out() -> None:
    made = [*archive([0.9], sessions=1, calls=3)]
    made.append(request(START, "x", 0.1, key="rollup", rollup=True))
    made.append(request(START, "x", 0.1, key="failed", error="overloaded"))
    report = analyze_drift(made, Activity(), [], UTC)
    assert (report.requests, report.left_out) == (3, 2)
    assert report.series[0].total.sums_of("hit_rate").level == pytest.approx(0.9)


def test_a_clean_step_is_found_where_it_is() -> None:
    report = analyze_drift(archive([0.95] * 8 + [0.70] * 8, change=8), Activity(), [], UTC)
    [event] = report.events
    assert event.at == "2026-03-09"
    hit = next(p for p in event.points if p.measure.key == "hit_rate" and p.dimension == "overall")
    assert (hit.before.level, hit.after.level) == (pytest.approx(0.95), pytest.approx(0.70))
    assert event.attributed is not None
    assert (event.attributed.previous, event.attributed.to) == ("1.0", "2.0")


def test_the_version_left_is_the_one_in_use_just_before() -> None:
    made = archive([0.95] * 8 + [0.70] * 8, change=8)
    made = [
        msgspec.structs.replace(r, version="1.5") if "2026-03-06" <= f"{r.when:%Y-%m-%d}" < (
            "2026-03-09") else r
        for r in made
    ]  # fmt: skip
    [event] = analyze_drift(made, Activity(), [], UTC).events
    assert event.attributed is not None
    assert (event.attributed.previous, event.attributed.to) == ("1.5", "2.0")


def test_a_harness_first_seen_is_no_version_change() -> None:
    made = archive([0.95] * 8 + [0.70] * 8)
    made += [
        msgspec.structs.replace(r, harness=Harness.CODEX, version=None, key=f"codex-{r.key}",
                                session_id=f"codex-{r.session_id}")
        for r in archive([0.70] * 16)
        if r.when >= START + timedelta(days=8)
    ]  # fmt: skip
    [event] = analyze_drift(made, Activity(), [], UTC).events
    assert [(v.harness, v.previous, v.to) for v in event.context.versions] == [
        ("codex", None, "(unknown)")
    ]
    assert event.attributed is None


def test_a_step_without_a_version_change_is_found_but_not_attributed() -> None:
    report = analyze_drift(archive([0.95] * 8 + [0.70] * 8), Activity(), [], UTC)
    [event] = report.events
    assert event.attributed is None and event.context.versions == ()


def test_a_change_below_the_smallest_size_is_not_reported() -> None:
    report = analyze_drift(archive([0.95] * 8 + [0.92] * 8, change=8), Activity(), [], UTC)
    assert report.events == [] and report.points == []


def test_noise_alone_makes_no_event() -> None:
    made = archive([0.85] * 30, noise=0.15, seed=7)
    assert analyze_drift(made, Activity(), [], UTC).events == []


def test_too_few_sessions_on_a_side_make_no_event() -> None:
    made = archive([0.95] * 8 + [0.70] * 8, sessions=1, calls=40)  # 8 sessions a side
    assert analyze_drift(made, Activity(), [], UTC).events == []
    looser = Rules(min_side_sessions=5)
    assert len(analyze_drift(made, Activity(), [], UTC, rules=looser).events) == 1


def test_an_mcp_server_and_a_model_first_used_that_day_are_said() -> None:
    made = archive([0.95] * 8 + [0.70] * 8)
    at = (START + timedelta(days=8, hours=2)).timestamp()
    calls = (
        ToolCall("t1", "Read", "k", "d0s0", "/p", START.timestamp()),
        ToolCall("t2", "mcp__linear__list_issues", "k", "d8s0", "/p", at),
        ToolCall("t3", "mcp__linear__get_issue", "k", "d8s0", "/p", at + 60),
    )
    made.append(request(START + timedelta(days=8, hours=5), "d8s9", 0.7, model="claude-opus-4"))
    report = analyze_drift(made, Activity(calls=calls), [], UTC)
    [event] = report.events
    assert event.context.servers_first == ("linear",)
    assert event.context.tools_first == ()  # Read was used from the first day
    assert event.context.models_first == ("claude-opus-4",)


def test_a_system_prompt_that_grew_that_day_is_said() -> None:
    def sized(r: Request) -> Request:
        tokens = 1_500 if r.when >= START + timedelta(days=8) else 1_000
        return msgspec.structs.replace(r, blocks=(Block("system", "system", "h", tokens),
                                                  Block("text", "user", "u", 99_999)))  # fmt: skip

    made = [sized(r) for r in archive([0.95] * 8 + [0.70] * 8)]
    [event] = analyze_drift(made, Activity(), [], UTC).events
    assert event.context.system_tokens == (1_000, 1_500)
    steady = [msgspec.structs.replace(r, blocks=r.blocks[:1]) for r in made]
    steady = [
        msgspec.structs.replace(r, blocks=(Block("system", "system", "h", 1_040),))
        if r.when >= START + timedelta(days=8) else r
        for r in steady
    ]  # fmt: skip
    [event] = analyze_drift(steady, Activity(), [], UTC).events
    assert event.context.system_tokens is None  # 4 %: below the 10 % a change needs


def test_weeks_are_iso_weeks_of_days_in_the_zone() -> None:
    # Sunday 2026-03-29 23:30 in Paris, the night clocks went forward: still week 13 there
    paris = ZoneInfo("Europe/Paris")

    def periods(moment: datetime, zone: ZoneInfo) -> set[str]:
        made = [request(moment, "s", 0.9)]
        parts = [drift_part(made, {}, (), zone, by) for by in ("day", "week")]
        return {key.rsplit("\x1f", 1)[1] for part in parts for key in part.buckets}

    assert periods(datetime(2026, 3, 29, 21, 30, tzinfo=UTC), paris) == {"2026-03-29", "2026-W13"}
    monday = datetime(2026, 3, 29, 22, 30, tzinfo=UTC)  # 00:30 there
    assert periods(monday, paris) == {"2026-03-30", "2026-W14"}
    kiritimati = ZoneInfo("Pacific/Kiritimati")  # UTC+14
    assert periods(datetime(2026, 3, 1, 10, 0, tzinfo=UTC), kiritimati) == {
        "2026-03-02",
        "2026-W10",
    }
    assert week_of_day("2026-03-29") == "2026-W13"


def test_compare_versions_counts_each_and_refuses_unknown_ones() -> None:
    report = analyze_drift(archive([0.95] * 4 + [0.70] * 4, change=4), Activity(), [], UTC)
    old, new = compare_versions(report, "1.0", "claude-code 2.0")
    assert (old.total.requests, new.total.requests) == (120, 120)
    assert new.total.sums_of("hit_rate").level == pytest.approx(0.70)
    with pytest.raises(UserError, match="version '3.0' is not in the logs read"):
        compare_versions(report, "1.0", "3.0")


def test_unpriced_requests_are_counted_apart_from_the_cost() -> None:
    made = archive([0.9], sessions=1, calls=2)
    made.append(request(START, "u", 0.9, usd=None, key="unpriced"))
    total = analyze_drift(made, Activity(), [], UTC).series[0].total
    assert total.unpriced == 1
    assert total.sums_of("cost_per_request").requests == 2
    assert total.sums_of("cost_per_request").level == pytest.approx(0.01)


def test_a_change_in_one_causes_break_rate_is_found_and_named() -> None:
    """From day 10 on, a fifth of the requests rebuild for `ttl_expired`: the cause's own break
    rate changes by 20 points, and the change point names it."""
    from sniff.analyses.drift.points import change_points
    from sniff.analyses.drift.series import break_key

    made = archive([0.9] * 20, sessions=12, calls=10)  # each day's sessions within it
    causes = {
        break_key(found): "ttl_expired"
        for index, found in enumerate(made)
        if found.when >= START + timedelta(days=10) and index % 5 == 0
    }
    series = series_of(drift_part(made, causes, (), UTC, "day"))
    found = change_points(series, Rules())
    named = {(point.measure.key, point.dimension) for point in found}
    assert ("break_rate_ttl_expired", "overall") in named
    (cause,) = [p for p in found if p.measure.key == "break_rate_ttl_expired"
                and p.dimension == "overall"]  # fmt: skip
    assert cause.at == "2026-03-11"
    assert (cause.before.level, round(cause.after.level, 6)) == (0.0, 0.2)
    assert all(p.measure.key != "break_rate_model_switch" for p in found)


def test_signals_too_flat_to_hold_a_change_are_not_segmented_and_nothing_is_lost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A signal whose periods' levels spread less than the smallest reported change is left
    out of the search: the change points are those of searching every signal."""
    from sniff.analyses.drift import points as drift_points

    screen = drift_points._too_flat
    found = []
    for seed in range(8):
        rng = random.Random(seed)
        hits = [level for _ in range(3) for level in [rng.choice([0.95, 0.93, 0.6])] * 8]
        made = archive(hits, sessions=4, calls=8, noise=rng.choice([0.0, 0.02, 0.2]), seed=seed)
        monkeypatch.setattr(drift_points, "_too_flat", screen)
        screened = analyze_drift(made, Activity(), [], UTC).points
        monkeypatch.setattr(drift_points, "_too_flat", lambda *_: False)
        assert analyze_drift(made, Activity(), [], UTC).points == screened
        found.append(bool(screened))
    assert any(found) and not all(found)  # archives with changes and without


def test_a_series_of_the_same_requests_as_another_gets_its_points_without_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One harness and one model: their series are the overall one, and so are their points."""
    from sniff.analyses.drift import points as drift_points

    made = archive([0.95] * 8 + [0.70] * 8, change=8)
    points = analyze_drift(made, Activity(), [], UTC).points
    assert {p.dimension for p in points} == {"overall", "harness", "model", "project"}
    monkeypatch.setattr(drift_points, "_distinct", lambda series: (series, {}))
    assert analyze_drift(made, Activity(), [], UTC).points == points
