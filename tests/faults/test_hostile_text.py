"""Planted payloads: text from a log is shown, never obeyed, by every command in every format.

Real Claude Code sessions are planted whose project folders, git branches, prompts, tool names,
tool output and commit messages hold what an attacker would put there: terminal escapes (a
title change, a screen clear, CR, a C1 CSI, a bidirectional override), Rich markup (unbalanced,
balanced, a link), spreadsheet formulas, raw HTML, and keys (an Anthropic key in a tool result,
a GitHub token as a branch name). Every command is run in every format, at 80 columns; what comes
out must hold no control byte, no key, no formula cell and no raw HTML, and the markup must
still be there as text: shown, not swallowed and not obeyed.
"""

from __future__ import annotations

import csv
import io
import json
import random
import string
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.tui import make_app
from sniff.tui.screens.behaviour import BehaviourScreen
from sniff.tui.screens.findings import FindingsScreen
from sniff.tui.screens.project import ProjectScreen
from sniff.tui.screens.session import SessionScreen
from sniff.workspace import Workspace
from tests.planted_session import Step, bash, write_session
from tests.tui.conftest import screen_text, settle

RNG = random.Random(29)
ALPHABET = string.ascii_letters + string.digits
ANTHROPIC_SECRET = "api03-" + "".join(RNG.choice(ALPHABET) for _ in range(93)) + "AA"
ANTHROPIC_KEY = "sk-ant-" + ANTHROPIC_SECRET
GITHUB_SECRET = "".join(RNG.choice(ALPHABET) for _ in range(36))
GITHUB_TOKEN = "ghp_" + GITHUB_SECRET
SECRETS = (ANTHROPIC_SECRET, GITHUB_SECRET)

ESCAPES = "\x1b]2;pwned\x07\x1b[2J\rgone\x9b31m\u202e"
MARKUP = (
    "see docs[/] [red]RED[/red] [INST]inst[/INST] [link=https://evil.example/phish]notes[/link]"
)
HTML = "<script>alert('xss')</script><img src=x onerror=alert(1)>"
HOSTILE = f"{ESCAPES} {MARKUP} {HTML}"
FORMULAS = ("=cmd|' /C calc'!A0", "+SUM(1+1)*cmd|' /C calc'!A0", "-2+3+cmd|' /C calc'!A0",
            "@SUM(1)")  # fmt: skip
CONTROLS = {chr(code) for code in (*range(0x20), 0x7F, *range(0x80, 0xA0))} - {"\n", "\t"}
CONTROLS |= {chr(code) for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))}
NOW = datetime.now(UTC).replace(microsecond=0)


def plant(folder: Path) -> Path:
    """The hostile session (a payload everywhere, a key in a failed tool's output), a session on
    a branch named after a key, and one session in each formula-named folder."""
    hostile = write_session(
        folder,
        [
            Step(cache_write=2000, cache_read=0),
            bash("git commit -m x", f"[feat abc1234] {MARKUP} {ESCAPES} {HTML}"),
            bash("env", f"ANTHROPIC_API_KEY={ANTHROPIC_KEY}\n{HOSTILE}", is_error=True),
            Step(tool=f"Evil[/]{ESCAPES}", output=HOSTILE, is_error=True),
            Step(cache_read=0, cache_write=2500),
        ],
        session="5e551011-0000-4000-8000-0000000000a1",
        prompt=f"{HOSTILE} {ANTHROPIC_KEY}",
        start=NOW - timedelta(minutes=20),
    )
    _rewrite(hostile, cwd=f"/home/dev/{HOSTILE}", gitBranch=f"x[/b]{ESCAPES}")
    keyed = write_session(folder, [Step(), Step()], session="5e551011-0000-4000-8000-0000000000a2",
                          start=NOW - timedelta(days=1))  # fmt: skip
    _rewrite(keyed, gitBranch=GITHUB_TOKEN)
    for number, formula in enumerate(FORMULAS):
        session = f"5e551011-0000-4000-8000-00000000010{number}"
        path = write_session(folder, [Step()], session=session, start=NOW - timedelta(days=2))
        _rewrite(path, cwd=formula, model=formula if number == 0 else None)
    return folder


