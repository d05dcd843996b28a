"""Fault injection: one poison line appended to a real session never loses a run (issue 18, §2).

Each poison is appended to a copy of a sample session of each format: usage that is no count
(10**30, 2**63, a string, a negative number, a bool, a list, a fraction), JSON nested too deep,
a date no time zone can show. Every command then exits as it does without the poison, with the
same numbers, exactly: the poison line is skipped, and `--verbose` says where and why.
"""

from __future__ import annotations

import copy
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.record import Prompts
from tests.conftest import SAMPLE_LOGS

MARK = "__poison__"
"""Where a poison's raw JSON goes in a line (nesting too deep for `json.dumps` to write)."""
EAST, WEST = "Asia/Tokyo", "America/Los_Angeles"
END_OF_TIME = "9999-12-31T23:59:59.999Z"
DEEP = "[" * 1000 + "]" * 1000
IMPLAUSIBLE = "implausible usage"
TOO_DEEP = "nested deeper than 64 levels"
OUT_OF_RANGE = "date out of range"
UNDATED = "unparseable timestamp"

Line = dict[str, Any]


@dataclass(frozen=True)
class Session:
    """A sample session of one format, and where its lines hold what a poison changes."""

    name: str
    source: Path
    is_template: Callable[[Line], bool]
    """The lines a poison line is made from (one that counts a response)."""
    fresh: Callable[[Line], None]
    """Make a copy of a template a response of its own."""
    usage: Callable[[Line], dict[str, Any]]
    """The counts to poison."""
    date: Callable[[Line, str], None]
    deep: Callable[[Line], None]
    """Put `MARK` where the parser reads the line."""

    def template(self) -> Line:
        lines = []
        for text in self.source.read_text().splitlines():
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError:
                continue  # the sample's own cut last line
        return copy.deepcopy([line for line in lines if self.is_template(line)][-1])


def _set(path: str) -> Callable[[Line, Any], None]:
    def put(line: Line, value: Any) -> None:
        *parents, last = path.split(".")
        for key in parents:
            line = line[int(key)] if key.isdigit() else line[key]
        line[last] = value

    return put


def _codex_fresh(line: Line) -> None:
    totals = line["payload"]["info"]["total_token_usage"]
    totals["input_tokens"] += 1_000
    totals["output_tokens"] += 10


CLAUDE_CODE = Session(
    "claude-code",
    SAMPLE_LOGS
    / "claude-code/projects/-home-dana-src-webshop/515c8333-3a04-4486-ba63-376f81227b4f.jsonl",
    lambda line: line.get("type") == "assistant" and "usage" in line.get("message", {}),
    lambda line: line.update(uuid="poison-uuid", message={**line["message"], "id": "msg_poison"}),
    lambda line: line["message"]["usage"],
    lambda line, when: line.update(timestamp=when),
    lambda line: _set("message.content.0.input")(line, MARK),
)
CODEX = Session(
    "codex",
    next((SAMPLE_LOGS / "codex/sessions/2026/03/06").glob("rollout-*.jsonl")),
    lambda line: (
        line.get("type") == "event_msg"
        and line["payload"].get("type") == "token_count"
        and bool(line["payload"].get("info"))
    ),
    _codex_fresh,
    lambda line: line["payload"]["info"]["last_token_usage"],
    lambda line, when: line.update(timestamp=when),
    lambda line: _set("payload.info.poison")(line, MARK),
)
CODEX_RECORDS = Session(
    "codex-records",
    next((SAMPLE_LOGS / "codex/sessions/2026/03/07").glob("rollout-*.jsonl")),
    lambda line: line.get("type") == "token_usage_record",
    lambda line: _set("payload.response_id")(line, "resp_poison"),
    lambda line: line["payload"]["usage"],
    lambda line, when: line.update(timestamp=when),
    lambda line: _set("payload.poison")(line, MARK),
)
CLAUDE_TRACE = Session(
    "claude-trace",
    SAMPLE_LOGS / "claude-trace/.claude-trace/log-2026-03-04-10-15-02.jsonl",
    lambda line: (
        isinstance((line.get("response") or {}).get("body"), dict)
        and "usage" in line["response"]["body"]
    ),
    lambda line: _set("response.body.id")(line, "msg_poison"),
    lambda line: line["response"]["body"]["usage"],
    lambda line, when: line.update(logged_at=when),
    lambda line: _set("response.body.content.0.poison")(line, MARK),
)
REQUEST_LOG = Session(
    "request-log",
    SAMPLE_LOGS / "request-logs/openai-chat.jsonl",
    lambda line: isinstance(line.get("response"), dict) and "usage" in line["response"],
    lambda line: line.update(id="poison"),
    lambda line: line["response"]["usage"],
    lambda line, when: line.update(ended_at=when),
    lambda line: _set("request.poison")(line, MARK),
)
SESSIONS = [CLAUDE_CODE, CODEX, CODEX_RECORDS, CLAUDE_TRACE, REQUEST_LOG]

