"""`sniff statusline`: the line for a fixture transcript (its session cost equal to `sniff scan
--json`'s), --parts, --plain, bad, silent or closed stdin, hostile input kept to one clean line
with no traceback, and its light start-up."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app, main
from sniff.ingest.index import rows as index_rows
from sniff.statusline import archive
from sniff.statusline.line import compose
from sniff.statusline.stdin import StatusInput
from tests.conftest import Lines
from tests.unit.test_index import analysed, settle

__all__ = ["analysed"]  # the fixture, used by name

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("typer", "rich", "pandas", "textual", "scipy", "genai_prices", "click")


def transcript(tmp_path: Path, cc: type[Lines]) -> Path:
    """Three requests; the third, after an hour's pause, rebuilds the cache (ttl_expired)."""
    lines: list[dict[str, Any]] = []
    times = ["2026-03-02T09:00:00Z", "2026-03-02T09:02:00Z", "2026-03-02T10:30:00Z"]
    usages = [cc.usage(input=10, read=0, write=5000, output=50),
              cc.usage(input=10, read=5000, write=300, output=60),
              cc.usage(input=10, read=0, write=5300, output=70)]  # fmt: skip
    parent = None
    for number, (when, usage) in enumerate(zip(times, usages, strict=True)):
        lines.append(cc.user(f"u{number}", parent, when))
        lines.append(cc.assistant(f"msg_{number}", f"a{number}", f"u{number}", when, usage))
        parent = f"a{number}"
    return cc.write(tmp_path / "projects" / "-home-dana-src-webshop" / f"{cc.SESSION}.jsonl", lines)


def status(stdin: bytes, *options: str, monkeypatch: Any, capsys: Any) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    with pytest.raises(SystemExit) as leaving:
        main(["statusline", *options])
    return int(leaving.value.code or 0), capsys.readouterr().out


def given(path: Path, session: str = Lines.SESSION) -> bytes:
    return json.dumps(
        {"session_id": session, "transcript_path": str(path),
         "model": {"id": "claude-sonnet-4-20250514", "display_name": "Sonnet 4"},
         "workspace": {"current_dir": "/home/dana/src/webshop"}, "version": "2.0.0"}
    ).encode()  # fmt: skip


def test_session_cost_equals_scan(tmp_path, cc, monkeypatch, capsys):
    path = transcript(tmp_path, cc)
    scanned = CliRunner().invoke(app, ["scan", str(path), "--json", "--no-progress"])
    assert scanned.exit_code == 0, scanned.output
    session = json.loads(scanned.stdout)["sessions"][0]
    code, out = status(
        given(path),
        "--plain",
        "--parts",
        "model,session,hit,break",
        monkeypatch=monkeypatch,
        capsys=capsys,
    )
    assert code == 0
    hit = session["cache_read_tokens"] / session["prompt_tokens"]
    assert out.startswith(f"Sonnet 4 · session ${session['cost_usd']:,.2f} · hit {hit:.0%} · ")
    assert "⚠ rebuilt " in out and "ttl_expired $" in out
    assert "\x1b[" not in out
    code, out = status(
        given(path), "--parts", "session", "--color", monkeypatch=monkeypatch, capsys=capsys
    )
    assert out == f"\x1b[32msession ${session['cost_usd']:,.2f}\x1b[0m\n"


def test_kept_session_numbers_follow_a_growing_transcript(tmp_path, cc, monkeypatch, capsys):
    path = transcript(tmp_path, cc)
    CliRunner().invoke(app, ["scan", str(path), "--no-progress"])  # keeps the prices
    options = ("--plain", "--parts", "session")
    first = status(given(path), *options, monkeypatch=monkeypatch, capsys=capsys)
    assert status(given(path), *options, monkeypatch=monkeypatch, capsys=capsys) == first
    usage = cc.usage(input=10, read=5300, write=40_000, output=9000)
    with path.open("a") as appended:
        appended.write(json.dumps(cc.user("u9", "a2", "2026-03-02T10:31:00Z")) + "\n")
        line = cc.assistant("msg_9", "a9", "u9", "2026-03-02T10:31:00Z", usage)
        appended.write(json.dumps(line) + "\n")
    scanned = CliRunner().invoke(app, ["scan", str(path), "--json", "--no-progress"])
    cost = json.loads(scanned.stdout)["sessions"][0]["cost_usd"]
    grown = status(given(path), *options, monkeypatch=monkeypatch, capsys=capsys)
    assert grown == (0, f"session ${cost:,.2f}\n") and grown != first


