"""Provides `sniff cache`: observed vs simulated caching, the simulation's error, what-ifs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted
from sniff.workspace.answers import replayed

if TYPE_CHECKING:
    from sniff.workspace import Workspace


@one_line_errors
@replayed("cache")
@o.shared()
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
    if breaks:
        # --policy-file stays: its thinking rules decide which breaks are expected
        _simulation_only(policy=policy, ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens)
    workspace = o.workspace(options)
    json, verbose = options["json"], options["verbose"]
    show = wanted(json=json, no_progress=options["no_progress"])
    if breaks:
        _breaks(workspace, json=json, verbose=verbose, policy_file=policy_file, show=show)
        return
    with shown(show):
        report = workspace.cache_report(
            policy=policy, ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens,
            policy_file=policy_file,
        )  # fmt: skip
    o.report_issues(workspace.dataset("counted"), verbose)
    if json:
        from sniff.present.terminal.cache import cache_json

        o.print_json(cache_json(report))
        return
    from sniff.present.terminal.cache import print_cache
    from sniff.present.terminal.safe_console import SafeConsole

    print_cache(SafeConsole(), report)


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
    workspace: Workspace, *, json: bool, verbose: bool, policy_file: Path | None, show: bool
) -> None:
    if policy_file is not None:  # a bad file is a usage error before any log is read
        from sniff.engine import load_policies

        load_policies(policy_file)
    with shown(show):
        report = workspace.break_report(policy_file)
        dataset = workspace.dataset("sized")  # what the report was read from, on the cluster too
    o.report_issues(dataset, verbose)
    if json:
        from sniff.present.json.breaks import breaks_json

        o.print_json(breaks_json(report))
        return
    from sniff.present.terminal.breaks import print_breaks
    from sniff.present.terminal.safe_console import SafeConsole

    print_breaks(SafeConsole(), report, workspace.zone)
