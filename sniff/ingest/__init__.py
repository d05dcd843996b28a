"""Provides `read`: log files in, one normalized `Request` per API call out.

Files are parsed independently (in worker processes when there is enough to read), then merged
so that each API response counts once across all files.
"""

from __future__ import annotations

from collections.abc import Callable

from sniff.ingest.claude_code import FileResult, parse_file
from sniff.ingest.discover import SourceFile
from sniff.ingest.merge import Pricer, merge
from sniff.ingest.parallel import map_files
from sniff.model import Dataset, LineIssue


def read(
    files: list[SourceFile],
    cost_of: Pricer,
    *,
    roots: tuple[str, ...] = (),
    sample: bool = False,
    while_waiting: Callable[[], object] | None = None,
) -> Dataset:
    """Parse `files` into a dataset of requests priced by `cost_of`.

    `while_waiting` runs while worker processes parse (see `map_files`).
    """
    results: list[FileResult] = map_files(parse_file, files, while_waiting=while_waiting)
    issues: list[LineIssue] = []
    synthetic = 0
    for result in results:
        issues.extend(result.issues)
        synthetic += result.synthetic
    requests = merge((r for result in results for r in result.responses), cost_of)
    return Dataset(
        requests=tuple(requests),
        files=tuple(file.path for file in files),
        issues=tuple(issues),
        synthetic=synthetic,
        roots=roots,
        sample=sample,
    )
