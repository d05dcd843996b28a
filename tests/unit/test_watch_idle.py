"""A session of `sniff watch` ends when it had no new request for the idle time, by the watch
loop's clock (a fake one here), once; a new request then resumes it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console

from sniff.analyses.live.events import glance
from sniff.cli.watch_loop import Watch
from sniff.present.json.watch import event_json
from sniff.present.terminal.watch import view
from sniff.workspace import Workspace
from tests.conftest import Lines

LOG = "projects/-home-dana-src-webshop/515c8333.jsonl"
LAST = datetime(2026, 3, 2, 10, 0, 5, tzinfo=UTC)
"""The time of the last request the log holds at the start."""


class Clock:
    """A fake clock the test moves."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def _watch(cc: type[Lines], tmp_path: Path, now: datetime, idle: float = 30) -> tuple[Watch, Clock]:
    cc.write(
        tmp_path / LOG,
        [cc.user("u1", None, "2026-03-02T10:00:00Z"),
         cc.assistant("msg_1", "a1", "u1", "2026-03-02T10:00:05Z", cc.usage(write=9_000))],
    )  # fmt: skip
    clock = Clock(now)
    run = Watch(Workspace(tmp_path), idle_minutes=idle, clock=clock)
    run.start()
    return run, clock


def _append(tmp_path: Path, cc: type[Lines], number: int, stamp: str) -> None:
    line = cc.assistant(f"msg_{number}", f"a{number}", "a1", stamp, cc.usage(read=9_000))
    with (tmp_path / LOG).open("a") as out:
        out.write(json.dumps(line) + "\n")


def _kinds(run: Watch, clock: Clock, at: datetime) -> list[str]:
    clock.now = at
    return [event.kind for event in run.step()]


def test_a_live_session_ends_once_after_the_idle_time_with_no_file_change(
    cc: type[Lines], tmp_path: Path
) -> None:
    run, clock = _watch(cc, tmp_path, LAST + timedelta(minutes=5))
    assert _kinds(run, clock, LAST + timedelta(minutes=29, seconds=59)) == []
    clock.now = LAST + timedelta(minutes=30)
    (ended,) = run.step()
    assert (ended.kind, ended.session_id, ended.at) == ("session_ended", cc.SESSION, clock.now)
    body = event_json(ended)
    assert body["reason"] == "idle" and body["idle_minutes"] == 30
    assert "since 2026-03-02T10:00:05+00:00" in body["detail"]
    assert _kinds(run, clock, LAST + timedelta(hours=5)) == []  # once


def test_an_ended_session_that_grows_is_resumed_and_ends_again_idle_after_it(
    cc: type[Lines], tmp_path: Path
) -> None:
    run, clock = _watch(cc, tmp_path, LAST + timedelta(minutes=1))
    assert _kinds(run, clock, LAST + timedelta(minutes=40)) == ["session_ended"]
    # an old timestamp (a copied line): its arrival, not its stamp, is the session's activity
    _append(tmp_path, cc, 2, "2026-03-02T10:01:00Z")
    arrived = LAST + timedelta(hours=2)
    assert _kinds(run, clock, arrived) == ["session_resumed", "response"]
    assert _kinds(run, clock, arrived + timedelta(minutes=29)) == []
    assert _kinds(run, clock, arrived + timedelta(minutes=30)) == ["session_ended"]


def test_a_session_idle_at_the_start_makes_no_event_and_is_not_resumed(
    cc: type[Lines], tmp_path: Path
) -> None:
    run, clock = _watch(cc, tmp_path, LAST + timedelta(hours=3))
    assert _kinds(run, clock, LAST + timedelta(hours=4)) == []
    _append(tmp_path, cc, 2, "2026-03-02T14:00:00Z")
    arrived = LAST + timedelta(hours=4, minutes=1)
    assert _kinds(run, clock, arrived) == ["response"]
    assert _kinds(run, clock, arrived + timedelta(minutes=29)) == []
    assert _kinds(run, clock, arrived + timedelta(minutes=30)) == ["session_ended"]


def test_the_idle_time_is_the_one_given(cc: type[Lines], tmp_path: Path) -> None:
    run, clock = _watch(cc, tmp_path, LAST, idle=2.5)
    assert _kinds(run, clock, LAST + timedelta(minutes=2, seconds=29)) == []
    clock.now = LAST + timedelta(minutes=2, seconds=30)
    (ended,) = run.step()
    assert ended.idle_minutes == 2.5 and ended.detail.startswith("no new request for 2.5 min")


def test_the_live_view_shows_the_ended_session_and_its_event(
    cc: type[Lines], tmp_path: Path
) -> None:
    run, clock = _watch(cc, tmp_path, LAST + timedelta(minutes=1))
    clock.now = LAST + timedelta(minutes=31)
    run.step()
    requests = list(run.follower.requests.values())
    shown = view(glance(requests, UTC, clock.now), run.events, UTC, clock.now, run.idleness.ended)
    console = Console(width=160, record=True)
    console.print(shown)
    text = console.export_text()
    assert "ended (idle)" in text
    assert "session_ended" in text and "no new request for 30 min" in text
