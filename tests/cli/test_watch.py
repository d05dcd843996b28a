"""`sniff watch`: events of lines appended while it runs, as JSON lines, in time."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import orjson
import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SAMPLE_LOGS, Lines

SESSION_FILE = "projects/-home-dana-src-webshop/515c8333.jsonl"


def _start(folder: Path, *extra: str) -> subprocess.Popen[str]:
    """`sniff watch --json` on `folder`, returned once it has read what is there."""
    watching = subprocess.Popen(
        [sys.executable, "-m", "sniff", "watch", str(folder), "--json", "--for", "20",
         "--interval", "0.2", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert watching.stderr is not None
    ready = watching.stderr.readline()
    assert "watching" in ready, ready + watching.stderr.read()
    return watching


def _events(stream: IO[str], count: int) -> list[dict[str, Any]]:
    lines = [stream.readline() for _ in range(count)]
    # JSON Lines: each event one compact object (no indentation, no spaces after separators)
    assert all(line == orjson.dumps(orjson.loads(line)).decode() + "\n" for line in lines), lines
    return [json.loads(line) for line in lines]


def _append(path: Path, *lines: dict[str, Any] | bytes) -> None:
    with path.open("ab") as out:
        for line in lines:
            out.write(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n")


def _first(cc: type[Lines], tmp_path: Path) -> Path:
    return cc.write(
        tmp_path / SESSION_FILE,
        [
            cc.user("u1", None, "2026-03-02T10:00:00.000Z"),
            cc.assistant("msg_1", "a1", "u1", "2026-03-02T10:00:05.000Z",
                         cc.usage(input=10, write=50_000, output=100)),
        ],
    )  # fmt: skip


@pytest.mark.parametrize(
    "mode",
    [(), ("--poll",), ("--interval", "30")],
    ids=["events", "poll", "events-not-the-refresh-clock"],
)
def test_an_appended_response_is_an_event_within_two_seconds(
    cc: type[Lines], tmp_path: Path, mode: tuple[str, ...]
) -> None:
    log = _first(cc, tmp_path)
    watching = _start(tmp_path, "--events", "1", *mode)
    assert watching.stdout is not None
    appended = time.monotonic()
    _append(
        log,
        cc.user("u2", "a1", "2026-03-02T10:01:00.000Z"),
        cc.assistant("msg_2", "a2", "u2", "2026-03-02T10:01:04.000Z",
                     cc.usage(input=20, read=50_000, write=300, output=400)),
    )  # fmt: skip
    (event,) = _events(watching.stdout, 1)
    assert time.monotonic() - appended < 2.0
    assert event["kind"] == "response"
    assert event["tokens"] == {"input": 20, "cache_read": 50_000, "cache_write_5m": 300,
                               "cache_write_1h": 0, "output": 400}  # fmt: skip
    # Sonnet 4: $3 in, $0.30 cache read, $3.75 5-minute write, $15 out per million tokens
    expected = (20 * 3 + 50_000 * 0.30 + 300 * 3.75 + 400 * 15) / 1e6
    assert event["cost_usd"] == pytest.approx(expected, rel=1e-9)
    assert watching.wait(10) == 0


def test_an_appended_cache_break_is_a_break_event_with_its_cause(
    cc: type[Lines], tmp_path: Path
) -> None:
    log = _first(cc, tmp_path)
    watching = _start(tmp_path, "--events", "2")
    assert watching.stdout is not None
    appended = time.monotonic()
    _append(  # ten minutes later: the 5-minute cache expired, the prefix is written again
        log,
        cc.user("u2", "a1", "2026-03-02T10:10:00.000Z"),
        cc.assistant("msg_2", "a2", "u2", "2026-03-02T10:10:04.000Z",
                     cc.usage(input=20, read=0, write=50_200, output=40)),
    )  # fmt: skip
    response, broke = _events(watching.stdout, 2)
    assert time.monotonic() - appended < 2.0
    assert response["kind"] == "response"
    assert broke["kind"] == "cache_break"
    assert broke["cause"] == "ttl_expired"
    assert broke["tokens"]["rebuilt"] == 50_000
    # the rebuild paid the 5-minute write price instead of the read price: $3.75 − $0.30
    assert broke["cost_usd"] == pytest.approx(50_000 * (3.75 - 0.30) / 1e6, rel=1e-9)
    assert watching.wait(10) == 0


def test_a_half_written_line_is_read_when_it_completes_and_never_reported(
    cc: type[Lines], tmp_path: Path
) -> None:
    log = _first(cc, tmp_path)
    watching = _start(tmp_path, "--events", "1", "--poll")
    assert watching.stdout is not None and watching.stderr is not None
    line = json.dumps(
        cc.assistant("msg_2", "a2", "a1", "2026-03-02T10:01:04.000Z", cc.usage(input=7, output=9))
    ).encode()
    _append(log, line[:40])
    time.sleep(1.0)  # several polls see the cut line
    _append(log, line[40:] + b"\n")
    (event,) = _events(watching.stdout, 1)
    assert event["tokens"]["input"] == 7 and event["tokens"]["output"] == 9
    assert watching.wait(10) == 0
    assert watching.stderr.read() == ""


def test_a_new_session_is_an_event(cc: type[Lines], tmp_path: Path) -> None:
    _first(cc, tmp_path)
    watching = _start(tmp_path, "--events", "2")
    assert watching.stdout is not None
    other = "9d0e4a40-0000-4000-8000-000000000001"
    cc.write(
        tmp_path / "projects/-home-dana-src-webshop/9d0e4a40.jsonl",
        [cc.user("v1", None, "2026-03-02T11:00:00.000Z", session=other),
         cc.assistant("msg_9", "b1", "v1", "2026-03-02T11:00:03.000Z", cc.usage(), session=other)],
    )  # fmt: skip
    started, response = _events(watching.stdout, 2)
    assert (started["kind"], started["session_id"]) == ("session_started", other)
    assert (response["kind"], response["session_id"]) == ("response", other)
    assert watching.wait(10) == 0


def test_a_session_idle_for_idle_minutes_is_ended_by_the_clock_then_resumed(
    cc: type[Lines], tmp_path: Path
) -> None:
    log = _first(cc, tmp_path)
    watching = _start(tmp_path, "--events", "5", "--idle", "0.01")  # 0.6 s, not 30 minutes
    assert watching.stdout is not None
    kinds = []
    for number in (2, 3):  # no file changes after an append: the clock ends the session
        line = cc.assistant(f"msg_{number}", f"a{number}", "a1", "2026-03-02T10:01:00.000Z",
                            cc.usage(read=50_000))  # fmt: skip
        _append(log, line)
        events = _events(watching.stdout, 2 if number == 2 else 3)
        kinds.append([event["kind"] for event in events])
        ended = events[-1]
        assert (ended["reason"], ended["idle_minutes"]) == ("idle", 0.01)
    assert kinds == [["response", "session_ended"],
                     ["session_resumed", "response", "session_ended"]]  # fmt: skip
    assert watching.wait(10) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--interval", "0"], "--interval must be above 0"),
        (["--min-usd", "-1"], "--min-usd must be 0 or more"),
        (["--idle", "0"], "--idle must be above 0 minutes"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["watch", str(tmp_path), "--json", *args])
    assert result.exit_code == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_missing_folder_is_a_user_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["watch", str(tmp_path / "nowhere"), "--json", "--for", "0"])
    assert result.exit_code == 2
    assert "nowhere" in result.stderr and "Traceback" not in result.stderr


def test_the_live_view_shows_today_block_sessions_and_events(
    cc: type[Lines], tmp_path: Path
) -> None:
    _first(cc, tmp_path)
    result = CliRunner().invoke(app, ["watch", str(tmp_path), "--for", "0.3", "--poll"])
    assert result.exit_code == 0, result.output
    assert "today" in result.stdout and "events" in result.stdout
    assert "live sessions" in result.stdout


def test_notify_without_its_library_is_a_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "desktop_notifier", None)  # an import of it fails
    result = CliRunner().invoke(app, ["watch", str(tmp_path), "--notify", "--for", "0"])
    assert result.exit_code == 2
    assert "sniff[notify]" in result.stderr and "Traceback" not in result.stderr


def test_a_break_above_min_usd_notifies_and_one_below_does_not(
    cc: type[Lines], tmp_path: Path
) -> None:
    from sniff.cli.watch_loop import Watch
    from sniff.workspace import Workspace

    log = _first(cc, tmp_path)
    sent: list[tuple[str, str]] = []
    run = Watch(Workspace(tmp_path), alert=lambda *message: sent.append(message), min_usd=0.10)
    run.start()
    _append(  # a $0.1725 rebuild (50,000 tokens at $3.45 more than a read)
        log,
        cc.user("u2", "a1", "2026-03-02T10:10:00.000Z"),
        cc.assistant("msg_2", "a2", "u2", "2026-03-02T10:10:04.000Z",
                     cc.usage(input=20, write=50_200, output=40)),
    )  # fmt: skip
    assert [event.kind for event in run.step()] == ["response", "cache_break"]
    assert len(sent) == 1 and "ttl_expired" in sent[0][1] and "$0.17" in sent[0][1]
    run.min_usd = 1.0
    _append(
        log,
        cc.user("u3", "a2", "2026-03-02T10:20:00.000Z"),
        cc.assistant("msg_3", "a3", "u3", "2026-03-02T10:20:04.000Z",
                     cc.usage(input=20, write=50_300, output=40)),
    )  # fmt: skip
    assert "cache_break" in [event.kind for event in run.step()]
    assert len(sent) == 1


def _poisoned(cc: type[Lines], number: int) -> list[bytes]:
    """Three responses a scan skips: usage of 10³⁰ tokens, a raw NUL byte in a string, and
    JSON nested 1,000 levels deep; message ids from `number` on."""
    huge = cc.usage(input=10, output=5)
    huge["input_tokens"] = 1e30
    at = "2026-03-02T10:01:00.000Z"
    lines = [
        cc.assistant(f"msg_{number}", f"a{number}", "u2", at, huge),
        cc.assistant(f"msg_{number + 1}", f"a{number + 1}", "u2", at, cc.usage(),
                     block={"type": "text", "text": "NUL"}),
        cc.assistant(f"msg_{number + 2}", f"a{number + 2}", "u2", at, cc.usage(),
                     block={"type": "tool_use", "id": "t1", "name": "Bash", "input": "DEEP"}),
    ]  # fmt: skip
    huge_line, nul, deep = (json.dumps(line).encode() + b"\n" for line in lines)
    return [
        huge_line,
        nul.replace(b'"NUL"', b'"a \x00 byte"'),
        deep.replace(b'"DEEP"', b"[" * 1000 + b"]" * 1000),
    ]


def _said_by_scan(folder: Path) -> set[tuple[str, int, str]]:
    """The lines `scan --verbose` lists as skipped, as (file, line, reason)."""
    result = CliRunner().invoke(app, ["scan", "--json", "--verbose", str(folder)])
    assert result.exit_code == 0, result.output
    said = set()
    for line in result.stderr.splitlines():
        if line.startswith("sniff: analysed whole: "):
            continue  # which units were analysed from all their requests, and why
        where, reason = line.split(": ", 1)
        file, number = where.rsplit(":", 1)
        said.add((file, int(number), reason))
    return said


def test_lines_skipped_at_start_and_while_following_are_events_with_file_and_line(
    cc: type[Lines], tmp_path: Path
) -> None:
    log = _first(cc, tmp_path)
    _append(log, b'{"type": "assistant", "message": \n')  # line 3: skipped before the watch
    watching = _start(tmp_path, "--events", "6")
    assert watching.stdout is not None
    _append(
        log,
        cc.user("u2", "a1", "2026-03-02T10:01:00.000Z"),
        *_poisoned(cc, 2),  # lines 5 to 7
        cc.assistant("msg_5", "a5", "u2", "2026-03-02T10:01:04.000Z",
                     cc.usage(input=20, read=50_000, output=400)),
        cc.assistant("msg_6", "a6", "a5", "2026-03-02T10:01:09.000Z", cc.usage(input=7, output=9)),
    )  # fmt: skip
    events = _events(watching.stdout, 6)
    assert watching.wait(10) == 0
    skipped = [event for event in events if event["kind"] == "line_skipped"]
    assert events[0] == skipped[0]  # what the start read, first
    assert [(event["file"], event["line"]) for event in skipped] == [
        (str(log), 3), (str(log), 5), (str(log), 6), (str(log), 7)
    ]  # fmt: skip
    assert {(e["file"], e["line"], e["reason"]) for e in skipped} == _said_by_scan(tmp_path)
    assert skipped[1]["reason"] == "implausible usage"
    assert skipped[3]["reason"] == "nested deeper than 64 levels"
    responses = [event for event in events if event["kind"] == "response"]
    assert set(skipped[0]) == set(responses[0])  # every kind has every key
    assert sorted((r["tokens"]["input"], r["tokens"]["output"]) for r in responses) == [
        (7, 9), (20, 400)
    ]  # fmt: skip


def test_the_live_view_counts_the_lines_skipped_and_names_the_latest(
    cc: type[Lines], tmp_path: Path
) -> None:
    log = _first(cc, tmp_path)
    _append(log, cc.user("u2", "a1", "2026-03-02T10:01:00.000Z"), *_poisoned(cc, 2))
    result = CliRunner().invoke(app, ["watch", str(tmp_path), "--for", "0.3", "--poll"])
    assert result.exit_code == 0, result.output
    shown = "".join(result.stdout.splitlines())  # a long path is folded at 80 columns
    assert f"3 lines skipped (unreadable or implausible), the latest {log}:6: nested" in shown


def _claude_code(cc: type[Lines], number: int, tokens: float) -> bytes:
    usage = cc.usage(input=10, output=5)
    usage["input_tokens"] = tokens
    at = "2026-03-02T10:01:00.000Z"
    line = cc.assistant(f"msg_{number}", f"a{number}", "a1", at, usage,
                        block={"type": "text", "text": "Caf\u00e9 ordered."})  # fmt: skip
    return json.dumps(line, ensure_ascii=False).encode() + b"\n"


def _request_log(_cc: type[Lines], number: int, tokens: float) -> bytes:
    """A line of a log read whole, not a block at a time (a request log)."""
    last = (SAMPLE_LOGS / "request-logs/openai-chat.jsonl").read_text().splitlines()[-1]
    line = json.loads(last)
    line["response"]["id"] = f"chatcmpl-watch-{number}"
    line["response"]["usage"]["prompt_tokens"] = tokens
    return json.dumps(line).encode() + b"\n"


@pytest.mark.parametrize("make", [_claude_code, _request_log], ids=["read-on", "read-whole"])
def test_a_skipped_line_is_one_event_once_and_a_cut_last_line_none(
    cc: type[Lines], tmp_path: Path, make: Any
) -> None:
    from sniff.cli.watch_loop import Watch
    from sniff.present.terminal.watch import skipped_footer
    from sniff.workspace import Workspace

    log = tmp_path / "logs" / "a.jsonl"
    log.parent.mkdir()
    log.write_bytes(make(cc, 1, 10))
    run = Watch(Workspace(log.parent))
    run.start()
    good = make(cc, 2, 20)
    # cut in the middle of a character where the line holds one: a log read on knows its whole
    # lines, whatever the cut; one read whole tells its cut line by its reason
    cut = good.index("\u00e9".encode()) + 1 if make is _claude_code else 40
    _append(log, good[:cut])  # being written
    assert run.step() == [] and skipped_footer(run.events) == []
    _append(log, good[cut:])
    assert [event.kind for event in run.step() if event.kind != "session_started"] == ["response"]
    _append(log, make(cc, 3, 1e30))
    (skipped,) = run.step()
    assert (skipped.kind, skipped.file, skipped.line) == ("line_skipped", str(log), 3)
    _append(log, make(cc, 4, 30))  # the file read again lists line 3 again: not a new event
    assert [event.kind for event in run.step()] == ["response"]
    (footer,) = skipped_footer(run.events)
    assert footer.plain.startswith(
        f"1 line skipped (unreadable or implausible), the latest {log}:3"
    )