def test_unkept_prices_say_unpriced_never_zero(tmp_path, cc, monkeypatch, capsys):
    path = transcript(tmp_path, cc)  # no earlier run kept this model's prices
    code, out = status(
        given(path), "--plain", "--parts", "model,session", monkeypatch=monkeypatch, capsys=capsys
    )
    assert (code, out) == (0, "Sonnet 4 · session unpriced\n")


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"transcript_path": 3}'])
def test_bad_stdin_prints_a_fallback(stdin, monkeypatch, capsys):
    assert status(stdin, monkeypatch=monkeypatch, capsys=capsys) == (0, "sniff: no session\n")


def test_missing_transcript_shows_what_is_known(tmp_path, monkeypatch, capsys):
    code, out = status(
        given(tmp_path / "gone.jsonl"), "--plain", monkeypatch=monkeypatch, capsys=capsys
    )
    assert (code, out) == (0, "Sonnet 4\n")


@pytest.mark.parametrize(
    ("options", "named"),
    [(["--parts", "model,weather"], "weather"), (["--tz", "Mars/Olympus"], "Mars"),
     (["--tz", "Mars" * 80], "MarsMars")],  # too long for a file name: no OSError
)  # fmt: skip
def test_bad_options_are_user_errors(options, named, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}")))
    with pytest.raises(SystemExit) as leaving:
        main(["statusline", *options])
    assert leaving.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and named in error


def test_today_and_block_from_the_kept_numbers(tmp_path, cc, monkeypatch):
    """A refresh prices every Claude Code transcript; the line shows today's cost and the
    active block's, its time left and burn, as `sniff blocks --json` gives them."""
    path = transcript(Path.home() / ".claude", cc)
    CliRunner().invoke(app, ["scan", str(path), "--no-progress"])  # keeps the prices
    now = datetime(2026, 3, 2, 10, 40, tzinfo=UTC)
    kept = archive.refresh(now, "Pacific/Kiritimati")  # UTC+14: 10:40Z is March 3rd, 00:40
    blocks = CliRunner().invoke(app, ["blocks", "--json", "--active", "--now", now.isoformat()])
    assert blocks.exit_code == 0, blocks.output
    active = json.loads(blocks.stdout)["blocks"][-1]
    assert kept.day == "2026-03-03" and kept.today_requests == 1  # only 10:30Z is March 3rd there
    third = kept.today_usd
    assert third is not None and third > 0
    assert kept.block_end == datetime(2026, 3, 2, 14, 0, tzinfo=UTC).timestamp()  # 09:00 + 5h
    assert kept.block_usd is not None and kept.block_usd > third
    assert kept.block_usd == pytest.approx(active["cost_usd"])
    line = compose(["today", "block"], StatusInput(), None, kept, colour=False, now=now)
    rate = kept.block_usd_per_hour
    assert line == f"today ${third:,.2f} · block ${kept.block_usd:,.2f} 3h20m left (${rate:,.2f}/h)"
    next_day = datetime(2026, 3, 3, 10, 0, tzinfo=UTC)  # March 4th there; the block has ended
    assert compose(["today", "block"], StatusInput(), None, kept, colour=False, now=next_day) == ""


def test_old_kept_numbers_start_one_background_refresh(tmp_path, cc, monkeypatch, capsys):
    started: list[list[str]] = []
    monkeypatch.setattr("subprocess.Popen", lambda command, **_: started.append(command))
    path = transcript(tmp_path, cc)
    for _ in range(2):
        code, out = status(
            given(path), "--plain", "--parts", "model,today", monkeypatch=monkeypatch, capsys=capsys
        )
        assert (code, out) == (0, "Sonnet 4\n")  # nothing kept yet: only what is known
    assert started == [[sys.executable, "-m", "sniff", "statusline", "--refresh"]]  # one, locked
    archive.refresh()  # what the background run does
    code, out = status(
        given(path), "--plain", "--parts", "model,today", monkeypatch=monkeypatch, capsys=capsys
    )
    assert out == "Sonnet 4 · today $0.00\n"  # the fixture's requests are not of today


def test_silent_stdin_does_not_block(tmp_path):
    """A writer that never closes stdin: the line comes after the timeout, exit 0."""
    read, write = os.pipe()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "sniff", "statusline", "--timeout", "0.2"],
            stdin=read, capture_output=True, text=True, timeout=20, cwd=ROOT,
        )  # fmt: skip
    finally:
        os.close(read), os.close(write)
    assert (result.returncode, result.stdout) == (0, "sniff: no session\n")


