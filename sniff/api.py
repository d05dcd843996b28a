"""Provides the facade both front ends use: find and read the logs, price every request.

Why: the CLI and the TUI must show the same numbers, so they share this one path from paths on
the command line to a priced `Dataset`.
"""

from __future__ import annotations

from pathlib import Path

from sniff.ingest import read
from sniff.ingest.discover import bundled_samples, default_roots, expand
from sniff.ingest.record import Prompts
from sniff.model import Dataset
from sniff.pricing import PriceBook


def load(
    paths: list[Path] | None = None,
    prices: PriceBook | None = None,
    *,
    log_format: str | None = None,
    with_prompts: Prompts = False,
) -> Dataset:
    """Read and price the logs under `paths`, or under the usual roots when none are given.

    With no paths and no logs in the usual roots, the bundled sample logs are read and the
    dataset says so (`sample=True`).

    Args:
        log_format: read every file as this format (default: detect each file's).
        with_prompts: also read prompts into blocks where logs hold them (slower).

    Raises:
        UserError: a given path does not exist.
    """
    sample = False
    if paths:
        roots = list(paths)
    else:
        roots = default_roots()
        if not roots:
            roots, sample = [bundled_samples()], True
    book = prices or PriceBook()
    dataset = read(
        expand(roots),
        book.cost,
        roots=tuple(str(root) for root in roots),
        sample=sample,
        log_format=log_format,
        with_prompts=with_prompts,
        while_waiting=book.prepare,
    )
    book.save()
    return dataset
