"""Provides `sniff scan`: the cost summary of every project, model, day and session."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted

if TYPE_CHECKING:
    from sniff.ingest.discover import SourceFile


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
    from sniff.workspace import Workspace

    workspace = Workspace(
        paths, since=since, until=until, project=project, model=model, agent=agent, tz=tz,
        pricing=pricing, log_format=log_format, use_index=not no_index, dask=dask,
    )  # fmt: skip
    with shown(show):
        numbers = workspace.scan(files)
    o.report_issues(numbers.dataset, verbose)
    if json:
        from sniff.present.jsonout import dumps

        typer.echo(dumps(workspace.summary()))
        return
    from rich.console import Console

    from sniff.present.breaks_view import print_top_breaks
    from sniff.present.console import print_summary

    console = Console()
    print_summary(
        console, numbers.summary, numbers.dataset, workspace.prices.source(), workspace.zone
    )
    print_top_breaks(console, numbers.breaks, workspace.zone)
