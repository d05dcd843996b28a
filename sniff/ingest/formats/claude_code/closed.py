"""Provides `Closed`: the names of a transcript's records before a kept reader's window, as
64-bit hashes, asked only whether a name is among them.

Why hashes: a kept reader must tell a line continuing a record before its window (the file is
then read whole), so it keeps every older uuid and response id. On a 300 MB transcript those
were 240,000 strings, 9 MB to decode and encode again on every status line; as sorted 8-byte
hashes they are 2 MB, read back without decoding. Two names sharing a hash (rare: two
checksums must both agree) only make a grown file read whole: nothing is counted wrong.

Why a reader read whole keeps its names as strings: hashing and sorting them all takes longer
than encoding them, and that read is the cold scan; the first reader resumed from them hashes
them once, for every later one.
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable

import msgspec

STRINGS, HASHES = b"S", b"H"
"""The first byte of kept names: msgpack of the names, or their sorted 8-byte hashes."""


class Closed:
    """Names before a kept reader's window: as strings (kept by a reader read whole) or as
    sorted hashes (kept by a resumed one)."""

    def __init__(self, kept: bytes = b"") -> None:
        self.names: set[str] | None = None
        self.kept = array("Q")
        if kept[:1] == STRINGS:
            self.names = msgspec.msgpack.decode(kept[1:], type=set[str])
        elif kept[:1] == HASHES:
            self.kept.frombytes(kept[1:])
        elif kept:
            raise ValueError("not kept names")

    def __contains__(self, name: object) -> bool:
        if self.names is not None:
            return name in self.names
        return bool(self.kept) and isinstance(name, str) and _holds(self.kept, _hash(name))

    def isdisjoint(self, names: Iterable[str]) -> bool:
        return not any(name in self for name in names)

    def kept_with(self, names: set[str], dropped: set[str]) -> bytes:
        """These names and `names`, without `dropped`, as `Closed(...)` reads them back."""
        drop = {_hash(name) for name in dropped}
        kept = sorted(map(_hash, self.names)) if self.names is not None else self.kept.tolist()
        if any(_holds(kept, value) for value in drop):  # rare: a name back in the window
            kept = [value for value in kept if value not in drop]
        fresh = {_hash(name) for name in names} - drop
        added = sorted(value for value in fresh if not _holds(kept, value))
        return HASHES + array("Q", sorted(kept + added) if added else kept).tobytes()


def _hash(name: str) -> int:
    """64 bits of `name`: two different checksums of it (C, fast; not for security)."""
    data = name.encode()
    return zlib.crc32(data) | zlib.adler32(data) << 32


def _holds(ordered: array[int] | list[int], value: int) -> bool:
    """Whether sorted `ordered` holds `value` (by bisection: no set is built of it)."""
    at = bisect_left(ordered, value)
    return at < len(ordered) and ordered[at] == value


def kept_names(closed: set[str] | Closed, names: set[str], dropped: set[str]) -> bytes:
    """`closed` and `names`, without `dropped`, as `Closed(...)` reads them back: the names
    of a reader read whole as strings (at once), a resumed reader's as hashes."""
    if isinstance(closed, Closed):
        return closed.kept_with(names, dropped)
    return STRINGS + msgspec.msgpack.encode((names | closed) - dropped)