def test_entry_point_imports_nothing_heavy(tmp_path, cc):
    path = transcript(tmp_path, cc)
    probe = (
        "import io, json, sys\nimport sniff.cli\n"
        f"sys.stdin = io.TextIOWrapper(io.BytesIO({given(path)!r}))\n"
        "try:\n    sniff.cli.main(['statusline', '--plain'])\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "SNIFF_CACHE_DIR": str(tmp_path / "cache")},
    )  # fmt: skip
    assert result.stdout.startswith("Sonnet 4 · session unpriced"), result.stderr
    assert sorted(set(json.loads(result.stderr)) & set(HEAVY)) == []


def test_parts_come_in_the_order_named_and_no_color_wins(tmp_path, cc, monkeypatch, capsys):
    path = transcript(tmp_path, cc)
    CliRunner().invoke(app, ["scan", str(path), "--no-progress"])  # keeps the prices
    code, out = status(
        given(path), "--plain", "--parts", "hit,model", monkeypatch=monkeypatch, capsys=capsys
    )
    assert (code, out) == (0, "hit 32% · Sonnet 4\n")  # 5,000 read of 15,630 prompt tokens
    monkeypatch.setenv("NO_COLOR", "1")
    code, out = status(given(path), "--color", "--parts", "model", monkeypatch=monkeypatch,
                       capsys=capsys)  # fmt: skip
    assert out == "Sonnet 4\n"


def test_help_lists_statusline_and_forwards_to_it(tmp_path, cc):
    listed = CliRunner().invoke(app, ["--help"])
    assert "statusline" in listed.stdout
    path = transcript(tmp_path, cc)
    result = CliRunner().invoke(app, ["statusline", "--plain", "--parts", "model"],
                                input=given(path))  # fmt: skip
    assert (result.exit_code, result.stdout) == (0, "Sonnet 4\n")


def test_the_last_break_shown_is_the_sessions_own(tmp_path, cc):
    """A transcript holding a later break of another session: the named session's is shown."""
    from sniff.statusline.session import session_numbers

    path = transcript(tmp_path, cc)
    other, lines = "other-session", []
    for number, when in enumerate(["2026-03-02T11:00:00Z", "2026-03-02T12:30:00Z"]):
        user = cc.user(f"o-u{number}", f"o-a{number - 1}" if number else None, when, session=other)
        usage = cc.usage(input=10, read=0, write=6000, output=40)
        lines += [user, cc.assistant(f"msg_o{number}", f"o-a{number}", f"o-u{number}", when,
                                     usage, session=other)]  # fmt: skip
    with path.open("a") as appended:
        appended.writelines(json.dumps(line) + "\n" for line in lines)
    CliRunner().invoke(app, ["scan", str(path), "--no-progress"])  # keeps the prices
    own = session_numbers(path, cc.SESSION)
    assert own is not None and own.last_break is not None
    assert own.last_break.when == datetime(2026, 3, 2, 10, 30, tzinfo=UTC)
    assert own.last_break.cause == "ttl_expired"
    theirs = session_numbers(path, other)
    assert theirs is not None and theirs.last_break is not None
    assert theirs.last_break.when == datetime(2026, 3, 2, 12, 30, tzinfo=UTC)


# --- issue 29: whatever comes in, one clean line and exit 0, never a traceback -----------------


