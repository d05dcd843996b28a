"""Provides the options every command shares, and turning them into data and filters."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sniff.errors import UserError

if TYPE_CHECKING:
    from sniff.analyses.filters import Filters
    from sniff.analyses.summary import Summary
    from sniff.ingest.record import Prompts
    from sniff.model import Dataset
    from sniff.pricing import PriceBook

AGENTS = ("main", "subagent", "compaction", "other")
FORMATS = ("claude-code", "claude-trace", "codex", "request-log")

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
    """Check the options, then read and price the logs (`while_waiting`: see `api.load`).

    Raises:
        UserError: an option is invalid or a path does not exist.
    """
    filters, zone, prices = check(
        since=since, until=until, project=project, model=model, agent=agent, tz=tz,
        pricing=pricing, log_format=log_format,
    )  # fmt: skip
    dataset = load(
        paths, filters, prices, pricing=pricing, log_format=log_format,
        with_prompts=with_prompts, while_waiting=while_waiting, no_index=no_index, dask=dask,
    )  # fmt: skip
    return Selection(dataset, filters, zone, prices)


def load(
    paths: list[Path] | None,
    filters: Filters,
    prices: PriceBook,
    *,
    pricing: Path | None,
    log_format: str | None,
    with_prompts: Prompts = False,
    while_waiting: Callable[[], object] | None = None,
    no_index: bool = False,
    dask: str | None = None,
) -> Dataset:
    """Read and price the logs, here (through the index unless `no_index`) or on the cluster
    at `dask`; say so when there are none (see `api.load` for `while_waiting`).

    Raises:
        UserError: a path does not exist.
    """
    if dask:
        from sniff import dask_backend
        from sniff.dask_cluster import cluster

        if while_waiting is not None:
            while_waiting()
        with cluster(dask) as client:
            dataset = dask_backend.load(
                client, paths, pricing, log_format=log_format, with_prompts=with_prompts
            )
    else:
        from sniff.api import load as load_here

        dataset = load_here(
            paths,
            prices,
            log_format=log_format,
            with_prompts=with_prompts,
            while_waiting=while_waiting,
            use_index=not no_index,
            window=(
                filters.since.timestamp() if filters.since else None,
                filters.until.timestamp() if filters.until else None,
            ),
        )
    require_logs(dataset, paths)
    return dataset


def check(
    *,
    since: str | None,
    until: str | None,
    project: str | None,
    model: str | None,
    agent: str | None,
    tz: str | None,
    pricing: Path | None,
    log_format: str | None,
) -> tuple[Filters, tzinfo, PriceBook]:
    """The filters, time zone and prices the options name.

    Raises:
        UserError: an option is invalid.
    """
    from sniff.analyses.filters import Filters, parse_bound
    from sniff.pricing import PriceBook, load_overrides

    zone = resolve_zone(tz)
    if agent is not None and agent not in AGENTS:
        raise UserError(f"--agent must be one of {', '.join(AGENTS)}, not {agent!r}")
    if log_format is not None and log_format not in FORMATS:
        raise UserError(f"--log-format must be one of {', '.join(FORMATS)}, not {log_format!r}")
    filters = Filters(
        since=parse_bound(since, zone, end=False) if since else None,
        until=parse_bound(until, zone, end=True) if until else None,
        project=project,
        model=model,
        agent=agent,
    )
    if filters.since and filters.until and filters.since >= filters.until:
        raise UserError(f"--since {since} is not before --until {until}: no request can match")
    return filters, zone, PriceBook(load_overrides(pricing) if pricing else None)


def require_logs(dataset: Dataset, paths: list[Path] | None) -> None:
    """Refuse to report on nothing: the paths a user named must hold logs, and a file named
    must be one. The usual folders holding none only earn a line on the error stream (a
    machine may simply have none yet).

    Raises:
        UserError: a named file is not a log, or the named paths hold none.
    """
    from sniff.numbers import plural

    unknown = set(dataset.unknown_files)
    for path in paths or ():
        if str(path) in unknown:
            raise UserError(f"not a log sniff reads: {path} (--log-format NAME reads it as one)")
    if dataset.formats:
        return
    where = ", ".join(dataset.roots) or "the usual log folders"
    found = (
        f"no log sniff reads among the {plural(len(dataset.files), 'file')} under {where}"
        if dataset.files
        else f"no log files (*.jsonl) found under {where}"
    )
    if paths and dataset.unreadable:  # why there is nothing, rather than that there is not
        first, *others = dataset.unreadable
        found = f"{first.file}: {first.reason}" + (f" (and {len(others)} more)" if others else "")
    if paths:
        raise UserError(found)
    sys.stderr.write(f"sniff: {found}\n")


def resolve_zone(name: str | None) -> tzinfo:
    """The zone named by --tz, or the machine's local zone.

    Raises:
        UserError: no such zone.
    """
    if name is None:
        import tzlocal

        try:
            return tzlocal.get_localzone()
        except Exception:  # a broken local zone setup must not stop a report
            from datetime import UTC

            return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise UserError(f"unknown time zone {name!r} (try UTC or Europe/Paris)") from error


def report_issues(dataset: Dataset, verbose: bool) -> None:
    """Name each file or folder that could not be read in one line on the error stream, as
    `sniff: path: why`; with --verbose, list the skipped and repaired lines too."""
    for issue in dataset.unreadable:
        sys.stderr.write(f"sniff: {issue.file}: {issue.reason}\n")
    if verbose:
        from sniff.present.console import print_issues

        print_issues(sys.stderr, (issue for issue in dataset.issues if issue.line > 0))
