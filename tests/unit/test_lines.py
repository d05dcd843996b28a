"""Bad input: every unreadable line is accounted for, and never costs the good lines around it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sniff.ingest.files.discover import SourceFile, expand
from sniff.ingest.files.lines import decode_lines
from sniff.ingest.formats.claude_code.wire import DECODER, WireLine
from sniff.ingest.reading import read
from sniff.model import Dataset, LineIssue, Usage


def scan(*roots: Path) -> Dataset:
    return read(expand(list(roots)), lambda _model, _when, _usage, _provider: None)


def objects(data: bytes, path: str = "/logs/s.jsonl") -> tuple[list[int], list[LineIssue]]:
    """Line numbers of the objects read, and the issues."""
    issues: list[LineIssue] = []
    numbers = [number for number, _ in decode_lines(path, data, WireLine, DECODER, issues)]
    return numbers, issues


def response(cc, key: str, uuid: str, output: int) -> dict:
    return cc.assistant(key, uuid, None, "2026-02-19T08:45:13.719Z", cc.usage(3, 1000, 50, output))


def test_truncated_last_line_is_skipped_and_said_to_be_truncated(tmp_path, cc):
    path = tmp_path / "s.jsonl"
    good = json.dumps(response(cc, "msg_A", "a1", 40)).encode()
    cut = json.dumps(response(cc, "msg_B", "b1", 7)).encode()[:150]
    path.write_bytes(good + b"\n" + cut)  # no newline: the file is still being written
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_A"]
    [issue] = dataset.issues
    assert (issue.file, issue.line, issue.kept) == (str(path), 2, False)
    assert "truncated" in issue.reason
    assert dataset.skipped == (issue,)


def test_invalid_json_in_the_middle_is_skipped_with_its_line_and_the_rest_counts(tmp_path, cc):
    path = cc.write(
        tmp_path / "s.jsonl",
        [
            response(cc, "msg_A", "a1", 40),
            '{"type":"assistant","message":{"id":"msg_X",',
            response(cc, "msg_B", "b1", 60),
        ],
    )
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_A", "msg_B"]
    assert sum(r.usage.output_tokens for r in dataset.requests) == 100
    [issue] = dataset.issues
    assert (issue.file, issue.line, issue.kept) == (str(path), 2, False)
    assert issue.reason.startswith("invalid JSON")
    assert "truncated" not in issue.reason


@pytest.mark.parametrize("field", ["text", "cwd"])
def test_a_stray_invalid_byte_in_a_good_line_keeps_the_line_and_its_tokens(tmp_path, cc, field):
    """A bad byte in text sniff skips, or in a field it reads: never a lost response."""
    line = response(cc, "msg_A", "a1", 321)
    if field == "text":
        line["message"]["content"][0]["text"] = "caf\u00e9 PLACEHOLDER"
    else:
        line["cwd"] = "/home/dana/src/PLACEHOLDER"
    raw = json.dumps(line, ensure_ascii=False).encode().replace(b"PLACEHOLDER", b"\xff\xfe")
    path = tmp_path / "s.jsonl"
    path.write_bytes(json.dumps(response(cc, "msg_0", "z1", 1)).encode() + b"\n" + raw + b"\n")
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_0", "msg_A"]
    assert dataset.requests[1].usage == Usage(3, 1000, 50, 0, 321)
    assert dataset.skipped == ()
    assert all(issue.kept and issue.line == 2 for issue in dataset.issues)
    if field == "cwd":  # a field sniff reads: the repair is reported
        assert [issue.kept for issue in dataset.issues] == [True]


def test_fields_of_unexpected_types_do_not_cost_the_response(tmp_path, cc):
    """A line whose envelope fields have odd types still counts, with what can be read."""
    odd = response(cc, "msg_B", "b1", 64)
    odd.update(version=2.1, isSidechain="no", gitBranch=None)
    path = cc.write(tmp_path / "s.jsonl", [response(cc, "msg_A", "a1", 40), odd])
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_A", "msg_B"]
    assert dataset.requests[1].usage == Usage(3, 1000, 50, 0, 64)
    assert dataset.issues == ()


def test_a_token_count_that_is_no_count_skips_its_line(tmp_path, cc):
    """Usage is what a line is read for: a count of the wrong type is no 0, it is a poison."""
    odd = response(cc, "msg_B", "b1", 64)
    odd["message"]["usage"]["cache_read_input_tokens"] = "1000"
    path = cc.write(tmp_path / "s.jsonl", [response(cc, "msg_A", "a1", 40), odd])
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_A"]
    assert [(i.line, i.reason, i.kept) for i in dataset.issues] == [(2, "implausible usage", False)]


def test_binary_garbage_line_is_skipped(tmp_path, cc):
    path = tmp_path / "s.jsonl"
    good = json.dumps(response(cc, "msg_A", "a1", 40)).encode()
    path.write_bytes(b"\x00\xff\xfe\x80garbage\x9c\n" + good + b"\n")
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_A"]
    [issue] = dataset.skipped
    assert (issue.line, issue.kept) == (1, False)
    assert "UTF-8" in issue.reason


@pytest.mark.parametrize(
    ("raw", "kind"),
    [(b"[1, 2, 3]", "array"), (b"42", "number"), (b'"hello"', "string"), (b"null", "null")],
)
def test_json_values_that_are_not_objects_are_skipped_with_their_type(raw, kind):
    numbers, issues = objects(b'{"a": 1}\n' + raw + b'\n{"b": 2}\n')
    assert numbers == [1, 3]
    [issue] = issues
    assert (issue.file, issue.line, issue.kept) == ("/logs/s.jsonl", 2, False)
    assert issue.reason == f"a JSON {kind}, not an object"


def test_byte_order_mark_at_file_start_is_ignored(tmp_path, cc):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(response(cc, "msg_A", "a1", 40)).encode() + b"\n")
    dataset = scan(path)
    assert [(r.key, r.line) for r in dataset.requests] == [("msg_A", 1)]
    assert dataset.issues == ()


def test_crlf_line_endings(tmp_path, cc):
    path = tmp_path / "s.jsonl"
    lines = [json.dumps(response(cc, key, key, 10)).encode() for key in ("msg_A", "msg_B")]
    path.write_bytes(b"\r\n".join(lines) + b"\r\n")
    dataset = scan(path)
    assert [r.key for r in dataset.requests] == ["msg_A", "msg_B"]
    assert dataset.issues == ()


def test_empty_file_reads_as_nothing(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    dataset = scan(path)
    assert dataset.requests == ()
    assert dataset.issues == ()
    assert dataset.files == (str(path),)


def test_blank_lines_are_ignored_and_line_numbers_stay_true():
    numbers, issues = objects(b'\n{"a": 1}\n\n   \n\t\n{"b": 2}\n\n')
    assert numbers == [2, 6]
    assert issues == []


def _unreadable_log(tmp_path: Path) -> Path:
    """A .jsonl inside a log folder that cannot be opened."""
    folder = tmp_path / "projects" / "-home-dana-src-x"
    folder.mkdir(parents=True)
    path = folder / "s.jsonl"
    if os.geteuid() == 0:  # root reads anything: a broken symlink cannot be opened by anyone
        path.symlink_to(folder / "deleted-meanwhile.jsonl")
    else:
        path.write_text("{}\n")
        path.chmod(0)
    return path


def test_unreadable_file_is_reported_not_raised(tmp_path, cc):
    bad = _unreadable_log(tmp_path)
    good = cc.write(bad.parent / "t.jsonl", [response(cc, "msg_A", "a1", 40)])
    try:
        dataset = scan(tmp_path)
    finally:
        if not bad.is_symlink():
            bad.chmod(0o600)
    assert [r.file for r in dataset.requests] == [str(good)]
    [issue] = dataset.unreadable
    assert (issue.file, issue.line) == (str(bad), 0)
    assert issue.reason.startswith("cannot read file")
    assert dataset.skipped == ()


def test_a_directory_given_as_a_file_is_reported_not_raised(tmp_path):
    folder = tmp_path / "s.jsonl"
    folder.mkdir()
    dataset = read([SourceFile(str(folder), "x", 0)], lambda _m, _w, _u, _p: None)
    assert dataset.requests == ()
    [issue] = dataset.unreadable
    assert (issue.file, issue.line) == (str(folder), 0)
