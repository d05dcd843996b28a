"""Provides `sniff latency`: TTFT, time to first visible token, TPOT and end-to-end, the peaks
of their distribution and what explains each, peaks over time, and goodput under targets."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed


@one_line_errors
@replayed("latency")
@o.shared(omit=("dask",))
def latency(
    metric: Annotated[
        str,
        typer.Option(
            "--metric",
            help="ttft (time to first token), visible (time to first visible token: text or a "
            "tool call, not thinking), tpot (per output token) or e2e.",
            metavar="METRIC",
        ),
    ] = "ttft",
    slo_ttft: Annotated[
        float | None,
        typer.Option(
            "--slo-ttft",
            help="Goodput target: time to first token, in seconds.",
            callback=o.at_least(0),
            metavar="S",
        ),
    ] = None,
    slo_visible: Annotated[
        float | None,
        typer.Option(
            "--slo-visible",
            help="Goodput target: time to first visible token, in seconds.",
            callback=o.at_least(0),
            metavar="S",
        ),
    ] = None,
    slo_tpot: Annotated[
        float | None,
        typer.Option(
            "--slo-tpot",
            help="Goodput target: time per output token, in seconds.",
            callback=o.at_least(0),
            metavar="S",
        ),
    ] = None,
    slo_e2e: Annotated[
        float | None,
        typer.Option(
            "--slo-e2e",
            help="Goodput target: end-to-end time, in seconds.",
            callback=o.at_least(0),
            metavar="S",
        ),
    ] = None,
    **options: Any,
) -> None:
    """Latency percentiles, the peaks of the distribution (cache hits vs misses), goodput.

    Exact for claude-trace and request logs; approximate (and said so) for Claude Code and Codex.
    """
    from sniff.analyses.latency.measures import METRICS, Slo, analyze_latency
    from sniff.errors import UserError

    if metric not in METRICS:
        raise UserError(f"--metric must be one of {', '.join(METRICS)}, not {metric!r}")
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        # scipy takes a second to import: let it load while worker processes parse the logs
        dataset = workspace.dataset(while_waiting=_import_peaks)
        slo = Slo(ttft=slo_ttft, tpot=slo_tpot, e2e=slo_e2e, visible=slo_visible)
        report = analyze_latency(
            dataset.requests, metric, workspace.zone, slo, keep=workspace.filters.keep
        )
    o.report_issues(dataset, options["verbose"])
    if options["json"]:
        from sniff.present.terminal.latency import latency_json

        o.print_json(latency_json(report))
        return
    from sniff.present.terminal.latency import print_latency
    from sniff.present.terminal.safe_console import SafeConsole

    print_latency(SafeConsole(), report)


def _import_peaks() -> None:
    import sniff.analyses.latency.peaks  # noqa: F401