COMMANDS: list[tuple[str, ...]] = [
    ("scan", "--json"),
    ("sessions", "--json"),
    ("cache", "--json"),
    ("cache", "--breaks", "--json"),
    ("agents", "--json"),
    ("latency", "--json"),
    ("report", "--json"),
    ("export", "--json"),
    ("lint", "--json"),
]
ZONELESS = {"lint", "export"}
"""Commands without --tz."""
SAYS_WHAT_WAS_SKIPPED = {"warnings", "assumptions"}
"""Keys of the outputs that count skipped lines: everything else must be as without the poison."""


def poison(session: Session, change: Callable[[Line], None], raw: str = "") -> str:
    """A line of `session`'s format: a fresh response, changed by `change`."""
    line = session.template()
    session.fresh(line)
    change(line)
    return json.dumps(line).replace(json.dumps(MARK), raw)


def usage_of(session: Session, value: Any, field: str = "") -> Callable[[Line], None]:
    def change(line: Line) -> None:
        usage = session.usage(line)
        usage[field or next(key for key, count in usage.items() if isinstance(count, int))] = value

    return change


def cumulative(value: int) -> Callable[[Line], None]:
    """A Codex event whose running input total grew by `value`."""

    def change(line: Line) -> None:
        line["payload"]["info"]["total_token_usage"]["input_tokens"] += value

    return change


def logs(folder: Path, session: Session, *extra: str) -> Path:
    """`session` copied into `folder` (under its own file name), with `extra` lines appended."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / session.source.name
    text = session.source.read_text()
    path.write_text(text + ("" if text.endswith("\n") else "\n") + "".join(f"{x}\n" for x in extra))
    return path


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def outputs(folder: Path, zone: str = EAST, *bounds: str) -> dict[str, tuple[int, Any]]:
    """Every command's exit code and JSON output over `folder`, paths made relative to it."""
    found: dict[str, tuple[int, Any]] = {}
    for command in COMMANDS:
        options = [*command[1:]]
        if command[0] not in ZONELESS:
            options += ["--tz", zone, *bounds]
        export = Path(tempfile.mkdtemp(dir=folder.parent)) / "export"  # each export a new one
        if command[0] == "export":
            options += ["-o", str(export)]
        result = run(command[0], str(folder), *options)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            command,
            result.output,
        )
        text = result.stdout.replace(str(export), "<export>").replace(str(folder.parent), "<here>")
        found[" ".join(command)] = (result.exit_code, _without_counts(json.loads(text)))
    return found


def _without_counts(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_counts(v) for k, v in value.items() if k not in SAYS_WHAT_WAS_SKIPPED}
    if isinstance(value, list):
        return [_without_counts(item) for item in value]
    return value


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, tuple[int, Any]]]:
    """Every command's output over each unpoisoned session, read once for the module."""
    found = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SNIFF_CACHE_DIR", str(tmp_path_factory.mktemp("clean-cache")))
        for session in SESSIONS:
            folder = tmp_path_factory.mktemp("c") / "logs"
            logs(folder, session)
            found[session.name] = outputs(folder)
    return found


def skipped(path: Path, line: int) -> list[str]:
    """What `scan --verbose` says of `path`'s line `line`."""
    result = run("scan", "--json", "--verbose", str(path))
    assert result.exit_code == 0, result.output
    return [said for said in result.stderr.splitlines() if said.startswith(f"{path}:{line}: ")]


