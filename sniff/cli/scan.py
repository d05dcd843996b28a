"""Provides `sniff scan`: the cost summary of every project, model, day and session."""

from __future__ import annotations

from pathlib import Path

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors


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
    log_format: o.Format = None,
    no_index: o.NoIndex = False,
    verbose: o.Verbose = False,
) -> None:
    """Tokens, cost, cache hit rate and savings, in total and by project, model, day, session."""
    options = dict(locals())
    from sniff.answers import remembered

    remembered("scan", options, paths, lambda: _scan(**options))


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
    verbose: bool,
) -> None:
    selection = o.select(
        paths,
        since=since,
        until=until,
        project=project,
        model=model,
        agent=agent,
        tz=tz,
        pricing=pricing,
        log_format=log_format,
        # the prompts (where logs hold them) let breaks be told apart as `cache --breaks` does
        with_prompts="sized",
        no_index=no_index,
    )
    from sniff.analyses.breaks import find_breaks

    summary = selection.summary()
    breaks = find_breaks(
        selection.dataset.requests,
        selection.prices,
        zone=selection.zone,
        keep=selection.filters.keep,
    )
    source = selection.prices.source()
    o.report_issues(selection.dataset, verbose)
    if json:
        from sniff.present.breaks_view import top_breaks_json
        from sniff.present.jsonout import dumps, summary_json

        report = summary_json(summary, selection.dataset, source)
        report["breaks"] = top_breaks_json(breaks)
        typer.echo(dumps(report))
        return
    from rich.console import Console

    from sniff.present.breaks_view import print_top_breaks
    from sniff.present.console import print_summary

    console = Console()
    print_summary(console, summary, selection.dataset, source, selection.zone)
    print_top_breaks(console, breaks, selection.zone)
