"""The events of `sniff watch` and its glance: compactions, failed tools, unpriced models, and
"today" and the live block in a zone far from UTC and across a DST change."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from sniff.analyses.live.events import events_of, glance
from sniff.ingest.files.follow import Follower
from sniff.present.json.watch import event_json
from sniff.pricing import PriceBook
from tests.conftest import Lines

LOG = "projects/-home-dana-src-webshop/515c8333.jsonl"


def _follow(tmp_path: Path) -> tuple[Follower, PriceBook]:
    prices = PriceBook()
    follower = Follower([tmp_path], prices.cost)
    follower.step()
    return follower, prices


def _append(path: Path, *lines: dict[str, object]) -> None:
    with path.open("a") as out:
        out.writelines(json.dumps(line) + "\n" for line in lines)


def _step(follower: Follower, prices: PriceBook, known: set[str]) -> list[tuple[str, str]]:
    events = events_of(follower.step(), follower.by_session, prices, known_sessions=known)
    return [(event.kind, event.cause) for event in events]


def test_a_compaction_and_a_failed_tool_call_are_events(cc: type[Lines], tmp_path: Path) -> None:
    log = cc.write(
        tmp_path / LOG,
        [cc.user("u1", None, "2026-03-02T10:00:00Z"),
         cc.assistant("msg_1", "a1", "u1", "2026-03-02T10:00:05Z", cc.usage(write=30_000),
                      block={"type": "tool_use", "id": "toolu_1", "name": "Bash",
                             "input": {"command": "pytest"}})],
    )  # fmt: skip
    follower, prices = _follow(tmp_path)
    failed = cc.tool_result("u2", "a1", "2026-03-02T10:00:09Z", "toolu_1")
    failed["message"]["content"][0].update(content="exit 1: 3 failed", is_error=True)
    boundary = {
        "type": "system", "subtype": "compact_boundary", "parentUuid": None, "uuid": "c1",
        "sessionId": cc.SESSION, "timestamp": "2026-03-02T10:05:00Z",
        "compactMetadata": {"trigger": "auto", "preTokens": 170_251},
    }  # fmt: skip
    _append(
        log,
        failed,
        boundary,
        cc.user("u3", "c1", "2026-03-02T10:05:01Z", "Summary of the conversation so far."),
        cc.assistant("msg_3", "a3", "u3", "2026-03-02T10:05:04Z", cc.usage(write=9_000)),
    )
    found = _step(follower, prices, {cc.SESSION})
    assert ("tool_failed", "Bash") in found
    assert ("compaction", "") in found and ("response", "") in found
    assert not [kind for kind, _ in found if kind == "session_started"]


def test_an_unpriced_model_has_no_cost_never_zero(cc: type[Lines], tmp_path: Path) -> None:
    log = cc.write(tmp_path / LOG, [cc.user("u1", None, "2026-03-02T10:00:00Z")])
    follower, prices = _follow(tmp_path)
    _append(log, cc.assistant("m1", "a1", "u1", "2026-03-02T10:00:03Z", cc.usage(),
                              model="claude-nonesuch-9"))  # fmt: skip
    events = events_of(follower.step(), follower.by_session, prices, known_sessions=set())
    assert [event.kind for event in events] == ["session_started", "response"]
    assert events[1].cost_usd is None
    assert event_json(events[1])["cost_usd"] is None


def _requests(cc: type[Lines], tmp_path: Path, *stamps: str) -> Follower:
    lines: list[dict[str, object]] = []
    for at, stamp in enumerate(stamps):
        lines.append(cc.assistant(f"m{at}", f"a{at}", None, stamp, cc.usage(input=1000)))
    cc.write(tmp_path / LOG, lines)
    return _follow(tmp_path)[0]


def test_today_is_the_day_in_a_zone_far_from_utc(cc: type[Lines], tmp_path: Path) -> None:
    # 2026-03-02 11:30 UTC is already 2026-03-03 00:30 in Auckland (UTC+13 in March)
    follower = _requests(cc, tmp_path, "2026-03-02T10:30:00Z", "2026-03-02T11:30:00Z")
    requests = list(follower.requests.values())
    now = datetime(2026, 3, 2, 11, 45, tzinfo=UTC)
    assert glance(requests, ZoneInfo("Pacific/Auckland"), now).today.requests == 1
    assert glance(requests, ZoneInfo("UTC"), now).today.requests == 2


def test_today_across_a_dst_change_and_the_live_block(cc: type[Lines], tmp_path: Path) -> None:
    # New York springs forward on 2026-03-08 at 07:00 UTC; that local day is 23 hours long
    follower = _requests(cc, tmp_path, "2026-03-08T04:59:00Z", "2026-03-08T05:00:00Z",
                         "2026-03-09T03:59:00Z", "2026-03-09T04:00:00Z")  # fmt: skip
    requests = sorted(follower.requests.values(), key=lambda request: request.when)
    zone = ZoneInfo("America/New_York")
    before = glance(requests[:3], zone, datetime(2026, 3, 9, 3, 59, 30, tzinfo=UTC))
    assert before.today.requests == 2  # 00:00 EST to 23:59 EDT: 05:00 to 03:59 UTC
    after = glance(requests, zone, datetime(2026, 3, 9, 4, 10, tzinfo=UTC))
    assert after.today.requests == 1  # 00:00 EDT on: only the 04:00 UTC request
    assert after.block is not None and after.block.start == datetime(2026, 3, 9, 3, tzinfo=UTC)
    assert after.block.totals.requests == 2  # the block is absolute time: 03:59 and 04:00 UTC
    assert [session for session, _, _ in after.sessions] == [cc.SESSION]
