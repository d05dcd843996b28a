"""Provides `sniff cache`: observed vs simulated caching, the simulation's error, what-ifs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

if TYPE_CHECKING:
    from sniff.analyses.cache.breaks import Break, BreakReport
    from sniff.analyses.cache.simulation import CacheReport, Comparison
    from sniff.workspace import Workspace

SIMULATED = ("cost", "sim-cost", "requests", "hit-rate")
"""`--sort`'s keys of the projects and sessions, observed and simulated."""
FAULTS = ("cost", "rebuilt", "gap", "time")
"""`--sort`'s keys of the faults `--breaks` lists."""
SORTS = o.Sorts(
    keys=tuple(dict.fromkeys((*SIMULATED, *FAULTS))),
    cuts="the projects and sessions listed (default 10 each; in --json, all), or with "
    "--breaks the faults (default 25; in --json, every break)",
    ascending=frozenset({"time"}),
    note=f"Orders the projects and sessions by {', '.join(SIMULATED)}; with --breaks, the "
    f"faults by {', '.join(FAULTS)}.",
)


@one_line_errors
@replayed("cache")
@o.shared()
@o.listed(SORTS)
def cache(
    policy: Annotated[
        str | None,
        typer.Option(
            "--policy",
            help="Simulate every request under this policy (anthropic, openai, ideal, "
            "engine). Default: each provider's own.",
            metavar="NAME",
        ),
    ] = None,
    ttl: Annotated[
        str | None,
        typer.Option(
            "--ttl",
            help="Write every breakpoint with this TTL (5m or 1h), where the provider offers it.",
            metavar="TTL",
        ),
    ] = None,
    min_tokens: Annotated[
        int | None,
        typer.Option(
            "--min-tokens",
            help="Smallest cacheable prefix, in tokens.",
            callback=o.at_least(0),
            metavar="N",
        ),
    ] = None,
    kv_tokens: Annotated[
        int | None,
        typer.Option(
            "--kv-tokens",
            help="KV-cache capacity of the engine policy.",
            callback=o.at_least(1),
            metavar="N",
        ),
    ] = None,
    breaks: Annotated[
        bool,
        typer.Option(
            "--breaks",
            help="Report cache breaks: requests that rebuilt a cached prefix, why, at what cost.",
        ),
    ] = False,
    policy_file: Annotated[
        Path | None,
        typer.Option(
            "--policy-file",
            help="TOML file of policy values overriding the bundled ones.",
            metavar="FILE",
        ),
    ] = None,
    **options: Any,
) -> None:
    """Observed vs simulated caching, the simulation's error, what-ifs, shared prefixes.

    With --breaks: every request that re-paid for its cached prefix, its cause and its price.
    """
    chosen = _listing(options, breaks)
    if breaks:
        # --policy-file stays: its thinking rules decide which breaks are expected
        _simulation_only(policy=policy, ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens)
    workspace = o.workspace(options)
    json, verbose = options["json"], options["verbose"]
    show = wanted(json=json, no_progress=options["no_progress"])
    if breaks:
        _breaks(workspace, chosen, json=json, verbose=verbose, policy_file=policy_file, show=show)
        return
    with shown(show):
        report = workspace.cache_report(
            policy=policy, ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens,
            policy_file=policy_file,
        )  # fmt: skip
        report = _ordered(report, chosen)
    o.report_issues(workspace.dataset("counted"), verbose)
    if json:
        from sniff.present.terminal.cache import cache_json

        o.print_json(cache_json(report))
        return
    from sniff.present.terminal.cache import print_cache
    from sniff.present.terminal.safe_console import SafeConsole

    print_cache(SafeConsole(), report, chosen.limit)


def _listing(options: dict[str, Any], breaks: bool) -> o.Listing:
    """`--sort`, `--order` and `--limit`, the key one of those of the list shown.

    Raises:
        UserError: the key is not one of them.
    """
    from sniff.errors import UserError

    chosen = o.listing(options, SORTS)
    keys = FAULTS if breaks else SIMULATED
    if chosen.sort not in keys:
        mode = "with --breaks" if breaks else "without --breaks"
        raise UserError(f"--sort {mode} must be one of {', '.join(keys)}, not {chosen.sort!r}")
    return chosen


def _ordered(report: CacheReport, chosen: o.Listing) -> CacheReport:
    """The report with its projects and sessions in the chosen order, cut to --limit."""
    from dataclasses import replace

    keys: dict[str, Callable[[Comparison], Any]] = {
        "cost": lambda row: row.observed.cost_usd or 0.0,
        "sim-cost": lambda row: row.simulated.cost_usd or 0.0,
        "requests": lambda row: row.observed.requests,
        "hit-rate": lambda row: row.observed.hit_rate or 0.0,
    }
    by_project = chosen.arrange(report.by_project, keys)
    return replace(
        report, by_project=by_project, by_session=chosen.arrange(report.by_session, keys)
    )


def _faults_first(report: BreakReport, chosen: o.Listing) -> BreakReport:
    """The report with its breaks in the chosen order, every one kept: the headers count them
    all, and the tables cut the faults to --limit."""
    from dataclasses import replace

    keys: dict[str, Callable[[Break], Any]] = {
        "cost": lambda found: found.cost_usd or 0.0,
        "rebuilt": lambda found: found.rebuilt_tokens,
        "gap": lambda found: found.gap_seconds or 0.0,
        "time": lambda found: found.request.when,
    }
    return replace(report, breaks=replace(chosen, limit=None).arrange(report.breaks, keys))


def _simulation_only(**options: object) -> None:
    """Breaks are what the logs observed, not a simulation: a simulation's option cannot hold.

    Raises:
        UserError: one was given.
    """
    from sniff.errors import UserError

    given = [name for name, value in options.items() if value is not None]
    if given:
        flag = "--" + given[0].replace("_", "-")
        raise UserError(f"{flag} sets the simulation; --breaks reports what the logs observed")


def _breaks(
    workspace: Workspace,
    chosen: o.Listing,
    *,
    json: bool,
    verbose: bool,
    policy_file: Path | None,
    show: bool,
) -> None:
    """`--breaks`: every break, the faults listed in the chosen order."""
    if policy_file is not None:  # a bad file is a usage error before any log is read
        from sniff.engine import load_policies

        load_policies(policy_file)
    with shown(show):
        report = _faults_first(workspace.break_report(policy_file), chosen)
        dataset = workspace.dataset("sized")  # what the report was read from, on the cluster too
    o.report_issues(dataset, verbose)
    if json:
        from sniff.present.json.breaks import break_json, breaks_json

        found = breaks_json(report)
        found["breaks"] = [break_json(one) for one in report.breaks[: chosen.limit]]
        o.print_json(found)
        return
    from sniff.present.terminal.breaks import print_breaks
    from sniff.present.terminal.safe_console import SafeConsole

    default = chosen.sort == "cost" and not chosen.flipped
    order = None if default else chosen.title
    print_breaks(SafeConsole(), report, workspace.zone, (chosen.limit, order))
