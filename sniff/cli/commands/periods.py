"""Provides `sniff daily`, `sniff weekly` and `sniff monthly`: the numbers of `sniff report
--by day|week|month`, as a table or JSON.

Why one module: the three differ only in the period (`period_command`).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

BREAKDOWNS = ("model", "harness", "project", "machine", "user")
"""What `--breakdown` splits a period by (`analyses.cost.periods.BREAKDOWNS`, not imported
here: a command's module is imported for `--help` and must stay light)."""
Breakdown = Annotated[
    str | None,
    typer.Option(
        "--breakdown",
        "-b",
        metavar="KIND",
        help="Add one row per KIND under each period: model (alone: model), harness, project, "
        "or machine or user that exported to a team folder.",
    ),
]
"""`-b` and `--breakdown` alone mean `--breakdown model`, the flag they were: the word after
them is their value only if it is one, or no path (`group.valued`, from `optional_values`), so
`sniff daily -b PATH` still reads PATH as a path."""
Order = Annotated[
    str, typer.Option("--order", help="asc: oldest first; desc: newest first.", metavar="asc|desc")
]
OldOrder = Annotated[str | None, typer.Option("-o", hidden=True, metavar="asc|desc")]
"""`-o` as `--order`, for one release: everywhere else `-o` is `--output`."""
OLD_ORDER_WARNING = (
    "sniff: -o here means --order for this release only; write --order "
    "(-o is --output in every other command)\n"
)


def period_command(name: str, by: str, summary: str) -> Callable[..., None]:
    """The command `name`: the requests by `by` (day, week or month), as `report --by`."""

    def command(
        breakdown: Breakdown = None,
        order: Order = "asc",
        old_order: OldOrder = None,
        **options: Any,
    ) -> None:
        _run(by, breakdown=_breakdown(breakdown), order=order, options=options)

    command.__name__ = command.__qualname__ = name
    command.__doc__ = summary
    run = one_line_errors(_old_order(replayed(name)(o.shared()(command))))
    run.optional_values = {"--breakdown": BREAKDOWNS, "-b": BREAKDOWNS}  # type: ignore[attr-defined]
    return run


def _old_order(command: Callable[..., None]) -> Callable[..., None]:
    """Take `-o VALUE` as `--order VALUE`, with a warning (before a kept answer is replayed,
    which says nothing of it, and keyed as `--order` is)."""

    @functools.wraps(command)
    def run(**options: Any) -> None:
        if options.get("old_order") is not None:
            sys.stderr.write(OLD_ORDER_WARNING)
            options["order"], options["old_order"] = options["old_order"], None
        command(**options)

    return run


def _breakdown(value: str | None) -> str | None:
    """What to split each period by (None: nothing).

    Raises:
        UserError: the value is none of `BREAKDOWNS`.
    """
    from sniff.errors import UserError

    if value is not None and value not in BREAKDOWNS:
        raise UserError(f"--breakdown must be one of {', '.join(BREAKDOWNS)}, not {value!r}")
    return value


def _run(by: str, *, breakdown: str | None, order: str, options: dict[str, Any]) -> None:
    from sniff.analyses.cost.periods import ORDERS, period_table
    from sniff.errors import UserError

    if order not in ORDERS:
        raise UserError(f"--order must be one of {', '.join(ORDERS)}, not {order!r}")
    workspace = o.workspace(options)
    with shown(wanted(json=options["json"], no_progress=options["no_progress"])):
        dataset = workspace.dataset()
    o.report_issues(dataset, options["verbose"])
    chosen = workspace.filters.apply(dataset.requests)
    label = None
    if breakdown in ("machine", "user"):
        from sniff.analyses.cost.exporters import exporter_label
        from sniff.ingest.parquet_in import owners

        label = exporter_label(owners(dataset.files), breakdown)
    table = period_table(
        chosen, workspace.zone, by, order=order, breakdown=breakdown or "model", label=label
    )
    if options["json"]:
        from sniff.present.json.common import warnings_json
        from sniff.present.json.periods import periods_json

        data = periods_json(table, workspace.zone, breakdown=breakdown is not None)
        o.print_json(data | {"warnings": warnings_json(table.summary, dataset)})
        return
    from sniff.present.terminal.console import print_warnings
    from sniff.present.terminal.periods import periods_table
    from sniff.present.terminal.safe_console import SafeConsole

    console = SafeConsole()
    console.print(periods_table(table, workspace.zone, breakdown=breakdown is not None))
    print_warnings(console, table.summary, dataset)


daily = period_command(
    "daily",
    "day",
    "One row per day (in --tz): requests, tokens by class, cost, hit rate, savings.",
)
weekly = period_command(
    "weekly",
    "week",
    "One row per ISO week (Monday to Sunday, in --tz): requests, tokens, cost, hit rate, savings.",
)
monthly = period_command(
    "monthly",
    "month",
    "One row per month (in --tz): requests, tokens by class, cost, hit rate, savings.",
)
