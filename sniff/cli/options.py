"""Provides the options every command shares, and the data they select (`sniff.workspace`)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from sniff.shown import one_line
from sniff.workspace.choices import FORMATS, HARNESSES

if TYPE_CHECKING:
    from sniff.model import Dataset
    from sniff.workspace import Workspace

WORKSPACE_OPTIONS = ("since", "until", "project", "model", "agent", "harness", "tz", "pricing",
                     "log_format", "dask")  # fmt: skip
"""The options a command hands to its Workspace under the same names."""


def at_least(low: float) -> Callable[[Any], Any]:
    """The check of an option whose value must be at least `low` (None: not given). sniff
    checks it rather than typer's `min=`, which help shows as `[x>=1]`: the bound is the
    help text's to say, in words."""

    def check(value: Any) -> Any:
        if value is not None and value < low:
            raise typer.BadParameter(f"must be at least {low:g}, not {value:g}")
        return value

    return check


Paths = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Log files or folders. Default: every agent's usual log folders.",
        show_default=False,
        metavar="PATH...",
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
    str | None,
    typer.Option("--project", help="Only projects whose path contains this text.", metavar="TEXT"),
]
ModelFilter = Annotated[
    str | None,
    typer.Option("--model", help="Only models whose name contains this text.", metavar="TEXT"),
]
AgentFilter = Annotated[
    str | None,
    typer.Option(
        "--agent",
        help="Only requests of this agent: main, subagent, compaction or other.",
        metavar="AGENT",
    ),
]
HarnessFilter = Annotated[
    str | None,
    typer.Option(
        "--harness",
        help=f"Only requests of this agent's logs ({', '.join(HARNESSES)}).",
        metavar="NAME",
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


SHARED: dict[str, tuple[object, object]] = {
    "paths": (Paths, None),
    "since": (Since, None),
    "until": (Until, None),
    "project": (ProjectFilter, None),
    "model": (ModelFilter, None),
    "agent": (AgentFilter, None),
    "harness": (HarnessFilter, None),
    "tz": (Zone, None),
    "json": (Json, False),
    "pricing": (Pricing, None),
    "log_format": (LogFormat, None),
    "no_index": (NoIndex, False),
    "no_progress": (NoProgress, False),
    "dask": (Dask, None),
    "verbose": (Verbose, False),
}
"""The options commands share, each with its default, in the order --help lists them."""

C = TypeVar("C", bound=Callable[..., None])


def shared(*, omit: tuple[str, ...] = (), after: str = "paths") -> Callable[[C], C]:
    """Give a command the options of `SHARED` that it neither omits nor declares itself, its
    own coming after the option `after`; the body takes the shared ones as `**options`.

    Typer reads a command's options from `inspect.signature`, which honours `__signature__`.
    """

    def decorate(command: C) -> C:
        own = [
            parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for parameter in inspect.signature(command, eval_str=True).parameters.values()
            if parameter.kind is not inspect.Parameter.VAR_KEYWORD
        ]
        taken = set(omit) | {parameter.name for parameter in own}
        common = [
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind
            )
            for name, (kind, default) in SHARED.items()
            if name not in taken
        ]
        at = [parameter.name for parameter in common].index(after) + 1
        signature = inspect.Signature([*common[:at], *own, *common[at:]])
        command.__signature__ = signature  # type: ignore[attr-defined]
        return command

    return decorate


def workspace(options: dict[str, Any], **fixed: Any) -> Workspace:
    """The Workspace of a command's options (its `**options` or `locals()`): those of
    `WORKSPACE_OPTIONS` it has, `--no-index` as reading without the index, and `fixed` values
    in place of options."""
    from sniff.workspace import Workspace

    chosen = {name: options[name] for name in WORKSPACE_OPTIONS if name in options} | fixed
    return Workspace(options.get("paths"), use_index=not options.get("no_index"), **chosen)


def print_json(value: Any) -> None:
    """`--json`: the command's one JSON object, with stable keys, on standard output."""
    from sniff.present.json.common import dumps

    typer.echo(dumps(value))


def report_issues(dataset: Dataset, verbose: bool) -> None:
    """Name each file or folder that could not be read in one line on the error stream, as
    `sniff: path: why`; with --verbose, list the skipped and repaired lines too."""
    for issue in dataset.unreadable:
        sys.stderr.write(one_line(f"sniff: {issue.file}: {issue.reason}") + "\n")
    if verbose:
        from sniff.present.terminal.console import print_issues

        print_issues(sys.stderr, (issue for issue in dataset.issues if issue.line > 0))
