"""A log whose reader can resume is read a block of whole lines at a time, and yields exactly
what it yields read whole: line numbers, a cut last line, a byte-order mark, bad lines."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from sniff.ingest.activity import ActivityLog
from sniff.ingest.files import streamed
from sniff.ingest.files.log_formats import read_log
from sniff.ingest.formats.claude_code import reader as claude_code
from sniff.ingest.record import FileResult

SAMPLE = Path(__file__).parents[1].parent / "sample_logs" / "claude-code"


def _transcript(cc, path: Path) -> Path:
    lines = [
        cc.user("u1", None, "2026-02-19T08:45:00.000Z", "hello"),
        cc.assistant("msg_A", "a1", "u1", "2026-02-19T08:45:13.719Z", cc.usage(3, 1000, 50, 40)),
        '{"type":"assistant","message":{"id":"msg_X",',  # a bad line in the middle
        "",
        cc.assistant("msg_A", "a2", "a1", "2026-02-19T08:45:14.000Z", cc.usage(3, 1000, 50, 90)),
        cc.assistant("msg_B", "b1", "a2", "2026-02-19T08:46:00.000Z", cc.usage(5, 1050, 70, 7)),
    ]
    data = b"\xef\xbb\xbf" + b"\n".join(
        (line if isinstance(line, str) else json.dumps(line)).encode() for line in lines
    )
    path.write_bytes(data + b'\n{"type":"assistant","mess')  # the last line being written
    return path


def _fed_at_once(path: str, data: bytes) -> FileResult:
    reader = claude_code.Reader(path, "hint")
    reader.feed(data)
    return reader.result()


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 20])
def test_a_log_read_in_blocks_yields_what_it_yields_read_whole(tmp_path, cc, monkeypatch, block):
    path = _transcript(cc, tmp_path / "s.jsonl")
    whole = _fed_at_once(str(path), path.read_bytes())
    monkeypatch.setattr(streamed, "BLOCK_BYTES", block)
    read = read_log(str(path), "hint")
    assert read.result == whole
    assert [issue.line for issue in whole.issues] == [3, 7]
    assert read.offset == path.read_bytes().rindex(b"\n") + 1 and read.lines == 6


def test_no_block_fed_to_a_reader_holds_more_than_a_block_of_whole_lines(monkeypatch):
    path = max(SAMPLE.rglob("*.jsonl"), key=lambda found: found.stat().st_size)
    data = path.read_bytes()
    whole = _fed_at_once(str(path), data)
    longest = max(map(len, data.split(b"\n"))) + 1
    monkeypatch.setattr(streamed, "BLOCK_BYTES", 4096)
    fed: list[int] = []
    real = claude_code.Reader.feed

    def feed(self, data: bytes, first_line: int = 1, newlines: int | None = None) -> None:
        fed.append(len(data))
        real(self, data, first_line, newlines)

    monkeypatch.setattr(claude_code.Reader, "feed", feed)
    read = read_log(str(path), "hint")
    assert read.result == whole
    assert len(fed) > 1 and max(fed) <= 4096 + longest
    assert sum(fed) == len(data)


def test_a_reader_kept_between_runs_yields_what_a_whole_reading_adds(tmp_path, cc):
    """Its state is kept as msgpack of its attributes: one not in the kept schema would be
    lost without a word. Fed the appended lines, it yields what they add to a whole reading."""
    path = _transcript(cc, tmp_path / "s.jsonl")
    data = path.read_bytes()
    cut = data.rindex(b"\n") + 1
    reader = claude_code.Reader(str(path), "hint")
    reader.feed(data[:cut], 1, data.count(b"\n", 0, cut))
    assert reader.groups and reader.times and reader.activity.calls is not None
    restored = pickle.loads(pickle.dumps(reader, protocol=pickle.HIGHEST_PROTOCOL))
    assert vars(restored).keys() == vars(reader).keys()
    more = cc.assistant("msg_C", "c1", "b1", "2026-02-19T08:47:00.000Z", cc.usage(5, 1100, 0, 9))
    for either in (reader, restored):
        either.feed(json.dumps(more).encode() + b"\n", 7, 1)
    whole, added = reader.result(), restored.result()
    assert added.responses == [r for r in whole.responses if r.key == "msg_C"]
    assert added.issues == [] and added.activity == ActivityLog().freeze("hint")
