"""The agents' own limit readings: Codex's read from `rate_limits` (hostile values skipped,
never fatal; a run of equal readings kept as its first and last; a resumed reader's the same
as a whole read's), gathered once across files, and the projection to 100%."""

from __future__ import annotations

import json
import math
import pickle
from datetime import UTC, datetime
from typing import Any

import pytest

from sniff.analyses.cost.official_limits import (
    BLOCK_WINDOWS,
    WEEK_WINDOWS,
    current_window,
    official,
    officials,
    readings_of,
)
from sniff.ingest.formats.codex.limits import LimitSeries, readings
from sniff.ingest.formats.codex.reader import Reader
from sniff.ingest.reading import gathered
from sniff.model import Harness, LimitReading

T0 = datetime(2026, 3, 6, 14, 0, tzinfo=UTC).timestamp()
HOUR = 3600.0
FIVE_HOUR = BLOCK_WINDOWS[Harness.CODEX]
SPAN = (datetime(2026, 3, 6, 14, 0, tzinfo=UTC), datetime(2026, 3, 6, 19, 0, tzinfo=UTC))
NOW = datetime(2026, 3, 6, 16, 30, tzinfo=UTC)


def reading(
    used: float, hours: float, resets: float | None = 5.0, window: str = "primary",
    minutes: int | None = 300,
) -> LimitReading:  # fmt: skip
    reset = None if resets is None else T0 + resets * HOUR
    return LimitReading(Harness.CODEX, window, used, T0 + hours * HOUR, reset, minutes)


def at(hours: float) -> datetime:
    return datetime.fromtimestamp(T0 + hours * HOUR, UTC)


# the projection


def test_the_rate_between_the_windows_first_and_last_reading_is_carried_on() -> None:
    found = official([reading(10, 0.5), reading(20, 1.0), reading(40, 1.5)], FIVE_HOUR, SPAN, NOW)
    assert found is not None
    assert (found.used_percent, found.read_at, found.resets_at) == (40, at(1.5), at(5.0))
    # 10% to 40% in an hour: the last 60% in 2 hours, before the reset at 19:00
    assert found.projected_full_at == at(3.5)


def test_no_projection_when_the_reset_comes_first() -> None:
    found = official([reading(10, 0.0), reading(20, 2.0)], FIVE_HOUR, SPAN, NOW)
    assert found is not None and found.projected_full_at is None  # 100% at 22:00, reset 19:00


@pytest.mark.parametrize(
    "series",
    [
        [reading(30, 0.5), reading(30, 2.0)],  # no rise
        [reading(30, 2.0)],  # one reading: no rate
        [reading(30, 1.0), reading(30, 1.0)],  # no time between them
    ],
)
def test_no_projection_without_a_positive_rate(series: list[LimitReading]) -> None:
    found = official(series, FIVE_HOUR, SPAN, NOW)
    assert found is not None and found.projected_full_at is None


def test_no_projection_for_a_window_that_has_reset() -> None:
    series = [reading(10, 0.5), reading(60, 1.0)]
    assert official(series, FIVE_HOUR, SPAN, NOW) is not None
    later = official(series, FIVE_HOUR, SPAN, at(6.0))
    assert later is not None and later.projected_full_at is None
    assert later.used_percent == 60


def test_a_full_window_is_full_since_its_first_reading_at_100() -> None:
    found = official([reading(80, 0.5), reading(100, 1.0), reading(100, 2.0)], FIVE_HOUR, SPAN,
                     NOW)  # fmt: skip
    assert found is not None and found.projected_full_at == at(1.0)


def test_the_current_window_starts_at_the_last_reset() -> None:
    series = [reading(70, -4.0, resets=0.2), reading(2, 0.5), reading(4, 1.0), reading(5, 1.5)]
    assert [r.used_percent for r in current_window(series)] == [2, 4, 5]
    dropped = [reading(50, 0.5), reading(5, 1.0), reading(6, 2.0)]  # a reset said by a drop
    assert [r.used_percent for r in current_window(dropped)] == [5, 6]