def _rewrite(path: Path, model: str | None = None, **fields: str) -> None:
    """`fields` set on every line, and the message and request ids made the session's own (the
    planted sessions share them, and a message logged twice counts once)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    own = path.stem[-3:]
    for line in lines:
        line.update(fields)
        if line["type"] == "assistant":
            line["requestId"] += own
            line["message"]["id"] += own
            if model is not None:
                line["message"]["model"] = model
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return plant(tmp_path_factory.mktemp("hostile"))


def run(*args: str | Path, columns: int = 80) -> str:
    result = CliRunner().invoke(
        app, [str(arg) for arg in args], env={"COLUMNS": str(columns), "NO_COLOR": "1"}
    )
    assert result.exit_code == 0, f"{args}: {result.output}"
    return result.output + result.stderr


def obeyed(output: str, *, page: bool = False) -> list[str]:
    """What in `output` a terminal or a reader would obey or should not see; a `page` (HTML,
    Markdown) must hold no raw HTML from a log either (JSON and a terminal show it as text)."""
    found = [f"control U+{ord(c):04X}" for c in sorted(set(output) & CONTROLS)]
    found += [f"secret {s[:6]}…" for s in SECRETS if any(s[i:i + 10] in output
                                                          for i in range(len(s) - 9))]  # fmt: skip
    if page:
        found += [f"raw HTML {tag}" for tag in ("<script>alert", "<img src=x") if tag in output]
    return found


COMMANDS = [
    ("scan",), ("scan", "--json", "--verbose"), ("sessions",), ("sessions", "--json"),
    ("sessions", "--by", "branch"), ("sessions", "--by", "branch", "--json"),
    ("sessions", "--by", "repo"), ("daily",), ("daily", "--breakdown"), ("weekly", "--json"),
    ("monthly",), ("cache",), ("cache", "--json"), ("cache", "--breaks"),
    ("cache", "--breaks", "--json"), ("latency",), ("latency", "--json"), ("agents",),
    ("agents", "--json"), ("blocks",), ("blocks", "--json"), ("commits",), ("commits", "--json"),
    ("drift",), ("drift", "--json"), ("context",), ("context", "--json"), ("lint",),
    ("lint", "--json"), ("lint", "--output-format", "sarif"),
    ("report", "-f", "md"), ("report", "-f", "html"), ("report", "-f", "json"),
    ("report", "-f", "csv", "--by", "project"), ("report", "-f", "csv", "--by", "model"),
    ("report", "-f", "md", "--by", "model"),
]  # fmt: skip


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_no_command_obeys_text_from_a_log(logs: Path, args: tuple[str, ...]) -> None:
    no_index = () if args[0] == "lint" else ("--no-index",)
    output = run(args[0], logs, *no_index, *args[1:])
    assert obeyed(output, page="md" in args or "html" in args) == []
    if "md" in args:
        assert "<script" not in output and "<img" not in output
    if "csv" in args:
        cells = [row[0] for row in csv.reader(io.StringIO(output)) if row]
        assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@", "\t", "\r"))]
        assert any(cell.startswith("'=cmd") for cell in cells)  # neutralised, not dropped


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (("commits",), "see docs[/] [red]RED"),
        (("sessions", "--by", "branch"), "x[/b]"),
        (("agents",), "Evil[/]"),
        (("scan",), "<img src=x onerror=alert(1)>"),
    ],
)
def test_markup_from_a_log_is_shown_as_text(logs: Path, args: tuple[str, ...], shown: str) -> None:
    assert shown in run(args[0], logs, "--no-index", *args[1:], columns=400)


def test_the_export_holds_no_key(logs: Path, tmp_path: Path) -> None:
    run("export", logs, "--no-index", "-o", tmp_path / "out")
    cells = []
    for table in ("requests", "sessions", "breaks"):
        cells += [str(value) for row in pq.read_table(tmp_path / "out" / table).to_pylist()
                  for value in row.values()]  # fmt: skip
    assert [found for found in obeyed(" ".join(cells)) if found.startswith("secret")] == []
    assert any("ghp_…[redacted]" in cell for cell in cells)


def test_watch_shows_no_key_and_no_escape(logs: Path, tmp_path: Path) -> None:
    folder = tmp_path / "watched"
    write_session(folder, [Step()], session="5e551011-0000-4000-8000-0000000000b1",
                  start=NOW - timedelta(hours=1))  # fmt: skip
    watching = subprocess.Popen(
        [sys.executable, "-m", "sniff", "watch", str(folder), "--json", "--for", "6",
         "--interval", "0.2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert watching.stderr is not None and "watching" in watching.stderr.readline()
    hostile = next(logs.rglob("*0000000000a1.jsonl"))
    target = folder / "-home-dev-planted" / hostile.name
    target.write_bytes(hostile.read_bytes())
    out, err = watching.communicate(timeout=30)
    events = [json.loads(line) for line in out.splitlines()]
    assert any(event["kind"] == "tool_failed" for event in events), out
    assert obeyed(out + err) == []
    live = run("watch", logs, "--for", "0.3", "--poll", columns=120)
    assert obeyed(live) == []


def test_statusline_keeps_to_one_clean_line(logs: Path) -> None:
    hostile = next(logs.rglob("*0000000000a1.jsonl"))
    given = {
        "session_id": "5e551011-0000-4000-8000-0000000000a1", "transcript_path": str(hostile),
        "model": {"id": "claude-sonnet-4-5", "display_name": f"\x1b[2J\x1b]0;pwned\x07{MARKUP}\n2"},
        "workspace": {"current_dir": f"/home/dev/{HOSTILE}"}, "version": "2.0.0",
    }  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "sniff", "statusline"],
        input=json.dumps(given),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.count("\n") == 1 and obeyed(done.stdout.rstrip("\n")) == []


async def test_the_browser_shows_text_from_logs_and_obeys_none(logs: Path) -> None:
    browser = make_app(Workspace(logs, tz="UTC"))
    async with browser.run_test(size=(200, 60)) as pilot:
        await settle(pilot)
        assert browser.archive is not None
        project = f"/home/dev/{HOSTILE}"
        screens = [ProjectScreen(project), SessionScreen("5e551011-0000-4000-8000-0000000000a1"),
                   BehaviourScreen(), FindingsScreen()]  # fmt: skip
        shown = [screen_text(browser.screen), browser.export_screenshot()]
        for screen in screens:
            browser.push_screen(screen)
            await settle(pilot)
            shown += [screen_text(browser.screen), browser.export_screenshot()]
            browser.pop_screen()
            await settle(pilot)
        everything = "\n".join(shown)
        assert obeyed(everything) == []
        assert "see docs[/]" in everything and "x[/b]" in everything


@pytest.fixture(scope="module")
def hostile_team(logs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A team folder of the hostile logs whose rows name a hostile machine and user (a team
    folder is anyone's to write: its names are read, never trusted)."""
    import pyarrow as pa

    from sniff.ingest.export_folders import table_files

    team = tmp_path_factory.mktemp("hostile-team") / "team"
    run("export", logs, "--no-index", "-o", team, "--team", "--machine", "m1")
    for file in table_files(team / "machines" / "m1"):
        table = pq.read_table(file)
        for column in ("machine", "user"):
            index = table.schema.get_field_index(column)
            table = table.set_column(index, column, pa.array([HOSTILE] * table.num_rows))
        pq.write_table(table, file)
    return team


TEAM_COMMANDS = [
    ("sessions", "--by", "machine"), ("sessions", "--by", "user", "--json"),
    ("monthly", "--breakdown", "machine"), ("daily", "--breakdown", "user", "--json"),
    ("report", "-f", "md"), ("report", "-f", "html"), ("report", "-f", "json"),
]  # fmt: skip


@pytest.mark.parametrize("args", TEAM_COMMANDS, ids=" ".join)
def test_no_command_obeys_a_team_exports_names(hostile_team: Path, args: tuple[str, ...]) -> None:
    output = run(args[0], hostile_team, "--no-index", *args[1:], columns=400)
    assert obeyed(output, page="md" in args or "html" in args) == []
    if "md" in args:
        assert "<script" not in output and "<img" not in output
    if args[0] in ("sessions", "monthly"):
        assert "pwned" in output and "see docs" in output  # shown as text, not obeyed
