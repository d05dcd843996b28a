"""Provides the options every command shares, and the data they select (`sniff.workspace`)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
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
        help="Log files or folders, or a team export's URL (s3://...). Default: every agent's "
        "usual log folders.",
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
ListenPort = Annotated[
    int, typer.Option("--port", help="The port to listen on (0: any free port).", metavar="N")
]
ListenHost = Annotated[
    str,
    typer.Option(
        "--host", help="The address to listen on: only this machine by default.", metavar="HOST"
    ),
]
DailyFolder = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help="The folder of the daily files (default: the command's own in sniff's data folder, "
        "which every command reads).",
        metavar="DIR",
        show_default=False,
    ),
]
"""The options of sniff's local servers (`otel`, `proxy`), one declaration for both."""


def listen_port(port: int) -> int:
    """A port a local server may listen on (0: any free one).

    Raises:
        UserError: it is none.
    """
    if not 0 <= port <= 65535:
        from sniff.errors import UserError

        raise UserError(f"--port must be between 0 and 65535, not {port}")
    return port


Pricing = Annotated[
    Path | None,
    typer.Option(
        "--pricing",
        help="TOML or JSON file of prices per model, overriding the bundled ones.",
        metavar="FILE",
    ),
]
PlanFile = Annotated[
    Path | None,
    typer.Option(
        "--plan-file", help="TOML file of plan prices over the bundled ones.", metavar="FILE"
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


ORDERS = ("asc", "desc")
"""`--order`'s values."""
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Sorts:
    """What a command that prints a list lets `--sort`, `--order` and `--limit` choose: its
    keys (the first is the default, today's order), the keys read smallest first, and what
    `--limit` cuts. Declared once per command, so that its help and its check agree."""

    keys: tuple[str, ...]
    cuts: str
    """What `--limit` cuts, said in its help (e.g. "the sessions listed")."""
    ascending: frozenset[str] = frozenset()
    """Keys whose rows read best smallest first (a start, a name); the rest largest first."""
    note: str = ""
    """Said after the keys: which list they order, where not every one, or which keys hold
    only in some mode."""


@dataclass(frozen=True, slots=True)
class Listing:
    """The chosen `--sort` key, its direction, and `--limit` (None: every row)."""

    sort: str
    descending: bool
    limit: int | None
    flipped: bool = False
    """`--order` reversed the key's own direction: a title says so."""
    given: bool = False
    """--sort or --order was given: the user chose an order, not the command's own."""

    def arrange(self, rows: Iterable[R], keys: Mapping[str, Callable[[R], Any]]) -> list[R]:
        """`rows` ordered by the chosen key, then cut to the limit. The sort is stable, so
        rows that tie keep the order they came in."""
        ordered = sorted(rows, key=keys[self.sort], reverse=self.descending)
        return ordered[: self.limit] if self.limit else ordered

    @property
    def title(self) -> str:
        """How a table's title says the order: "cost", or "cost, ascending" when flipped."""
        if not self.flipped:
            return self.sort
        return f"{self.sort}, {'descending' if self.descending else 'ascending'}"


def _list_options(sorts: Sorts) -> list[inspect.Parameter]:
    """`--sort`, `--order` and `--limit/-n`: the one declaration of each, worded for `sorts`."""
    default, *_ = sorts.keys
    smallest = [key for key in sorts.keys if key in sorts.ascending]
    directions = "asc: smallest (or earliest, A-Z) first; desc: largest first. Default: " + (
        f"asc for {', '.join(smallest)}, desc for the rest." if smallest else "desc."
    )
    note = f" {sorts.note}" if sorts.note else ""
    declared: dict[str, tuple[object, object]] = {
        "sort": (
            Annotated[str | None, typer.Option("--sort", help=f"Order by: "
                      f"{', '.join(sorts.keys)}.{note} Default: {default}.", metavar="KEY")],
            None,  # not `default`: a command may tell a chosen order from its own (`Listing.given`)
        ),
        "order": (
            Annotated[str | None, typer.Option("--order", help=directions, metavar="asc|desc")],
            None,
        ),
        "limit": (
            Annotated[int | None, typer.Option("--limit", "-n", help=f"Show only the first N of "
                      f"{sorts.cuts}.", callback=at_least(1), metavar="N")],
            None,
        ),
    }  # fmt: skip
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=value, annotation=kind)
        for name, (kind, value) in declared.items()
    ]


def listed(sorts: Sorts) -> Callable[[C], C]:
    """Give a command that prints a list `--sort`, `--order` and `--limit`, before its own
    options; the body reads them with `listing(options, sorts)`. Under `shared`, which keeps
    them as the command's own."""

    def decorate(command: C) -> C:
        signature = inspect.signature(command, eval_str=True)
        own = [
            parameter
            if parameter.kind is inspect.Parameter.VAR_KEYWORD
            else parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for parameter in signature.parameters.values()
        ]  # keyword-only, as the options put first are: a signature allows no other order
        command.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*_list_options(sorts), *own]
        )
        return command

    return decorate


def listing(options: dict[str, Any], sorts: Sorts) -> Listing:
    """The `--sort`, `--order` and `--limit` a command was given, checked.

    Raises:
        UserError: the key is not one of `sorts`, or the order neither asc nor desc.
    """
    from sniff.errors import UserError

    sort, order = options["sort"] or sorts.keys[0], options["order"]
    if sort not in sorts.keys:
        raise UserError(f"--sort must be one of {', '.join(sorts.keys)}, not {sort!r}")
    if order is not None and order not in ORDERS:
        raise UserError(f"--order must be asc or desc, not {order!r}")
    own = sort not in sorts.ascending
    descending = order == "desc" if order else own
    given = options["sort"] is not None or order is not None
    return Listing(sort, descending, options["limit"], flipped=descending != own, given=given)


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
