"""Provides `sniff report`: the cost report as HTML, Markdown, CSV or JSON, to forward."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors

FORMATS = ("html", "md", "csv", "json")


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("report")(report)


@one_line_errors
def report(
    paths: o.Paths = None,
    output_format: Annotated[
        str, typer.Option("--format", "-f", help="html, md, csv or json.", metavar="FORMAT")
    ] = "html",
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="File to write (default: standard output).", metavar="FILE"
        ),
    ] = None,
    by: Annotated[
        str,
        typer.Option(
            "--by", help="Group costs by day, week, month, project, model, session or agent."
        ),
    ] = "day",
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            help="Keep every number; drop prompt, request and tool-output text; "
            "replace project names and paths with stable pseudonyms.",
        ),
    ] = False,
    since: o.Since = None,
    until: o.Until = None,
    project: o.ProjectFilter = None,
    model: o.ModelFilter = None,
    agent: o.AgentFilter = None,
    tz: o.Zone = None,
    pricing: o.Pricing = None,
    log_format: o.Format = None,
    no_index: o.NoIndex = False,
    dask: o.Dask = None,
    verbose: o.Verbose = False,
) -> None:
    """A document of what it cost: totals, cost by group, breaks, what-ifs, findings, latency.

    HTML is one self-contained file with charts that opens offline and prints to PDF.
    """
    from sniff.analyses.report import GROUPINGS, build_report
    from sniff.errors import UserError

    if output_format not in FORMATS:
        raise UserError(f"--format must be one of {', '.join(FORMATS)}, not {output_format!r}")
    if by not in GROUPINGS:
        raise UserError(f"--by must be one of {', '.join(GROUPINGS)}, not {by!r}")
    if output is not None and output.is_dir():
        raise UserError(f"--output is a directory: {output} (give a file name)")
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
        with_prompts=True,
        no_index=no_index,
        dask=dask,
    )
    o.report_issues(selection.dataset, verbose)
    from sniff.analyses.filters import keep_activity

    built = build_report(
        selection.dataset,
        selection.prices,
        selection.zone,
        by=by,
        keep=selection.filters.keep,
        activity=keep_activity(
            selection.dataset.activity, selection.filters, selection.dataset.requests
        ),
    )
    if redact:
        from sniff.analyses.redact import redact as redacted

        built = redacted(built)
    text = _render(built, output_format)
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write {output}: {error.strerror}") from error
    typer.echo(f"wrote {output} ({output_format}, {len(text):,} bytes)", err=True)


def _render(built: object, output_format: str) -> str:
    from sniff.analyses.report import Report

    assert isinstance(built, Report)
    if output_format == "html":
        from sniff.present.report_html import report_html

        return report_html(built)
    from sniff.present import report_data

    if output_format == "json":
        from sniff.present.jsonout import dumps

        return dumps(report_data.report_json(built)) + "\n"
    if output_format == "csv":
        return report_data.report_csv(built)
    return report_data.report_markdown(built)