def line_count(path: Path) -> int:
    return len(path.read_text().splitlines())


def huge_usage(session: Session) -> tuple[Callable[[Line], None], str]:
    return (cumulative(10**30) if session is CODEX else usage_of(session, 10**30)), ""


def too_deep(session: Session) -> tuple[Callable[[Line], None], str]:
    return session.deep, DEEP


def end_of_time(session: Session) -> tuple[Callable[[Line], None], str]:
    return (lambda line: session.date(line, END_OF_TIME)), ""


POISONS = {
    "usage 10**30": (huge_usage, IMPLAUSIBLE),
    "nested 1000 deep": (too_deep, TOO_DEEP),
    "dated 9999-12-31": (end_of_time, OUT_OF_RANGE),
}
"""Each class of poison: how a line of a session gets it, and the reason it is skipped with."""


@pytest.mark.parametrize("kind", POISONS)
@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s.name)
def test_every_command_reads_a_poisoned_session_as_the_clean_one(tmp_path, clean, session, kind):
    make, reason = POISONS[kind]
    change, raw = make(session)
    folder = tmp_path / "logs"
    path = logs(folder, session, poison(session, change, raw))
    assert outputs(folder) == clean[session.name]
    assert skipped(path, line_count(path)) == [f"{path}:{line_count(path)}: {reason}"]


NO_COUNTS = {
    "2**63": 2**63,
    "10**9 + 1": 10**9 + 1,
    "a string": "5",
    "negative": -1,
    "a bool": True,
    "a list": [1],
    "a fraction": 1.5,
    "an object": {"tokens": 5},
}


@pytest.mark.parametrize("value", NO_COUNTS.values(), ids=NO_COUNTS.keys())
@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s.name)
def test_a_count_that_is_no_count_is_a_skipped_line(tmp_path, clean, session, value):
    path = logs(tmp_path / "logs", session, poison(session, usage_of(session, value)))
    result = run("scan", "--json", "--tz", EAST, str(path.parent))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.replace(str(tmp_path), "<here>"))
    assert _without_counts(report) == clean[session.name]["scan --json"][1]
    assert report["warnings"]["skipped_lines"] == 1
    assert skipped(path, line_count(path)) == [f"{path}:{line_count(path)}: {IMPLAUSIBLE}"]


def test_whole_floats_and_null_or_absent_counts_still_count(tmp_path):
    """5.0 is a count; a null or absent optional count is 0 (OpenAI's null details)."""
    chat = REQUEST_LOG.template()
    chat["response"]["usage"].update(prompt_tokens=1200.0, prompt_tokens_details=None)
    chat["response"]["usage"].pop("completion_tokens_details", None)
    path = logs(tmp_path / "logs", REQUEST_LOG, json.dumps({**chat, "id": "whole"}))
    result = run("scan", "--json", str(path))
    report = json.loads(result.stdout)
    clean = json.loads(run("scan", "--json", str(REQUEST_LOG.source)).stdout)
    assert report["totals"]["requests"] == clean["totals"]["requests"] + 1
    assert report["totals"]["prompt_tokens"] == clean["totals"]["prompt_tokens"] + 1200
    assert report["warnings"]["skipped_lines"] == 0


def test_codex_bounds_the_growth_of_its_running_totals_not_the_totals(tmp_path):
    """A long session's totals pass 10**9; each response's growth stays plausible."""
    event = CODEX.template()
    lines = []
    for step in range(1, 4):
        line = copy.deepcopy(event)
        line["payload"]["info"]["total_token_usage"].update(
            input_tokens=step * 600_000_000, cached_input_tokens=0, output_tokens=step
        )
        lines.append(json.dumps(line))
    path = tmp_path / "rollout-2026-03-06T14-02-11-019cc374-b49a-7d28-b41d-cadbc9b26756.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines))
    report = json.loads(run("scan", "--json", str(path)).stdout)
    assert report["totals"]["requests"] == 3
    assert report["totals"]["input_tokens"] == 1_800_000_000
    assert report["warnings"]["skipped_lines"] == 0