def one_clean_line(stdin: bytes | None, *options: str) -> str:
    """`sniff statusline` in a process of its own, with `stdin` on its standard input (None:
    standard input closed, as `<&-` does): its one line, after checking that it is one line
    without a control character, exit code 0 and nothing on stderr."""
    command = [sys.executable, "-m", "sniff", "statusline", "--plain", *options]
    if stdin is None:  # the shell closes it: a process started so has no sys.stdin at all
        command = ["sh", "-c", 'exec "$@" <&-', "sh", *command]
    result = subprocess.run(
        command, input=stdin, capture_output=True, timeout=20, cwd=ROOT, check=False
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout.endswith(b"\n") and result.stdout.count(b"\n") == 1, result.stdout
    line = result.stdout[:-1]
    assert all(byte >= 0x20 and byte != 0x7F for byte in line), line  # no ESC, BEL, CR, LF
    return line.decode()


def test_a_closed_stdin_is_no_session() -> None:
    assert one_clean_line(None) == "sniff: no session"


def test_a_transcript_path_too_long_for_the_system_shows_what_is_known() -> None:
    path = "/tmp/" + "a" * 295  # one name of 295 characters: the system's limit is 255
    given = {"transcript_path": path, "model": {"display_name": "Sonnet 4"}}
    assert one_clean_line(json.dumps(given).encode()) == "Sonnet 4"


def test_json_after_a_byte_order_mark_is_read(tmp_path, cc):
    path = transcript(tmp_path, cc)
    assert one_clean_line(b"\xef\xbb\xbf" + given(path), "--parts", "model,session") == (
        "Sonnet 4 · session unpriced"
    )


def test_a_display_name_with_escapes_and_lines_is_one_visible_line() -> None:
    name = "\x1b[2J\x1b]0;pwned\x07\u202eevil\r\nsecond line\x9b31m\x7f"
    line = one_clean_line(json.dumps({"model": {"display_name": name}}).encode())
    assert line == "␛[2J␛]0;pwned␇\ufffdevil␍ second line\ufffd31m␡"


def test_anything_unforeseen_is_one_short_line_and_exit_0(tmp_path, cc, monkeypatch, capsys):
    def broken(*args: object, **options: object) -> str:
        raise RuntimeError("a bug")

    monkeypatch.setattr("sniff.statusline.run.compose", broken)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(given(transcript(tmp_path, cc)))))
    with pytest.raises(SystemExit) as leaving:
        main(["statusline"])
    assert leaving.value.code == 0
    assert capsys.readouterr() == ("sniff: status unavailable\n", "")


def test_the_status_line_and_a_scan_share_what_each_kept(
    tmp_path, cc, monkeypatch, capsys, analysed
):
    """The first status line after a scan of the folder analyses nothing again (it borrows
    the scan's part of the session's unit), and a scan after the status line read a new turn
    extends the status line's part: each equal to `--no-index`."""
    monkeypatch.setattr(index_rows, "STATE_MIN_BYTES", 0)  # read on, as a big transcript is
    path = transcript(tmp_path, cc)
    settle(path)
    folder = str(tmp_path / "projects")
    analysed.append(0)
    scanned = CliRunner().invoke(app, ["scan", folder, "--json", "--no-progress"])
    session = json.loads(scanned.stdout)["sessions"][0]
    analysed.append(0)
    line = status(given(path), "--plain", "--parts", "session", monkeypatch=monkeypatch,
                  capsys=capsys)  # fmt: skip
    assert line == (0, f"session ${session['cost_usd']:,.2f}\n")
    assert analysed == [1, 0]
    usage = cc.usage(input=10, read=5300, write=400, output=90)
    with path.open("a") as appended:
        appended.write(json.dumps(cc.user("u9", "a2", "2026-03-02T10:31:00Z")) + "\n")
        appended.write(json.dumps(cc.assistant("msg_9", "a9", "u9", "2026-03-02T10:31:09Z", usage))
                       + "\n")  # fmt: skip
    settle(path)
    status(given(path), "--plain", "--parts", "session", monkeypatch=monkeypatch, capsys=capsys)
    analysed.append(0)
    again = CliRunner().invoke(app, ["scan", folder, "--json", "--no-progress"])
    assert analysed[-2:] == [0, 0]  # the status line extended its part; the scan borrowed it
    whole = CliRunner().invoke(app, ["scan", folder, "--json", "--no-progress", "--no-index"])
    assert json.loads(again.stdout) == json.loads(whole.stdout)


def test_a_part_priced_from_kept_prices_only_is_not_lent_where_it_leaves_a_request_unpriced(
    tmp_path, cc, monkeypatch, capsys, analysed
):
    path = transcript(tmp_path, cc)
    settle(path)
    analysed.append(0)  # no run kept this model's prices: the status line cannot price it
    line = status(given(path), "--plain", "--parts", "session", monkeypatch=monkeypatch,
                  capsys=capsys)  # fmt: skip
    assert line == (0, "session unpriced\n")
    analysed.append(0)
    folder = str(tmp_path / "projects")
    scanned = json.loads(CliRunner().invoke(app, ["scan", folder, "--json"]).stdout)
    assert analysed == [1, 1]  # analysed again, with the price library
    assert scanned["totals"]["unpriced_requests"] == 0 and scanned["totals"]["cost_usd"] > 0
