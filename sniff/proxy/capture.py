"""Provides `Capture`: the copy of a body kept for the record, decoded and bounded, taken from
the chunks as they pass to the client.

Why decoded here: the client gets the body as it came, still gzip'd or brotli'd (the proxy
changes nothing), while the record and the stream's timing need its text. Why bounded: one
response can be large (a long stream, an image returned), and the proxy serves many at once;
past `LIMIT` the record keeps what it has and says it was cut, while the client still gets
everything. A decompressed piece is at most `STEP` bytes, so a small compressed chunk that
inflates to gigabytes is never held whole.
"""

from __future__ import annotations

import importlib
import zlib
from collections.abc import Callable, Iterator

LIMIT = 32 * 1024 * 1024
"""The most of a body kept for the record (decoded bytes)."""
STEP = 1024 * 1024
"""The most a compressed chunk is inflated at a time."""


class Capture:
    """One body's kept copy: `kept` (decoded, at most `limit` bytes), `size` (decoded bytes
    seen, kept or not), whether it was `cut`, and `undecoded` (an encoding it could not read:
    nothing is kept then)."""

    def __init__(self, encoding: str | None, limit: int = LIMIT) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.size = 0
        self.cut = False
        self.undecoded: str | None = None
        self._inflate: Callable[[bytes], Iterator[bytes]] | None = None
        name = (encoding or "identity").strip().lower()
        if name not in ("", "identity"):
            self._inflate = _inflater(name)
            if self._inflate is None:
                self.undecoded = name

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """Take a chunk as it came; yield it decoded, in pieces (nothing once undecodable)."""
        if self.undecoded is not None:
            return
        pieces = self._inflate(chunk) if self._inflate is not None else iter((chunk,))
        try:
            for piece in pieces:
                self._keep(piece)
                yield piece
        except (zlib.error, ValueError, OSError) as error:  # a corrupt body: keep what was read
            self.undecoded = f"unreadable ({error})"[:120]

    def _keep(self, piece: bytes) -> None:
        self.size += len(piece)
        room = self.limit - len(self.kept)
        if room >= len(piece):
            self.kept += piece
        else:
            self.kept += piece[: max(room, 0)]
            self.cut = True

    def text(self) -> str:
        """What was kept, as text (bytes that are not UTF-8 replaced)."""
        return self.kept.decode("utf-8", errors="replace")


def _inflater(encoding: str) -> Callable[[bytes], Iterator[bytes]] | None:
    """A decoder of `encoding`'s chunks, in order (None: no decoder for it here)."""
    if encoding in ("gzip", "x-gzip", "deflate"):
        # 47: a zlib or a gzip header, told apart by its first bytes
        state = zlib.decompressobj(47)

        def inflate(chunk: bytes) -> Iterator[bytes]:
            data = chunk
            while data:
                yield state.decompress(data, STEP)
                data = state.unconsumed_tail

        return inflate
    return _optional_inflater(encoding)


def _optional_inflater(encoding: str) -> Callable[[bytes], Iterator[bytes]] | None:
    """Brotli and Zstandard, when their libraries happen to be installed (aiohttp uses the same
    ones): not dependencies, since the APIs' JSON answers come gzip'd to clients that ask."""
    try:
        if encoding == "br":
            brotli = importlib.import_module("brotli")
            decompressor = brotli.Decompressor()
            return lambda chunk: iter((decompressor.process(chunk),))
        if encoding == "zstd":
            zstandard = importlib.import_module("zstandard")
            stream = zstandard.ZstdDecompressor().decompressobj()
            return lambda chunk: iter((stream.decompress(chunk),))
    except ImportError:
        return None
    return None
