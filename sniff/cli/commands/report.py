"""Provides `sniff report`: the cost report as HTML, Markdown, CSV or JSON, to forward."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

FORMATS = ("html", "md", "csv", "json")
DEFAULT_NAME = "sniff-report"
"""The file a report goes to when it would otherwise fill a terminal."""


@one_line_errors
@replayed("report", writes="output")
@o.shared()
def report(
    output_format: Annotated[
        str | None,
        typer.Option(
            "--output-format", "-f", help="html (default), md, csv or json.", metavar="FORMAT"
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="File to write, or - for standard output. Default: standard output when it "
            f"is a pipe or file; on a terminal, {DEFAULT_NAME}.html (.md, .csv, .json) in this "
            "folder.",
            metavar="FILE",
        ),
    ] = None,
    json: Annotated[
        bool,
        typer.Option("--json", help="The report as JSON (-f json), to standard output unless -o."),
    ] = False,
    by: Annotated[
        str,
        typer.Option(
            "--by",
            help="Group costs by day, week, month, project, model, session, agent or harness.",
            metavar="KEY",
        ),
    ] = "day",
    plan: Annotated[
        str | None,
        typer.Option(
            "--plan",
            help="Weigh Claude Code's months against this plan only: pro, max5, max20, or its "
            "price in dollars per month. Default: every bundled plan.",
            metavar="PLAN",
        ),
    ] = None,
    plan_file: o.PlanFile = None,
    redact: Annotated[
        bool,
        typer.Option(
            "--redact",
            help="Keep every number; drop prompt, request and tool-output text; "
            "replace project names and paths with stable pseudonyms.",
        ),
    ] = False,
    **options: Any,
) -> None:
    """A document of what it cost: the month and its projection, top sessions, what wasted money.

    HTML is one self-contained file with charts that opens offline and prints to PDF.
    """
    from sniff.errors import UserError

    output_format = _output_format(output_format, json)
    target = _destination(output, output_format, to_stdout=json)
    if target is not None and target.is_dir():
        raise UserError(f"--output is a directory: {target} (give a file name)")
    from sniff.analyses.cost.plans import chosen_plans

    plans = chosen_plans(plan, plan_file)
    workspace = o.workspace(options)
    with shown(wanted(json=json, no_progress=options["no_progress"])):
        text = _render(workspace.report(by, redact=redact, plans=plans), output_format)
    o.report_issues(workspace.dataset("counted"), options["verbose"])
    if target is None:
        typer.echo(text, nl=not text.endswith("\n"))
        return
    size = _write(target, text)
    chosen = "" if output is not None else "; -o FILE writes elsewhere, -o - to standard output"
    typer.echo(f"wrote {target} ({output_format}, {size:,} bytes{chosen})", err=True)


def _output_format(output_format: str | None, json: bool) -> str:
    """The format asked for by -f and --json.

    Raises:
        UserError: an unknown format, or one --json contradicts.
    """
    from sniff.errors import UserError

    if json and output_format not in (None, "json"):
        raise UserError(f"--json writes JSON: it cannot go with -f {output_format}")
    chosen = output_format or ("json" if json else "html")
    if chosen not in FORMATS:
        raise UserError(f"--output-format must be one of {', '.join(FORMATS)}, not {chosen!r}")
    return chosen


def _destination(output: Path | None, output_format: str, *, to_stdout: bool) -> Path | None:
    """Where the report goes; None: standard output.

    Why not always standard output: a report (an HTML page above all) dumped on a terminal is
    of no use to its reader. A pipe or a file still gets it, as `sniff report > r.html` expects.
    """
    if output is not None:
        return None if str(output) == "-" else output
    if to_stdout or not _on_terminal():
        return None
    return Path(f"{DEFAULT_NAME}.{output_format}")


def _on_terminal() -> bool:
    return sys.stdout.isatty()


def _write(target: Path, text: str) -> int:
    """Write `text` to `target` whole or not at all (`atomic_write`); its size.

    Raises:
        UserError: the file cannot be written; nothing is left in its place.
    """
    from sniff.atomic_write import write_whole

    data = text.encode("utf-8")
    write_whole(target, data)
    return len(data)


def _render(built: object, output_format: str) -> str:
    from sniff.analyses.report import Report

    assert isinstance(built, Report)
    if output_format == "html":
        from sniff.present.report.html import report_html

        return report_html(built)
    from sniff.present.report import data as report_data

    if output_format == "json":
        from sniff.present.json.common import dumps

        return dumps(report_data.report_json(built)) + "\n"
    if output_format == "csv":
        return report_data.report_csv(built)
    return report_data.report_markdown(built)
