"""Provides `read`: log files in, one normalized `Request` per API call out.

Each file is read by the parser of its format (detected from its first lines, or forced),
independently and in worker processes when there is enough to read; the results are then
merged so that each API call counts once across all files. `recounted` reads the files of a
few requests again to count their prompts exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path

import msgspec

from sniff.ingest.files.discover import QUIET_SUFFIXES, SourceFile, project_hint
from sniff.ingest.files.log_formats import parse_any, parse_source
from sniff.ingest.merge import Pricer, merge, merge_activity
from sniff.ingest.parallel import map_files
from sniff.ingest.record import FileResult, Prompts, Response
from sniff.model import NO_ACTIVITY, Activity, Dataset, LimitReading, LineIssue, Request


def read(
    files: list[SourceFile],
    cost_of: Pricer,
    *,
    roots: tuple[str, ...] = (),
    sample: bool = False,
    log_format: str | None = None,
    with_prompts: Prompts = Prompts.NONE,
    while_waiting: Callable[[], object] | None = None,
    use_index: bool = False,
    window: tuple[float | None, float | None] = (None, None),
    forget: bool = True,
) -> Dataset:
    """Parse `files` into a dataset of requests priced by `cost_of`.

    Args:
        log_format: read every file as this format instead of detecting it.
        with_prompts: also read request bodies into blocks (slower; for prompt analyses).
        while_waiting: runs while worker processes parse (see `map_files`).
        use_index: read through the on-disk index (when it can be opened): only files that
            changed since it saw them are parsed.
        window: (since, until) epoch seconds the caller will keep: with an index, unchanged
            files far outside it are not even decoded.
        forget: the index forgets the files it holds under `roots` that are not in `files`
            (False when `files` are only some of those under `roots`).
    """
    index = None
    if use_index:
        from sniff.ingest.index.indexed import open_index

        index = open_index()
    if index is None:
        parse = partial(parse_source, forced=log_format, with_prompts=with_prompts)
        results = map_files(parse, files, while_waiting=while_waiting)
    else:
        from sniff.ingest.index.indexed import IndexedFiles

        try:
            indexed = IndexedFiles(
                files, index, roots=list(roots) if forget else [], log_format=log_format,
                with_prompts=with_prompts, while_waiting=while_waiting,
            )  # fmt: skip
            results = [indexed.result(at, window) for at in range(len(files))]
        finally:
            index.close()
    return assemble(files, results, cost_of, roots=roots, sample=sample)


def assemble(
    files: list[SourceFile],
    results: list[FileResult],
    cost_of: Pricer,
    *,
    roots: tuple[str, ...] = (),
    sample: bool = False,
) -> Dataset:
    """One dataset from files already parsed: each API call once across files, priced.

    Why apart from `read`: files parsed elsewhere (on a Dask cluster) are assembled here too.
    """
    requests = merge((r for result in results for r in result.responses), cost_of)
    return account(
        files,
        ((result.log_format, result.synthetic, result.issues) for result in results),
        roots=roots,
        sample=sample,
        requests=tuple(requests),
        activity=merge_activity((result.activity for result in results), requests),
        limits=gathered(result.limits for result in results),
    )


def gathered(limits: Iterable[Iterable[LimitReading]]) -> tuple[LimitReading, ...]:
    """Files' limit readings as one series: each reading once (a rollout and the copy of it a
    backup holds say the same), in time order."""
    unique = {reading for readings in limits for reading in readings}
    return tuple(sorted(unique, key=lambda r: (r.at, r.harness, r.window, r.used_percent)))


FileAccount = tuple[str | None, int, Sequence[LineIssue]]
"""What a file adds to a dataset's account: its format (None: unknown), harness-generated
messages, and its skipped or repaired lines."""


def account(
    files: Sequence[SourceFile],
    accounts: Iterable[FileAccount],
    *,
    roots: tuple[str, ...] = (),
    sample: bool = False,
    requests: tuple[Request, ...] = (),
    activity: Activity = NO_ACTIVITY,
    limits: tuple[LimitReading, ...] = (),
) -> Dataset:
    """A dataset of `requests` with the account of `files` (one `FileAccount` each, in order):
    files read, formats, unknown files, issues. Analyses run unit by unit (the index, a
    cluster) leave `requests` empty: their numbers come from joined parts."""
    issues: list[LineIssue] = []
    synthetic = 0
    formats: dict[str, int] = {}
    unknown: list[str] = []
    read: list[str] = []
    for file, (log_format, synthetic_here, issues_here) in zip(files, accounts, strict=True):
        issues.extend(issues_here)
        synthetic += synthetic_here
        unreadable = any(issue.line == 0 and not issue.kept for issue in issues_here)
        if log_format is not None:
            formats[log_format] = formats.get(log_format, 0) + 1
        elif file.path.endswith(QUIET_SUFFIXES) and not unreadable:
            continue  # a JSON file or database of no agent's: no log, not one of the files read
        elif not unreadable:
            unknown.append(file.path)
        read.append(file.path)
    return Dataset(
        requests=requests,
        files=tuple(read),
        issues=tuple(issues),
        synthetic=synthetic,
        roots=roots,
        sample=sample,
        formats=formats,
        unknown_files=tuple(unknown),
        activity=activity,
        limits=limits,
    )


def recounted(requests: list[Request]) -> list[Request]:
    """The same requests with their prompts' blocks counted by the tokenizer.

    Why: reading a whole archive counts prompt blocks by an estimate from their size (counting
    every block exactly would take minutes); a view of one request reads its file again, exactly.
    Requests whose file no longer holds them keep their blocks as they were.
    """
    by_file: dict[str, dict[str, Response]] = {}
    counted: list[Request] = []
    for request in requests:
        if request.file not in by_file:
            hint = project_hint(Path(request.file))
            result = parse_any(request.file, hint, with_prompts=Prompts.COUNTED)
            by_file[request.file] = {response.key: response for response in result.responses}
        response = by_file[request.file].get(request.key)
        if response is not None and response.blocks:
            counted.append(msgspec.structs.replace(request, blocks=response.blocks))
        else:
            counted.append(request)
    return counted