@pytest.mark.parametrize("zone", [EAST, WEST])
def test_a_far_date_is_a_skipped_line_in_any_zone(tmp_path, clean, zone):
    line = poison(CLAUDE_CODE, lambda line: CLAUDE_CODE.date(line, END_OF_TIME))
    path = logs(tmp_path / "logs", CLAUDE_CODE, line)
    for command in (["scan"], ["scan", "--json"], ["report", "-f", "md", "-o", "-"]):
        result = run(*command, "--tz", zone, str(path))
        assert result.exit_code == 0, result.output
    year_one = poison(CLAUDE_CODE, lambda line: CLAUDE_CODE.date(line, "0001-01-01T00:00:00Z"))
    path = logs(tmp_path / "early", CLAUDE_CODE, year_one)
    result = run("scan", "--json", "--tz", zone, str(path))
    assert result.exit_code == 0, result.output
    assert skipped(path, line_count(path)) == [f"{path}:{line_count(path)}: {OUT_OF_RANGE}"]


def test_nesting_is_read_to_64_levels_and_no_deeper(tmp_path):
    """A claude-trace prompt block is read (decoded, hashed): its line's depth is bounded.

    Its line, request, body, messages, message, content and the block are 7 levels: a value
    in the block nested 57 deep makes 64.
    """
    block = {"type": "text", "text": "hi", "deep": MARK}

    def prompt(line: Line) -> None:
        line["request"]["body"]["messages"][0]["content"] = [block]

    at_bound = poison(CLAUDE_TRACE, prompt, "[" * 57 + "]" * 57)
    beyond = poison(CLAUDE_TRACE, prompt, "[" * 58 + "]" * 58)
    path = logs(tmp_path / "logs", CLAUDE_TRACE, at_bound, beyond)
    count = line_count(path)
    assert skipped(path, count - 1) == []
    assert skipped(path, count) == [f"{path}:{count}: {TOO_DEEP}"]


@pytest.mark.parametrize("zone", [EAST, WEST])
def test_far_bounds_are_no_bounds(tmp_path, clean, zone):
    """`--until 9999-12-31` and `--since 0001-01-01` bound nothing, in every command."""
    folder = tmp_path / "logs"
    logs(folder, CLAUDE_CODE)
    for bounds in (("--until", "9999-12-31"), ("--since", "0001-01-01", "--until", "9999-12-31")):
        bounded = outputs(folder, zone, *bounds)
        assert {name: found for name, found in bounded.items()} == outputs(folder, zone)
    assert outputs(folder, EAST) == clean[CLAUDE_CODE.name]


@pytest.mark.parametrize("session", [CLAUDE_CODE, CODEX, REQUEST_LOG], ids=lambda s: s.name)
def test_an_unparseable_timestamp_is_counted_as_a_warning(tmp_path, session):
    path = logs(
        tmp_path / "logs", session, poison(session, lambda line: session.date(line, "soon"))
    )
    result = run("scan", "--json", "--verbose", str(path))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    clean = json.loads(run("scan", "--json", str(session.source)).stdout)
    assert report["totals"]["requests"] == clean["totals"]["requests"] + 1  # kept, dated by file
    assert report["warnings"]["unparseable_timestamps"] == 1
    assert f"{path}:{line_count(path)}: {UNDATED}" in result.stderr.splitlines()
    said = run("scan", str(path)).stdout
    assert "1 line with a timestamp sniff cannot read" in said


def test_the_browser_loads_a_poisoned_session_as_the_clean_one(tmp_path):
    """The TUI reads through `logs.load` with prompts: the poison lines change nothing."""
    from sniff.logs import load

    clean = load([logs(tmp_path / "clean" / "logs", CLAUDE_TRACE)], with_prompts=Prompts.COUNTED)
    lines = [poison(CLAUDE_TRACE, *make(CLAUDE_TRACE)) for make, _ in POISONS.values()]
    poisoned = load(
        [logs(tmp_path / "poisoned" / "logs", CLAUDE_TRACE, *lines)], with_prompts=Prompts.COUNTED
    )

    def calls(dataset: Any) -> list[tuple[str, Any, Any]]:
        return [(r.key.replace("poisoned", "clean"), r.usage, r.blocks) for r in dataset.requests]

    assert calls(poisoned) == calls(clean)
    assert len(poisoned.skipped) == len(clean.skipped) + len(lines)
