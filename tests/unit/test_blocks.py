"""The 5-hour blocks: ccusage's windows at their boundaries, gaps, breaks, and the active
block's burn rate, projection and burners on a fixed `now`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from rich.console import Console

from sniff.analyses.cache.break_report import Break
from sniff.analyses.cost.block_burn import burn
from sniff.analyses.cost.blocks import BLOCK, active_block, build_blocks, largest_tokens, windows
from sniff.model import Agent, Cost, Request, Usage
from sniff.present.json.blocks import block_json, burn_json
from sniff.present.terminal.blocks import blocks_table, print_active


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def req(
    key: str,
    when: str,
    tokens: int = 1000,
    usd: float | None = 1.0,
    *,
    session: str = "s1",
    agent: Agent = Agent.MAIN,
    model: str = "claude-sonnet-4-5",
) -> Request:
    """A request ending at `when` with `tokens` uncached input (and 0 output) costing `usd`."""
    cost = None if usd is None else Cost(usd, 0.0, 0.0, 0.0, 0.0, usd)
    return Request(
        source="claude-code", key=key, project="/p", session_id=session, agent=agent,
        agent_id="main" if agent is Agent.MAIN else "a1", model=model, provider="anthropic",
        ended_at=at(when), usage=Usage(input_tokens=tokens), file="f.jsonl", line=int(key[1:]),
        started_at=at(when) - timedelta(minutes=2), cost=cost,
    )  # fmt: skip


def spans(requests: list[Request]) -> list[tuple[str, str, bool, int]]:
    return [
        (f"{b.start:%m-%d %H:%M}", f"{b.end:%m-%d %H:%M}", b.gap, b.totals.requests)
        for b in build_blocks(requests)
    ]


def test_a_block_starts_on_the_hour_in_utc_and_lasts_five_hours() -> None:
    found = build_blocks([req("r1", "2026-01-05T10:55:30"), req("r2", "2026-01-05T12:10:00")])
    assert len(found) == 1
    assert (found[0].start, found[0].end) == (at("2026-01-05T10:00:00"), at("2026-01-05T15:00"))
    assert found[0].last == at("2026-01-05T12:10:00")
    assert found[0].totals.requests == 2


def test_a_request_at_the_end_stays_in_and_one_just_after_starts_a_new_block() -> None:
    exact = [req("r1", "2026-01-05T10:30:00"), req("r2", "2026-01-05T15:00:00")]
    assert spans(exact) == [("01-05 10:00", "01-05 15:00", False, 2)]
    after = [req("r1", "2026-01-05T10:30:00"), req("r2", "2026-01-05T15:00:00.001")]
    assert spans(after) == [("01-05 10:00", "01-05 15:00", False, 1),
                            ("01-05 15:00", "01-05 20:00", False, 1)]  # fmt: skip


def test_windows_follow_block_starts_not_the_last_request() -> None:
    """Requests 4 h apart: the third is past the first block's end, with no gap between."""
    requests = [req("r1", "2026-01-05T10:20"), req("r2", "2026-01-05T14:20"),
                req("r3", "2026-01-05T18:20")]  # fmt: skip
    assert spans(requests) == [("01-05 10:00", "01-05 15:00", False, 2),
                               ("01-05 18:00", "01-05 23:00", False, 1)]  # fmt: skip


def test_idle_time_over_five_hours_is_a_gap_from_five_hours_after_the_last_request() -> None:
    requests = [req("r1", "2026-01-05T10:55"), req("r2", "2026-01-05T16:30")]
    assert spans(requests) == [
        ("01-05 10:00", "01-05 15:00", False, 1),
        ("01-05 15:55", "01-05 16:30", True, 0),
        ("01-05 16:00", "01-05 21:00", False, 1),
    ]
    exactly = [req("r1", "2026-01-05T10:00"), req("r2", "2026-01-05T15:00")]
    assert all(not gap for *_, gap, _n in spans(exactly))


def test_requests_in_any_order_are_placed_by_time() -> None:
    requests = [req("r3", "2026-01-05T18:20"), req("r1", "2026-01-05T10:20")]
    assert [[r.key for r in members] for _, members in windows(requests)] == [["r1"], ["r3"]]


