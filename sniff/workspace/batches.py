"""Provides `Progress` and `batch_ends`: how `Workspace.batches` reads an archive in parts.

Why in parts: a browser over a large archive should show something at once and fill in. The
newest files come first, a small batch and then large ones (each part is analysed whole once
read, so few of them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sniff.ingest.files.discover import SourceFile
    from sniff.model import Dataset

FIRST_BATCH_BYTES = 8 * 1024 * 1024
"""`batches` reads the newest files up to this size first, so there is something to show."""
BATCH_BYTES = 256 * 1024 * 1024
"""`batches`' later batches: each is analysed whole once read, so few and large."""


@dataclass(frozen=True, slots=True)
class Progress:
    """A dataset of the files read so far, and how far the reading is (see `batches`)."""

    dataset: Dataset
    files_read: int
    files_total: int
    bytes_read: int
    bytes_total: int
    changed: int
    """Files parsed (new, or changed since the index saw them) so far."""

    @property
    def done(self) -> bool:
        """Every file has been read."""
        return self.files_read == self.files_total

    @property
    def fraction(self) -> float:
        """Share of the bytes read, 0 to 1."""
        return self.bytes_read / self.bytes_total if self.bytes_total else 1.0


def batch_ends(newest: list[SourceFile]) -> list[int]:
    """Where each batch of `newest` (files, newest first) ends: after `FIRST_BATCH_BYTES`,
    then every `BATCH_BYTES`, and at the last file."""
    ends, size, limit = [], 0, FIRST_BATCH_BYTES
    for end, file in enumerate(newest, 1):
        size += file.size
        if size >= limit:
            ends.append(end)
            size, limit = 0, BATCH_BYTES
    return [end for end in ends if end < len(newest)] + [len(newest)]
