"""Provides the options every command shares, and the data they select (`sniff.workspace`)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sniff.choices import FORMATS

if TYPE_CHECKING:
    from sniff.analyses.filters import Filters
    from sniff.analyses.summary import Summary
    from sniff.ingest.record import Prompts
    from sniff.model import Dataset
    from sniff.pricing import PriceBook

Paths = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Log files or folders. Default: the usual Claude Code log folders.",
        show_default=False,
    ),
]
Since = Annotated[
    str | None,
    typer.Option(
        "--since", help="Only requests from this date or ISO time on (in --tz).", metavar="DATE"
    ),
]
Until = Annotated[
    str | None,
    typer.Option(
        "--until",
        help="Only requests up to this date (inclusive) or before this ISO time.",
        metavar="DATE",
    ),
]
ProjectFilter = Annotated[
    str | None, typer.Option("--project", help="Only projects whose path contains this text.")
]
ModelFilter = Annotated[
    str | None, typer.Option("--model", help="Only models whose name contains this text.")
]
AgentFilter = Annotated[
    str | None,
    typer.Option(
        "--agent", help="Only requests of this agent: main, subagent, compaction or other."
    ),
]
LogFormat = Annotated[
    str | None,
    typer.Option(
        "--log-format",
        help=f"Read every file as this format ({', '.join(FORMATS)}). Default: detect.",
        metavar="NAME",
    ),
]
Zone = Annotated[
    str | None,
    typer.Option(
        "--tz",
        help="Time zone for days and times, e.g. Europe/Paris. Default: local.",
        metavar="ZONE",
    ),
]
Json = Annotated[bool, typer.Option("--json", help="Print one JSON object with stable keys.")]
Pricing = Annotated[
    Path | None,
    typer.Option(
        "--pricing",
        help="TOML or JSON file of prices per model, overriding the bundled ones.",
        metavar="FILE",
    ),
]
NoIndex = Annotated[
    bool,
    typer.Option(
        "--no-index",
        help="Read every log file whole; neither use nor update the on-disk index.",
    ),
]
Dask = Annotated[
    str | None,
    typer.Option(
        "--dask",
        envvar="SNIFF_DASK",
        help="Run on a Dask cluster: its scheduler's address, or local[:N] for N local workers.",
        metavar="ADDRESS",
    ),
]
NoProgress = Annotated[
    bool,
    typer.Option(
        "--no-progress",
        help="Show no progress bar (otherwise shown on a terminal when the work takes over "
        "a second).",
    ),
]
Verbose = Annotated[
    bool, typer.Option("--verbose", "-v", help="List every skipped line as file:line: reason.")
]


@dataclass(frozen=True, slots=True)
class Selection:
    """The data a command works on, after options were applied."""

    dataset: Dataset
    filters: Filters
    zone: tzinfo
    prices: PriceBook

    def summary(self) -> Summary:
        """The cost summary of the selected requests."""
        from sniff.analyses.summary import summarize

        return summarize(self.filters.apply(self.dataset.requests), self.zone)


def select(
    paths: list[Path] | None,
    *,
    since: str | None,
    until: str | None,
    project: str | None,
    model: str | None,
    agent: str | None,
    tz: str | None,
    pricing: Path | None,
    log_format: str | None = None,
    with_prompts: Prompts = False,
    while_waiting: Callable[[], object] | None = None,
    no_index: bool = False,
    dask: str | None = None,
) -> Selection:
    """Check the options, then read and price the logs (see `Workspace.dataset`).

    Raises:
        UserError: an option is invalid or a path does not exist.
    """
    from sniff.workspace import Workspace

    workspace = Workspace(
        paths, since=since, until=until, project=project, model=model, agent=agent, tz=tz,
        pricing=pricing, log_format=log_format, use_index=not no_index, dask=dask,
    )  # fmt: skip
    dataset = workspace.dataset(with_prompts, while_waiting=while_waiting)
    return Selection(dataset, workspace.filters, workspace.zone, workspace.prices)


def report_issues(dataset: Dataset, verbose: bool) -> None:
    """Name each file or folder that could not be read in one line on the error stream, as
    `sniff: path: why`; with --verbose, list the skipped and repaired lines too."""
    for issue in dataset.unreadable:
        sys.stderr.write(f"sniff: {issue.file}: {issue.reason}\n")
    if verbose:
        from sniff.present.console import print_issues

        print_issues(sys.stderr, (issue for issue in dataset.issues if issue.line > 0))
