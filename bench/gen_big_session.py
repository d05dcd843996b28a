#!/usr/bin/env python3
"""Build one big Claude Code session file by repeating a sample transcript, deterministically.

Every copy keeps the sample's one `sessionId` and gets fresh record uuids (`uuid`,
`parentUuid`, `leafUuid`), message, request and tool ids, and timestamps moved one day per
copy, so no two copies share a response and a scan must read every one. The same arguments
always give the same bytes.

Usage:
    python bench/gen_big_session.py OUT_DIR SIZE_MB [--sample FILE]

It writes OUT_DIR/projects/sample-project/<sessionId>.jsonl (OUT_DIR is then what
`CLAUDE_CONFIG_DIR` names for ccusage) and prints the path, size and copy count as JSON.
`bench/bench_big_session.py` imports `Copies` to append more copies of the same session.
"""

from __future__ import annotations

import argparse
import json
import re
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = (
    REPO.parent
    / "shared/samples/claude-code-viewer/mock-global-claude-dir/projects/sample-project"
    / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
)
UUID = rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
ID = rb"(?:msg|req|toolu)_[0-9A-Za-z]+"
DATE = rb'(?<="timestamp":")\d{4}-\d\d-\d\d(?=T)'
PATTERN = re.compile(b"|".join((UUID, ID, DATE)))


class Copies:
    """The sample cut at every id and timestamp date, to fill in again for each copy."""

    def __init__(self, sample: Path = SAMPLE) -> None:
        data = sample.read_bytes()
        if not data.endswith(b"\n"):
            data += b"\n"
        first = json.loads(data.split(b"\n", 2)[1])
        self.session = first["sessionId"].encode()
        self.lines_per_copy = data.count(b"\n")
        self.size = len(data)
        self.pieces: list[bytes] = []
        """Literal text and the ids and dates between it, alternately (literal first)."""
        end = 0
        for match in PATTERN.finditer(data):
            if match.group() == self.session:
                continue
            self.pieces += [data[end : match.start()], match.group()]
            end = match.end()
        self.pieces.append(data[end:])

    def copy(self, number: int) -> bytes:
        """Copy `number` (0-based) of the sample: its ids made unique, its dates moved."""
        out = bytearray()
        tag = b"%06d" % number
        for position, piece in enumerate(self.pieces):
            if position % 2 == 0:
                out += piece
            elif piece[:1].isdigit() and piece[4:5] == b"-" and len(piece) == 10:
                shifted = date.fromisoformat(piece.decode()) + timedelta(days=number)
                out += shifted.isoformat().encode()
            elif b"_" in piece[:6]:  # msg_, req_, toolu_: one copy's ids end with its number
                out += piece + b"c" + tag
            else:  # a uuid: its first group names the copy
                out += b"%08x" % number + piece[8:]
        return bytes(out)

    def copies_for(self, size_mb: float) -> int:
        """How many copies make about `size_mb` MB."""
        return max(1, round(size_mb * 1e6 / self.size))


def session_file(out: Path, copies: Copies) -> Path:
    """Where the session file lives under `out` (a Claude config folder)."""
    return out / "projects" / "sample-project" / f"{copies.session.decode()}.jsonl"


def write(out: Path, size_mb: float, sample: Path = SAMPLE) -> dict[str, object]:
    """Write the session file of about `size_mb` MB under `out`; describe what was written."""
    copies = Copies(sample)
    path = session_file(out, copies)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = copies.copies_for(size_mb)
    with path.open("wb") as handle:
        for number in range(count):
            handle.write(copies.copy(number))
    return {
        "path": str(path),
        "bytes": path.stat().st_size,
        "copies": count,
        "lines": count * copies.lines_per_copy,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to hold projects/ (made if missing)")
    parser.add_argument("size_mb", type=float, help="about how many MB the file holds")
    parser.add_argument("--sample", type=Path, default=SAMPLE, help="transcript to repeat")
    args = parser.parse_args()
    print(json.dumps(write(args.out, args.size_mb, args.sample)))


if __name__ == "__main__":
    main()
