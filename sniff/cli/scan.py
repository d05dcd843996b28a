"""Provides `sniff scan`: the cost summary of every project, model, day and session."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted

if TYPE_CHECKING:
    from sniff.analyses.filters import Filters
    from sniff.ingest.discover import SourceFile
    from sniff.pricing import PriceBook
    from sniff.scan_run import ScanNumbers


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("scan")(scan)


@one_line_errors
def scan(
    paths: o.Paths = None,
    since: o.Since = None,
    until: o.Until = None,
    project: o.ProjectFilter = None,
    model: o.ModelFilter = None,
    agent: o.AgentFilter = None,
    tz: o.Zone = None,
    json: o.Json = False,
    pricing: o.Pricing = None,
    log_format: o.LogFormat = None,
    no_index: o.NoIndex = False,
    no_progress: o.NoProgress = False,
    dask: o.Dask = None,
    verbose: o.Verbose = False,
) -> None:
    """Tokens, cost, cache hit rate and savings, in total and by project, model, day, session."""
    options = dict(locals())
    # judged here: a kept answer is made with stderr captured, and progress is not output
    show = wanted(json=json, no_progress=options.pop("no_progress"))
    if dask:  # a cluster run is asked for: run it
        _scan(**options, show=show)
        return
    from sniff.answers import remembered

    remembered("scan", options, paths, lambda files: _scan(**options, show=show, files=files))


def _scan(
    paths: list[Path] | None,
    since: str | None,
    until: str | None,
    project: str | None,
    model: str | None,
    agent: str | None,
    tz: str | None,
    json: bool,
    pricing: Path | None,
    log_format: str | None,
    no_index: bool,
    dask: str | None,
    verbose: bool,
    show: bool = False,
    files: list[SourceFile] | None = None,
) -> None:
    """The scan; `show`: progress (see `cli.progress`); `files`: the log files already listed
    under `paths`, if they were."""
    filters, zone, prices = o.check(
        since=since, until=until, project=project, model=model, agent=agent, tz=tz,
        pricing=pricing, log_format=log_format,
    )  # fmt: skip
    with shown(show):
        if dask:
            from sniff import dask_backend
            from sniff.dask_cluster import cluster

            with cluster(dask) as client:
                numbers = dask_backend.scan(
                    client, paths, pricing, filters, zone, log_format=log_format
                )
        else:
            numbers = _numbers(paths, filters, zone, prices, log_format, no_index, pricing, files)
    o.require_logs(numbers.dataset, paths)
    source = prices.source()
    o.report_issues(numbers.dataset, verbose)
    if json:
        from sniff.present.breaks_json import top_breaks_json
        from sniff.present.jsonout import dumps, summary_json

        report = summary_json(numbers.summary, numbers.dataset, source)
        report["breaks"] = top_breaks_json(numbers.breaks)
        typer.echo(dumps(report))
        return
    from rich.console import Console

    from sniff.present.breaks_view import print_top_breaks
    from sniff.present.console import print_summary

    console = Console()
    print_summary(console, numbers.summary, numbers.dataset, source, zone)
    print_top_breaks(console, numbers.breaks, zone)


def _numbers(
    paths: list[Path] | None,
    filters: Filters,
    zone: tzinfo,
    prices: PriceBook,
    log_format: str | None,
    no_index: bool,
    pricing: Path | None,
    files: list[SourceFile] | None,
) -> ScanNumbers:
    """The scan, unit by unit from the index when there is one, else from every file."""
    from sniff.ingest.indexed import open_index
    from sniff.paths import file_identity
    from sniff.scan_run import ScanNumbers, scan_scope, scan_units

    # the prompts (where logs hold them) let breaks be told apart as `cache --breaks` does
    with_prompts: Literal["sized"] = "sized"
    store = None if no_index else open_index()
    if store is not None:
        try:
            return scan_units(
                paths, store, prices, filters, zone, log_format=log_format, files=files,
                with_prompts=with_prompts,
                scope=scan_scope(
                    filters=filters, zone=zone, log_format=log_format,
                    pricing=file_identity(pricing) if pricing else None,
                ),
            )  # fmt: skip
        finally:
            store.close()
    from sniff.analyses.breaks import find_breaks
    from sniff.analyses.summary import summarize
    from sniff.api import load

    dataset = load(paths, prices, log_format=log_format, with_prompts=with_prompts, use_index=False)
    from sniff.analyses.scan_parts import digest

    breaks = find_breaks(dataset.requests, prices, zone=zone, keep=filters.keep).breaks
    return ScanNumbers(summarize(filters.apply(dataset.requests), zone), digest(breaks), dataset)
