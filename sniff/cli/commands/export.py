"""Provides `sniff export`: the normalized tables as Parquet, for pandas, DuckDB or Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted


@one_line_errors
@o.shared(omit=("tz",))
def export(
    output: Annotated[
        Path,
        typer.Option("--output", "-o", help="Directory to write (or merge into).", metavar="DIR"),
    ] = Path("sniff-export"),
    **options: Any,
) -> None:
    """Parquet tables requests, sessions, breaks and blocks, by day; merges into an export.

    Rows keep the provider's request ids, so exporting other logs into the same directory adds
    what is new and never counts a request twice.
    """
    from sniff.export import export as write

    workspace = o.workspace(options, tz="UTC")
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        dataset = workspace.dataset("counted")
        result = write(output, workspace.filters.apply(dataset.requests), workspace.prices)
    o.report_issues(dataset, options["verbose"])
    if options["json"]:
        written = {"output": str(output), "rows": result.rows}
        o.print_json({**written, "added": result.added, "kept": result.kept})
        return
    from sniff.numbers import plural

    tables = ", ".join(f"{name} {rows:,}" for name, rows in result.rows.items())
    typer.echo(
        f"{output}: {tables} rows ({plural(result.added, 'new request')}, "
        f"{result.kept:,} already exported)"
    )
