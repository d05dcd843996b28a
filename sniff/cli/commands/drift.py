"""Provides `sniff drift`: what changed, when, and what else changed then."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed


@one_line_errors
@replayed("drift")
@o.shared(omit=("dask",))
def drift(
    by: Annotated[
        str,
        typer.Option(
            "--by", help="Series per day or week (ISO weeks, days in --tz).", metavar="day|week"
        ),
    ] = "day",
    version_compare: Annotated[
        tuple[str, str] | None,
        typer.Option(
            "--version-compare",
            help="Compare two agent versions (e.g. 2.1.38 2.1.39) on the same measures.",
            metavar="A B",
        ),
    ] = None,
    **options: Any,
) -> None:
    """Hit rate, cost, cache writes, breaks, output and subagent share over time and per
    version, model, project and harness: where they changed, and what else changed then."""
    from sniff.analyses.drift.series import BY
    from sniff.errors import UserError

    if by not in BY:
        raise UserError(f"--by must be one of {', '.join(BY)}, not {by!r}")
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        report = workspace.drift_report(by)
    versions: tuple[Any, ...] = ()
    if version_compare:
        from sniff.analyses.drift.report import compare_versions

        versions = compare_versions(report, *version_compare)
    o.report_issues(workspace.account(), options["verbose"])
    if options["json"]:
        from sniff.present.json.drift import drift_json

        o.print_json(drift_json(report, versions))
        return
    from sniff.present.terminal.drift import print_drift
    from sniff.present.terminal.safe_console import SafeConsole

    print_drift(SafeConsole(), report, versions)
