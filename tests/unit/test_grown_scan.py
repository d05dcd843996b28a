"""A scan after a session file grew equals a scan without the index, and analyses only what grew.

Each test scans a transcript with the index, appends lines the way Claude Code does, and
scans again: the JSON (totals, sessions, breaks) must be that of `--no-index` on the grown
file. `analysed` counts the units analysed from all their requests: 0 for the grown scan means
its appended requests were judged against what the kept part holds of the chains before them.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sniff.ingest.formats.claude_code import reader as claude_code
from sniff.ingest.index import rows as index_rows
from tests.conftest import SHARED_SAMPLES as SHARED
from tests.conftest import Lines
from tests.unit.test_index import HINT, analysed, append, at, scan_in_process, settle, transcript

__all__ = ["analysed"]  # the fixture, used by name

SAMPLE = (
    SHARED / "claude-code-viewer/mock-global-claude-dir/projects/sample-project"
    "/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
)


@pytest.fixture(autouse=True)
def small_files_keep_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """These logs are a few KiB: let them keep a reader's state as a large log does."""
    monkeypatch.setattr(index_rows, "STATE_MIN_BYTES", 0)


def grown_scan(folder: Path, path: Path, lines: list[dict[str, Any]], counts: list[int]) -> Any:
    """Scan `folder`, append `lines` to `path`, scan again: the second scan, checked against
    `--no-index`; `counts` then holds the units each scan analysed whole."""
    counts.append(0)
    scan_in_process(folder)
    append(path, lines)
    settle(path)
    counts.append(0)
    grown = scan_in_process(folder)
    assert grown == scan_in_process(folder, "--no-index")
    return grown