def test_a_block_sums_cost_models_agents_and_its_breaks() -> None:
    requests = [
        req("r1", "2026-01-05T10:05", usd=2.0),
        req("r2", "2026-01-05T10:15", usd=1.0, agent=Agent.SUBAGENT, model="claude-haiku-4-5"),
        req("r3", "2026-01-05T10:25", usd=1.0, agent=Agent.COMPACTION),
        req("r4", "2026-01-05T20:00", usd=1.0),
    ]
    breaks = [Break(requests[0], None, "ttl_expired", 400.0, 100, 100, 0, 0.25),
              Break(requests[2], None, "compaction", None, 0, 50, 0, 0.1)]  # fmt: skip
    first = build_blocks(requests, breaks)[0]
    assert first.models == ("claude-sonnet-4-5", "claude-haiku-4-5")
    assert first.totals.cost == pytest.approx(4.0)
    assert (first.share(first.subagent_usd), first.share(first.compaction_usd)) == (0.25, 0.25)
    assert (first.breaks.faults, first.breaks.expected) == (1, 1)
    assert first.breaks.fault_cost_usd == pytest.approx(0.25)
    row = block_json(first, at("2026-01-06T00:00"))
    assert row["breaks"]["by_cause"] == [
        {"kind": "break_cause", "name": "ttl_expired", "cost_usd": 0.25, "tokens": 100}
    ]
    assert (row["subagent_share"], row["compaction_share"], row["active"]) == (0.25, 0.25, False)


def test_an_unpriced_block_has_no_cost_never_zero() -> None:
    block = build_blocks([req("r1", "2026-01-05T10:05", usd=None)])[0]
    assert block.totals.cost is None
    assert block_json(block, at("2026-01-05T11:00"))["cost_usd"] is None
    assert burn(block, at("2026-01-05T11:00")).projected_usd is None


def active_requests() -> list[Request]:
    return [
        req("r1", "2026-01-05T02:30", tokens=9000, usd=9.0),  # a finished block
        req("r2", "2026-01-05T10:05", tokens=1000, usd=1.0),
        req("r3", "2026-01-05T11:50", tokens=3000, usd=3.0, session="s2", agent=Agent.SUBAGENT),
    ]


def test_the_active_block_burns_at_its_last_half_hours_rate_and_projects_to_its_end() -> None:
    now = at("2026-01-05T12:00")
    found = build_blocks(active_requests())
    block = active_block(found, now)
    assert block is not None and block.start == at("2026-01-05T10:00")
    burning = burn(block, now)
    assert burning.recent.tokens_per_minute == pytest.approx(100.0)  # 3000 in 30 minutes
    assert burning.recent.usd_per_hour == pytest.approx(6.0)
    assert burning.whole.tokens_per_minute == pytest.approx(4000 / 115)  # since 10:05
    assert burning.whole.usd_per_hour == pytest.approx(4.0 / 115 * 60)
    assert burning.minutes_left == pytest.approx(180.0)
    assert burning.projected_tokens == 4000 + 100 * 180
    assert burning.projected_usd == pytest.approx(4.0 + 6.0 * 3)
    assert [(b.kind, b.name, b.usd) for b in burning.burners] == [
        ("session", "s2", 3.0), ("subagents", "subagents", 3.0),
    ]  # fmt: skip


def test_no_block_is_active_after_its_end() -> None:
    found = build_blocks(active_requests())
    assert active_block(found, at("2026-01-05T15:00")) is None
    assert active_block(found, at("2026-01-05T14:59:59")) is found[-1]


def test_token_limit_max_is_the_largest_finished_block() -> None:
    now = at("2026-01-05T12:00")
    found = build_blocks(active_requests())
    assert largest_tokens(found, now) == 9000  # the active block's 4000 do not count
    verdict = burn_json(burn(found[-1], now), 9000)
    assert (verdict["projected_tokens"], verdict["over_limit"]) == (22000, True)
    assert largest_tokens(found[-1:], now) is None


def rendered(zone: str, requests: list[Request], now: datetime) -> str:
    console = Console(file=StringIO(), width=160)
    found = build_blocks(requests)
    console.print(blocks_table(found, ZoneInfo(zone), now))
    block = active_block(found, now)
    if block is not None:
        print_active(console, block, burn(block, now), ZoneInfo(zone), None)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


def test_a_dst_change_moves_the_shown_times_not_the_windows() -> None:
    """Paris springs forward at 01:00 UTC on 2026-03-29: the block 00:00–05:00 UTC reads
    01:00 → 07:00, six local hours, and stays five hours long."""
    requests = [req("r1", "2026-03-29T00:20"), req("r2", "2026-03-29T04:40")]
    block = build_blocks(requests)[0]
    assert block.end - block.start == BLOCK
    text = rendered("Europe/Paris", requests, at("2026-03-29T04:50"))
    assert "03-29 01:00" in text and "06:40" in text
    assert "2026-03-29 01:00 → 07:00 (Europe/Paris): 10m 00s left" in text


def test_a_zone_far_from_utc_shows_the_next_local_day() -> None:
    requests = [req("r1", "2026-01-05T12:30")]
    text = rendered("Pacific/Kiritimati", requests, at("2026-01-05T13:00"))  # UTC+14
    assert "01-06 02:00" in text and "02:30" in text
    assert "2026-01-06 02:00 → 07:00 (Pacific/Kiritimati): 4h 00m left" in text
    assert block_json(build_blocks(requests)[0], at("2026-01-05T13:00"))["start"] == (
        "2026-01-05T12:00:00.000Z"
    )