def test_the_last_reading_within_the_span_is_shown() -> None:
    series = [reading(5, -1.0), reading(10, 0.5), reading(12, 6.0, resets=10)]
    found = official(series, FIVE_HOUR, SPAN, NOW)
    assert found is not None and found.used_percent == 10
    assert official(series, FIVE_HOUR, (at(10), at(15)), NOW) is None


# which readings stand beside which view


def test_each_view_takes_its_agents_window_of_its_length() -> None:
    series = [reading(10, 1.0), reading(3, 1.0, window="secondary", minutes=10_080),
              reading(50, 1.5, minutes=60)]  # fmt: skip
    blocks = officials(series, "codex", [SPAN, None], NOW, weekly=False)
    assert blocks.window is FIVE_HOUR and blocks.each[1] is None
    assert blocks.each[0] is not None and blocks.each[0].used_percent == 10  # not the 60-minute
    weeks = officials(series, "codex", [SPAN], NOW, weekly=True)
    assert weeks.window is WEEK_WINDOWS[Harness.CODEX]
    assert weeks.each[0] is not None and weeks.each[0].used_percent == 3
    assert officials(series, "gemini-cli", [SPAN], NOW, weekly=False).window is None
    assert officials(series, "nobody", [SPAN], NOW, weekly=False).found is False
    assert officials(series, "claude-code", [SPAN], NOW, weekly=False).found is False


@pytest.mark.parametrize(
    "bad",
    [
        reading(math.nan, 1.0),
        reading(math.inf, 1.0),
        reading(-1, 1.0),
        reading(1e9, 1.0),
        LimitReading(Harness.CODEX, "primary", 5.0, 1e20, None, 300),
        LimitReading(Harness.CODEX, "primary", 5.0, math.nan, None, 300),
        LimitReading(Harness.CODEX, "primary", 5.0, T0, math.inf, 300),
    ],
)
def test_hostile_readings_are_passed_over(bad: LimitReading) -> None:
    assert readings_of([bad, reading(7, 1.0)], FIVE_HOUR) == [reading(7, 1.0)]


# Codex's rollouts


def limits(primary: Any, secondary: Any = None, **more: Any) -> bytes:
    text = json.dumps({"primary": primary, "secondary": secondary, **more})
    return text.replace("Infinity", "1e400").encode()  # as JSON writes an overflowing number


def window(used: Any = 12.0, minutes: Any = 300, resets: Any = T0 + 4 * HOUR) -> dict[str, Any]:
    return {"used_percent": used, "window_minutes": minutes, "resets_at": resets}


def test_both_windows_are_read() -> None:
    found = readings(limits(window(), window(3, 10_080, T0 + 90 * HOUR)), T0)
    assert found == [
        LimitReading(Harness.CODEX, "primary", 12.0, T0, T0 + 4 * HOUR, 300),
        LimitReading(Harness.CODEX, "secondary", 3.0, T0, T0 + 90 * HOUR, 10_080),
    ]


def test_older_rollouts_say_the_reset_as_seconds_from_now() -> None:
    raw = limits({"used_percent": 40, "window_minutes": 300, "resets_in_seconds": 600})
    assert readings(raw, T0) == [LimitReading(Harness.CODEX, "primary", 40.0, T0, T0 + 600, 300)]


@pytest.mark.parametrize(
    "part",
    [
        window(used="12"),
        window(used=True),
        window(used=-3),
        window(used=1e9),
        window(used=1e400),  # JSON's way to an infinite float
        window(used=None),
        window(minutes=-300),
        window(minutes=2.5),
        window(resets=-5),
        window(resets=(T0 + HOUR) * 1000),  # milliseconds
        window(resets=1e300),
        window(resets="soon"),
        [1, 2],
        "primary",
    ],
)
def test_a_hostile_window_costs_only_itself(part: Any) -> None:
    found = readings(limits(part, window(3, 10_080)), T0)
    assert [r.window for r in found] == ["secondary"]


@pytest.mark.parametrize(
    "raw", [b"null", b"[]", b'"x"', b"{", limits(window(), limit_id="codex_other")]
)
def test_no_reading_from_what_is_no_plans_rate_limits(raw: bytes) -> None:
    assert readings(raw, T0) == []
    assert readings(limits(window()), None) == []  # an undated line


