"""Provides the facade both front ends use: find and read the logs, price every request.

Why: the CLI and the TUI must show the same numbers, so they share this one path from paths on
the command line to a priced `Dataset`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec

from sniff.ingest.discover import expand, project_hint, roots_for
from sniff.ingest.indexed import open_index
from sniff.ingest.log_formats import parse_any
from sniff.ingest.reading import read
from sniff.ingest.record import Prompts, Response
from sniff.model import Dataset, Request
from sniff.pricing import PriceBook


def load(
    paths: list[Path] | None = None,
    prices: PriceBook | None = None,
    *,
    log_format: str | None = None,
    with_prompts: Prompts = False,
    while_waiting: Callable[[], object] | None = None,
    use_index: bool = True,
    window: tuple[float | None, float | None] = (None, None),
) -> Dataset:
    """Read and price the logs under `paths`, or under the usual roots when none are given.

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

    Raises:
        UserError: a given path does not exist.
    """
    roots, sample = roots_for(paths)
    book = prices or PriceBook()
    index = open_index() if use_index else None
    try:
        dataset = read(
            expand(roots),
            book.cost,
            roots=tuple(str(root) for root in roots),
            sample=sample,
            log_format=log_format,
            with_prompts=with_prompts,
            while_waiting=book.prepare
            if while_waiting is None
            else _both(book.prepare, while_waiting),
            index=index,
            window=window,
        )
    finally:
        if index is not None:
            index.close()
    book.save()
    return dataset


def _both(first: Callable[[], object], then: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        first()
        then()

    return run


def counted_prompts(requests: list[Request]) -> list[Request]:
    """The same requests with their prompts' blocks counted by the tokenizer.

    Why: reading a whole archive counts prompt blocks by an estimate from their size (counting
    every block exactly would take minutes); a view of one request reads its file again, exactly.
    Requests whose file no longer holds them keep their blocks as they were.
    """
    by_file: dict[str, dict[str, Response]] = {}
    counted: list[Request] = []
    for request in requests:
        if request.file not in by_file:
            result = parse_any(request.file, project_hint(Path(request.file)), with_prompts=True)
            by_file[request.file] = {response.key: response for response in result.responses}
        response = by_file[request.file].get(request.key)
        if response is not None and response.blocks:
            counted.append(msgspec.structs.replace(request, blocks=response.blocks))
        else:
            counted.append(request)
    return counted
