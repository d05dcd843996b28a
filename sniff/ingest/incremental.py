"""Provides `ArchiveReader`: an archive read newest files first, in batches, then kept current.

Why: a browser over a large archive should show something at once and fill in, and pressing
reload should re-read only the files that changed. The reader keeps what each file yielded,
keyed by the file's identity (`discover.SourceFile.identity`), and assembles a whole dataset
after each batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sniff.ingest.discover import SourceFile, expand
from sniff.ingest.merge import Pricer
from sniff.ingest.reading import assemble, parse_files
from sniff.ingest.record import FileResult, Prompts
from sniff.model import Dataset

FIRST_BATCH_BYTES = 8 * 1024 * 1024
"""The newest files up to this size are read first, so there is something to show at once."""
BATCH_BYTES = 256 * 1024 * 1024
"""Later batches: each is analysed whole once read, so few and large (about 2 s of reading)."""

Stamp = tuple[int, int, int, int, int]
"""A file's identity as listed (`discover.SourceFile.identity`): when any of it moves, the file
is read again (an export folder's is that of its tables, see `discover.expand`)."""


@dataclass(frozen=True, slots=True)
class Progress:
    """A dataset of the files read so far, and how far the reading is."""

    dataset: Dataset
    files_read: int
    files_total: int
    bytes_read: int
    bytes_total: int
    changed: int
    """Files read again (or for the first time) in this refresh, so far."""

    @property
    def done(self) -> bool:
        """Every file of the refresh has been read."""
        return self.files_read == self.files_total

    @property
    def fraction(self) -> float:
        """Share of the bytes read, 0 to 1."""
        return self.bytes_read / self.bytes_total if self.bytes_total else 1.0


class ArchiveReader:
    """Reads the logs under some roots, and re-reads only what changed since."""

    def __init__(
        self,
        roots: list[Path],
        cost_of: Pricer,
        *,
        sample: bool = False,
        log_format: str | None = None,
        with_prompts: Prompts = False,
    ) -> None:
        self.roots = roots
        self.cost_of = cost_of
        self.sample = sample
        self.log_format = log_format
        self.with_prompts = with_prompts
        self._results: dict[str, tuple[Stamp, SourceFile, FileResult]] = {}

    def refresh(self, while_waiting: Callable[[], object] | None = None) -> Iterator[Progress]:
        """Read new and changed files (all of them the first time), newest first, in batches.

        Yields a whole dataset after each batch: unchanged files as they were read before,
        changed ones as they are now, deleted ones gone. Yields once even when nothing changed.
        `while_waiting` runs once, while the first batch is parsed (see `map_files`).

        Raises:
            UserError: a root does not exist.
        """
        files = expand(self.roots)
        stamps = {file.path: file.identity for file in files}
        current = {file.path for file in files}
        for gone in set(self._results) - current:
            del self._results[gone]
        stale = [
            file
            for file in files
            if file.path not in self._results or self._results[file.path][0] != stamps[file.path]
        ]
        stale.sort(key=lambda file: -stamps[file.path][1])
        total_bytes = sum(file.size for file in stale)
        done_files, done_bytes = 0, 0
        batches = list(_batches(stale)) or [[]]
        for batch in batches:
            results = parse_files(
                batch,
                log_format=self.log_format,
                with_prompts=self.with_prompts,
                while_waiting=while_waiting if batch is batches[0] else None,
            )
            for file, result in zip(batch, results, strict=True):
                self._results[file.path] = (stamps[file.path], file, result)
            done_files += len(batch)
            done_bytes += sum(file.size for file in batch)
            yield Progress(
                self._dataset(files), done_files, len(stale), done_bytes, total_bytes, done_files
            )

    def _dataset(self, files: list[SourceFile]) -> Dataset:
        """The files read so far, in discovery order (so results do not depend on batching)."""
        known = [file for file in files if file.path in self._results]
        return assemble(
            [self._results[file.path][1] for file in known],
            [self._results[file.path][2] for file in known],
            self.cost_of,
            roots=tuple(str(root) for root in self.roots),
            sample=self.sample,
        )


def _batches(files: list[SourceFile]) -> Iterator[list[SourceFile]]:
    """A small first batch, then batches of about BATCH_BYTES."""
    batch: list[SourceFile] = []
    size, limit = 0, FIRST_BATCH_BYTES
    for file in files:
        batch.append(file)
        size += file.size
        if size >= limit:
            yield batch
            batch, size, limit = [], 0, BATCH_BYTES
    if batch:
        yield batch