def rollout_line(at: str, rate_limits: Any, info: Any = None) -> bytes:
    payload = {"type": "token_count", "info": info, "rate_limits": rate_limits}
    return json.dumps({"timestamp": at, "type": "event_msg", "payload": payload}).encode() + b"\n"


def test_a_hostile_rate_limits_never_loses_the_usage_beside_it() -> None:
    usage = {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 5}
    info = {"total_token_usage": usage, "last_token_usage": usage}
    reader = Reader("/r/rollout-x.jsonl", "/p")
    reader.feed(rollout_line("2026-03-06T14:00:00Z", {"primary": {"used_percent": "lots"}}, info))
    result = reader.result()
    assert len(result.responses) == 1 and result.limits == () and result.issues == []


def test_a_run_of_equal_readings_keeps_its_first_and_last() -> None:
    series = LimitSeries()
    for hours, used in [(0, 5), (1, 5), (2, 5), (3, 5), (4, 6)]:
        series.add(reading(used, hours))
    assert [(r.used_percent, r.at) for r in series.all()] == [
        (5, T0), (5, T0 + 3 * HOUR), (6, T0 + 4 * HOUR),
    ]  # fmt: skip


def test_a_resumed_reader_reads_what_a_whole_reading_does() -> None:
    lines = [
        rollout_line(f"2026-03-06T14:{minute:02d}:00Z", {"primary": window(used)})
        for minute, used in [(0, 1), (5, 1), (10, 2), (15, 2), (20, 2), (25, 3)]
    ]
    whole = Reader("/r/rollout-x.jsonl", "/p")
    whole.feed(b"".join(lines))
    first = Reader("/r/rollout-x.jsonl", "/p")
    first.feed(b"".join(lines[:3]))
    resumed: Reader = pickle.loads(pickle.dumps(first))
    resumed.feed(b"".join(lines[3:]), first_line=4)
    assert resumed.result().limits == whole.result().limits
    assert [r.used_percent for r in whole.result().limits] == [1, 1, 2, 2, 3]


def test_files_readings_are_gathered_once_in_time_order() -> None:
    one, two, three = reading(1, 0), reading(2, 1), reading(3, 2)
    assert gathered([(three, one), (one, two), ()]) == (one, two, three)


def test_a_wavering_reset_time_is_one_run() -> None:
    """Codex's `resets_at` moves by a second between events that say the same share."""
    reader = Reader("/r/rollout-x.jsonl", "/p")
    for minute, (used, wobble) in enumerate([(1, 0), (1, 1), (1, 0), (1, 1), (2, 1), (2, 0)]):
        part = window(used, resets=T0 + 4 * HOUR + wobble)
        reader.feed(rollout_line(f"2026-03-06T14:{minute:02d}:00Z", {"primary": part}))
    kept = reader.result().limits
    assert [(r.used_percent, r.at) for r in kept] == [
        (1, T0), (1, T0 + 180), (2, T0 + 240), (2, T0 + 300),
    ]  # fmt: skip


def test_a_fork_does_not_date_its_parents_readings_now() -> None:
    def meta(session: str) -> bytes:
        line = {"timestamp": "2026-03-06T14:00:00Z", "type": "session_meta",
                "payload": {"id": session, "cwd": "/p"}}  # fmt: skip
        return json.dumps(line).encode() + b"\n"

    usage = {"input_tokens": 100, "cached_input_tokens": 0, "output_tokens": 5}
    info = {"total_token_usage": usage, "last_token_usage": usage}
    grown = {**usage, "input_tokens": 200}
    reader = Reader("/r/rollout-fork.jsonl", "/p")
    reader.feed(
        meta("fork") + meta("parent")
        + rollout_line("2026-03-06T14:00:01Z", {"primary": window(70)}, info)  # the replay
        + rollout_line("2026-03-06T14:05:00Z", {"primary": window(2)},
                       {"total_token_usage": grown, "last_token_usage": usage})
    )  # fmt: skip
    assert [r.used_percent for r in reader.result().limits] == [2]
