"""Provides the logs read on this machine: `load` (discovery, the on-disk index, the parsers,
the prices) and `require_logs` (the paths named must hold logs).

Why apart from `workspace`: this is the Workspace's local backend (`dask_backend` is its Dask
one), and tests and benchmarks read logs through it without options to check.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from pathlib import Path

from sniff.errors import UserError
from sniff.ingest.files.discover import SourceFile, expand, root_name, roots_for
from sniff.ingest.reading import read
from sniff.ingest.record import Prompts
from sniff.model import Dataset
from sniff.pricing import PriceBook


def load(
    paths: list[Path] | None = None,
    prices: PriceBook | None = None,
    *,
    log_format: str | None = None,
    with_prompts: Prompts = Prompts.NONE,
    while_waiting: Callable[[], object] | None = None,
    use_index: bool = True,
    window: tuple[float | None, float | None] = (None, None),
    listed: list[SourceFile] | None = None,
    only: Collection[str] | None = None,
) -> Dataset:
    """Read and price the logs under `paths` here, or under the usual roots when none are given.

    With no paths and no logs in the usual roots, the bundled sample logs are read and the
    dataset says so (`sample=True`).

    Args:
        log_format: read every file as this format (default: detect each file's).
        with_prompts: also read prompts into blocks where logs hold them (slower).
        while_waiting: slow set-up of the caller's own, run while worker processes parse
            (after the price data is loaded).
        use_index: keep what each file yielded in the on-disk index, and parse only files
            that changed since (False: parse everything, touch no index).
        window: (since, until) epoch seconds the caller keeps (see `ingest.reading.read`).
        listed: the files under the roots, when the caller listed them already.
        only: read only the files of these paths (default: all of them); the index then
            forgets none of the others.

    Raises:
        UserError: a given path does not exist.
    """
    roots, sample = roots_for(paths)
    book = prices or PriceBook()
    files = expand(roots) if listed is None else listed
    dataset = read(
        files if only is None else [file for file in files if file.path in only],
        book.cost,
        roots=tuple(root_name(root) for root in roots),
        sample=sample,
        log_format=log_format,
        with_prompts=with_prompts,
        while_waiting=book.prepare if while_waiting is None else _both(book.prepare, while_waiting),
        use_index=use_index,
        window=window,
        forget=only is None,
    )
    book.save()
    return dataset


def _both(first: Callable[[], object], then: Callable[[], object]) -> Callable[[], object]:
    return lambda: (first(), then())


def require_logs(dataset: Dataset, paths: list[Path] | None) -> None:
    """Refuse to report on nothing: the paths a user named must hold logs, and a file named
    must be one. The usual folders holding none only earn a line on the error stream (a
    machine may simply have none yet).

    Raises:
        UserError: a named file is not a log, or the named paths hold none.
    """
    from sniff.numbers import plural

    unknown = set(dataset.unknown_files)
    for path in paths or ():
        if str(path) in unknown:
            raise UserError(f"not a log sniff reads: {path} (--log-format NAME reads it as one)")
    if dataset.formats:
        return
    where = ", ".join(dataset.roots) or "the usual log folders"
    found = (
        f"no log sniff reads among the {plural(len(dataset.files), 'file')} under {where}"
        if dataset.files
        else f"no log files (*.jsonl) found under {where}"
    )
    if paths and dataset.unreadable:  # why there is nothing, rather than that there is not
        first, *others = dataset.unreadable
        found = f"{first.file}: {first.reason}" + (f" (and {len(others)} more)" if others else "")
    if paths:
        raise UserError(found)
    sys.stderr.write(f"sniff: {found}\n")