def reply(
    name: str, parent: str, seconds: float, usage: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return Lines.assistant(f"msg_{name}", f"{name}-a", parent, at(seconds), usage, **extra)


def test_appended_turns_that_continue_the_chain_are_judged_against_its_end(
    tmp_path: Path, analysed: list[int]
) -> None:
    path = transcript(tmp_path, "s", 3)
    # an hour idle, then the prefix is written again: a break whose predecessor is old
    grown = grown_scan(
        tmp_path,
        path,
        [
            Lines.user("late-u", "s2-a2", at(4_000), "And now?"),
            reply("late", "late-u", 4_002, Lines.usage(4, read=0, write=2_400, output=30)),
            Lines.user("later-u", "late-a", at(4_010), "Thanks."),
            reply("later", "later-u", 4_012, Lines.usage(4, read=2_400, write=50, output=9)),
        ],
        analysed,
    )
    assert analysed == [1, 0]
    assert grown["totals"]["requests"] == 5
    assert "ttl_expired" in [found["cause"] for found in grown["breaks"]["top"]]


def test_an_appended_line_repeating_an_old_response_counts_it_once(
    tmp_path: Path, analysed: list[int]
) -> None:
    path = transcript(tmp_path, "s", 2)
    final = Lines.usage(4, read=2_000, write=300, output=900)  # its final usage, written late
    grown = grown_scan(tmp_path, path, [reply("s1", "s1-a2", 64, final)], analysed)
    assert analysed == [1, 0]  # the chain's last response stays open to its later lines
    assert grown["totals"]["requests"] == 2
    assert grown["totals"]["output_tokens"] == 100 + 900


def test_a_compaction_in_the_appended_lines_is_the_expected_break_it_is(
    tmp_path: Path, analysed: list[int]
) -> None:
    path = transcript(tmp_path, "s", 2)
    boundary = {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": "cb",
        "parentUuid": None,
        "sessionId": Lines.SESSION,
        "timestamp": at(300),
    }
    summary = Lines.user("sum-u", "cb", at(301), "Summary of the conversation.")
    summary["isCompactSummary"] = True
    grown = grown_scan(
        tmp_path,
        path,
        [
            boundary,
            summary,
            reply("after", "sum-u", 303, Lines.usage(4, read=0, write=900, output=20)),
        ],
        analysed,
    )
    assert analysed == [1, 0]
    assert grown["breaks"]["expected"] == 2  # the cold start and the compaction


def test_a_new_turn_dropping_old_thinking_is_judged_by_the_responses_before_it(
    tmp_path: Path, analysed: list[int]
) -> None:
    think = {"type": "thinking", "thinking": "Let me see.", "signature": "x"}
    first = Lines.usage(4, read=0, write=3_000, output=50)
    second = Lines.usage(4, read=3_000, write=500, output=50)
    path = Lines.write(
        tmp_path / "projects" / HINT / "t.jsonl",
        [
            Lines.user("t-u1", None, at(0), "Plan it."),
            reply("t1", "t-u1", 2, first, block=think),
            Lines.tool_result("t-r1", "t1-a", at(3), "toolu_t1"),
            reply("t2", "t-r1", 5, second, block=think),
        ],
    )
    settle(path)
    # the next user turn reads only the prefix before the first thinking response
    dropped = Lines.usage(4, read=3_000, write=700, output=10)
    grown = grown_scan(
        tmp_path,
        path,
        [Lines.user("t-u2", "t2-a", at(30), "Go on."), reply("t3", "t-u2", 32, dropped)],
        analysed,
    )
    assert analysed == [1, 0]
    assert (grown["breaks"]["expected"], grown["breaks"]["count"]) == (2, 0)  # cold, dropped


def test_a_first_one_hour_write_in_a_chain_has_it_analysed_again(
    tmp_path: Path, analysed: list[int]
) -> None:
    path = transcript(tmp_path, "s", 2)
    hour = Lines.usage(4, read=2_000, write=800, output=5, split=(0, 800))
    grown_scan(
        tmp_path,
        path,
        [Lines.user("h-u", "s1-a2", at(200), "More."), reply("h", "h-u", 202, hour)],
        analysed,
    )
    assert analysed == [1, 1]  # the TTL of the chain's older breaks may change


def test_lines_continuing_a_record_before_the_kept_window_read_the_file_whole(
    tmp_path: Path, analysed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(claude_code, "WINDOW_RECORDS", 2)
    monkeypatch.setattr(claude_code, "WINDOW_GROUPS", 1)
    path = transcript(tmp_path, "s", 4)
    branch = Lines.usage(4, read=2_000, write=100, output=7)  # forks from the first turn
    grown = grown_scan(
        tmp_path,
        path,
        [Lines.user("b-u", "s0-a2", at(900), "Back to step one."), reply("b", "b-u", 902, branch)],
        analysed,
    )
    assert analysed == [1, 1]
    assert grown["totals"]["requests"] == 5


@pytest.mark.skipif(not SAMPLE.is_file(), reason=f"shared sample not found at {SAMPLE}")
@pytest.mark.parametrize(("window", "again"), [(4096, 0), (8, 1)])
def test_a_real_transcript_grown_at_any_line_scans_as_without_the_index(
    tmp_path: Path, analysed: list[int], monkeypatch: pytest.MonkeyPatch, window: int, again: int
) -> None:
    """Cut anywhere, a response may be split across the old end: it stays open to the new
    lines; with a window of a few records the new lines reach further back: read whole."""
    monkeypatch.setattr(claude_code, "WINDOW_RECORDS", window)
    monkeypatch.setattr(claude_code, "WINDOW_GROUPS", window)
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    for share in (0.2, 0.45, 0.7, 0.95):
        cut = round(share * len(lines))
        folder = tmp_path / str(cut)
        path = folder / "projects" / "sample-project" / SAMPLE.name
        path.parent.mkdir(parents=True)
        path.write_bytes(b"".join(lines[:cut]))
        settle(path)
        analysed.append(0)
        scan_in_process(folder)
        with path.open("ab") as handle:
            handle.write(b"".join(lines[cut:]))
        settle(path)
        analysed.append(0)
        assert scan_in_process(folder) == scan_in_process(folder, "--no-index")
    assert analysed == [1, again] * 4


@pytest.mark.skipif(not SAMPLE.is_file(), reason=f"shared sample not found at {SAMPLE}")
def test_a_real_transcript_grown_step_by_step_scans_as_without_the_index(
    tmp_path: Path, analysed: list[int]
) -> None:
    """Each scan's part, extended, is the one the next extends."""
    lines = SAMPLE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "projects" / "sample-project" / SAMPLE.name
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    done = 0
    for step in range(1, 9):
        cut = round(step / 8 * len(lines))
        with path.open("ab") as handle:
            handle.write(b"".join(lines[done:cut]))
        done = cut
        settle(path)
        analysed.append(0)
        assert scan_in_process(tmp_path) == scan_in_process(tmp_path, "--no-index")
    assert analysed == [1] + [0] * 7


def test_tool_calls_and_results_appended_again_are_kept_once_as_first_seen(
    tmp_path: Path,
) -> None:
    from sniff.logs import load

    path = transcript(tmp_path, "s", 2)  # calls toolu_s0 and toolu_s1
    append(path, [Lines.tool_result("r1", "s1-a2", at(70), "toolu_s1")])
    settle(path)
    load([tmp_path])
    tool = {"type": "tool_use", "id": "toolu_s0", "name": "Read", "input": {}}
    usage = Lines.usage(4, read=2_300, write=10, output=3)
    # seen already, in a session that ended first: across files, its copies would be kept
    append(
        path,
        [
            Lines.tool_result("r2", "r1", at(28), "toolu_s1", sessionId="other"),
            reply("again", "r2", 30, usage, block=tool, session="other"),
        ],
    )
    settle(path)
    indexed, whole = load([tmp_path]), load([tmp_path], use_index=False)
    assert indexed.activity == whole.activity
    assert [call.name for call in whole.activity.calls] == ["Bash", "Bash"]
    assert len(whole.activity.results) == 1


def test_a_tool_loop_longer_than_the_turn_looked_back_on_still_extends(
    tmp_path: Path, analysed: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sniff.analyses.cache import chains

    monkeypatch.setattr(chains, "TURN_STEPS", 1)  # the part keeps one request of the loop
    usage = Lines.usage(4, read=2_000, write=100, output=5)
    lines: list[dict[str, Any]] = [Lines.user("l-u", None, at(0), "Loop.")]
    parent = "l-u"
    for step in range(3):
        tool = {"type": "tool_use", "id": f"toolu_l{step}", "name": "Bash", "input": {}}
        lines.append(reply(f"l{step}", parent, 10 * step + 2, usage, block=tool))
        lines.append(
            Lines.tool_result(f"l{step}-r", f"l{step}-a", at(10 * step + 5), f"toolu_l{step}")
        )
        parent = f"l{step}-r"
    path = Lines.write(tmp_path / "projects" / HINT / "loop.jsonl", lines)
    settle(path)
    grown_scan(tmp_path, path, [reply("l3", parent, 40, usage)], analysed)
    assert analysed == [1, 0]


def test_a_new_turn_streamed_across_the_old_end_is_judged_by_the_turn_before_it(
    tmp_path: Path, analysed: list[int]
) -> None:
    think = {"type": "thinking", "thinking": "Let me see.", "signature": "x"}
    tool = {"type": "tool_use", "id": "toolu_t2", "name": "Bash", "input": {}}
    path = Lines.write(
        tmp_path / "projects" / HINT / "t.jsonl",
        [
            Lines.user("t-u1", None, at(0), "Plan it."),
            reply("t1", "t-u1", 2, Lines.usage(4, read=0, write=3_000, output=50), block=tool),
            Lines.tool_result("t-r1", "t1-a", at(3), "toolu_t2"),
            reply("t2", "t-r1", 5, Lines.usage(4, read=3_000, write=500, output=50), block=think),
            Lines.tool_result("t-r2", "t2-a", at(6), "toolu_t2"),
            reply("t2b", "t-r2", 8, Lines.usage(4, read=3_500, write=300, output=5)),
            Lines.user("t-u2", "t2b-a", at(30), "Go on."),
            reply("t3", "t-u2", 32, Lines.usage(4, read=3_500, write=800, output=1)),
        ],
    )
    settle(path)
    # the new turn's response goes on after the old end (its final usage, one line later);
    # it read only up to the turn's first thinking response, two requests back
    final = Lines.usage(4, read=3_500, write=800, output=10)
    again = Lines.assistant("msg_t3", "t3-b", "t3-a", at(33), final)
    grown = grown_scan(tmp_path, path, [again], analysed)
    assert analysed == [1, 0]
    assert (grown["breaks"]["expected"], grown["breaks"]["count"]) == (2, 0)  # cold, dropped


def test_a_grown_file_whose_row_rotted_is_read_whole(tmp_path: Path) -> None:
    """A row that does not decode is no reason to fail: the file is read whole instead."""
    path = transcript(tmp_path, "s", 2)
    scan_in_process(tmp_path)
    with sqlite3.connect(Path(os.environ["SNIFF_CACHE_DIR"]) / "index.sqlite3") as db:
        db.execute("UPDATE files SET issues = x'93a1'")
    append(path, [Lines.user("late-u", "s1-a2", at(4_000), "And now?")])
    settle(path)
    assert scan_in_process(tmp_path) == scan_in_process(tmp_path, "--no-index")


def test_a_turn_continuing_an_inline_sidechains_last_line_still_extends(
    tmp_path: Path, analysed: list[int]
) -> None:
    """A Task's inline sidechain is written, then the main conversation goes on from its last
    line, as Claude Code 1.0 wrote them: the main chain's requests after the one continuing
    the sidechain stay open with it, so the next lines are still judged against the part."""
    path = transcript(tmp_path, "s", 2)
    side = {"sidechain": True}
    grown = grown_scan(
        tmp_path,
        path,
        [
            Lines.user("task-u", "s1-a2", at(130), "Look for the bug.", **side),
            reply("task", "task-u", 132, Lines.usage(4, read=0, write=1_500, output=40), **side),
            Lines.user("back-u", "task-a", at(140), "Found it: now fix it."),
            reply("back", "back-u", 142, Lines.usage(4, read=2_000, write=300, output=50)),
            Lines.user("tool-u", "back-a", at(150), "Tests pass."),
            reply("tool", "tool-u", 152, Lines.usage(4, read=2_300, write=60, output=20)),
        ],
        analysed,
    )
    assert analysed == [1, 0]  # judged against the kept part, not the whole file again
    assert grown["totals"]["requests"] == 5
    more = Lines.usage(4, read=2_360, write=80, output=30)
    append(path, [Lines.user("next-u", "tool-a", at(200), "And the docs?"),
                  reply("next", "next-u", 202, more)])  # fmt: skip
    settle(path)
    analysed.append(0)
    again = scan_in_process(tmp_path)
    assert analysed[-1] == 0
    assert again == scan_in_process(tmp_path, "--no-index")
    assert again["totals"]["requests"] == 6


def test_a_subagent_file_that_appears_joins_its_sessions_kept_part(
    tmp_path: Path, analysed: list[int]
) -> None:
    """A Task call makes a subagent's transcript beside the session: its unit is the session's,
    grown by all the new file yields, so it is judged against the kept part."""
    path = transcript(tmp_path, "s", 2)
    analysed.append(0)
    scan_in_process(tmp_path)
    agent = {"sidechain": True, "agentId": "a4c19e2"}
    sub = [
        Lines.user("sub-u", None, at(130), "Search the logs.", **agent),
        reply("sub1", "sub-u", 132, Lines.usage(4, read=0, write=1_200, output=40), **agent),
        Lines.user("sub-t", "sub1-a", at(140), "Found three.", **agent),
        reply("sub2", "sub-t", 142, Lines.usage(4, read=1_200, write=90, output=20), **agent),
    ]
    new = Lines.write(path.with_suffix("") / "subagents" / "agent-a4c19e2.jsonl", sub)
    settle(new)
    analysed.append(0)
    grown = scan_in_process(tmp_path)
    assert analysed == [1, 0]  # the session's part, extended by the new file's requests
    assert grown == scan_in_process(tmp_path, "--no-index")
    assert grown["totals"]["requests"] == 4


def test_a_new_file_repeating_kept_calls_has_its_unit_analysed_again(
    tmp_path: Path, analysed: list[int]
) -> None:
    """A resumed session's new file replays the calls of the file it resumes: which copy is
    kept depends on both files, so the unit is analysed again, exactly."""
    path = transcript(tmp_path, "s", 2)
    analysed.append(0)
    scan_in_process(tmp_path)
    replayed = path.read_text().replace(Lines.SESSION, "9c1e0d3a-0000-4000-8000-000000000001")
    resumed = path.with_name("resumed.jsonl")
    resumed.write_text(replayed)
    settle(resumed)
    analysed.append(0)
    grown = scan_in_process(tmp_path)
    assert analysed == [1, 1]
    assert grown == scan_in_process(tmp_path, "--no-index")
    assert grown["totals"]["requests"] == 2


def test_verbose_says_why_a_grown_unit_was_analysed_whole(
    tmp_path: Path, analysed: list[int]
) -> None:
    """A response appended out of time order cannot be judged against the kept chains' ends:
    the unit is analysed whole, exactly, and `--verbose` says so and why."""
    from typer.testing import CliRunner

    from sniff.cli import app

    path = transcript(tmp_path, "s", 3)
    early = [
        Lines.user("early-u", "s0-a2", at(30), "Earlier?"),
        reply("early", "early-u", 31, Lines.usage(4, read=2_000, write=100, output=9)),
    ]
    grown_scan(tmp_path, path, early, analysed)
    assert analysed[-1] == 1
    more = Lines.usage(4, read=2_000, write=80, output=7)
    append(path, [Lines.user("more-u", "s2-a2", at(40), "And?"), reply("more", "more-u", 41, more)])
    settle(path)
    result = CliRunner().invoke(app, ["scan", "--json", "--verbose", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "analysed whole" in line]
    assert lines == [
        "sniff: analysed whole: s.jsonl: what was appended cannot be judged against its kept "
        "part: msg_more started before its chain's last judged request"
    ]
