"""Provides `sniff cache`: observed vs simulated caching, the simulation's error, what-ifs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted

if TYPE_CHECKING:
    from sniff.analyses.breaks import BreakReport
    from sniff.model import Dataset

POLICY_NAMES = ("anthropic", "openai", "ideal", "engine")


def register(app: typer.Typer) -> None:
    """Add the command to the app."""
    app.command("cache")(cache)


@one_line_errors
def cache(
    paths: o.Paths = None,
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
        typer.Option("--min-tokens", help="Smallest cacheable prefix, in tokens.", min=0),
    ] = None,
    kv_tokens: Annotated[
        int | None,
        typer.Option("--kv-tokens", help="KV-cache capacity of the engine policy.", min=1),
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
    since: o.Since = None,
    until: o.Until = None,
    project: o.ProjectFilter = None,
    model: o.ModelFilter = None,
    agent: o.AgentFilter = None,
    tz: o.Zone = None,
    json: o.Json = False,
    pricing: o.Pricing = None,
    log_format: o.LogFormat = None,
    no_index: o.NoIndex = False,
    no_progress: o.NoProgress = False,
    dask: o.Dask = None,
    verbose: o.Verbose = False,
) -> None:
    """Observed vs simulated caching, the simulation's error, what-ifs, shared prefixes.

    With --breaks: every request that re-paid for its cached prefix, its cause and its price.
    """
    if breaks:
        # --policy-file stays: its thinking rules decide which breaks are expected
        _simulation_only(policy=policy, ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens)
        _breaks(
            paths, since=since, until=until, project=project, model=model, agent=agent, tz=tz,
            json=json, pricing=pricing, log_format=log_format, verbose=verbose,
            no_index=no_index, dask=dask, policy_file=policy_file,
            show=wanted(json=json, no_progress=no_progress),
        )  # fmt: skip
        return
    from sniff.analyses.cache import OWN_POLICY, analyze_cache
    from sniff.engine import load_policies, own_with_overrides, what_if_policies, with_overrides
    from sniff.errors import UserError

    policies = load_policies(policy_file)
    if policy is not None and policy not in POLICY_NAMES:
        raise UserError(f"--policy must be one of {', '.join(POLICY_NAMES)}, not {policy!r}")
    if ttl is not None and ttl not in ("5m", "1h"):
        raise UserError(f"--ttl must be 5m or 1h, not {ttl!r}")
    chosen = None
    if policy is not None or kv_tokens is not None:
        # one policy for every request: a TTL it does not offer is a usage error
        chosen = with_overrides(
            policies[policy or "engine"], ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens
        )
    elif ttl is not None or min_tokens is not None:
        policies = own_with_overrides(
            policies, set(OWN_POLICY.values()), ttl=ttl, min_tokens=min_tokens
        )
    what_ifs = what_if_policies(policies, kv_tokens)
    with shown(wanted(json=json, no_progress=no_progress)):
        selection = o.select(
            paths, since=since, until=until, project=project, model=model, agent=agent, tz=tz,
            pricing=pricing, log_format=log_format, with_prompts=True, no_index=no_index,
            dask=dask,
        )  # fmt: skip
        report = analyze_cache(
            selection.dataset.requests,
            selection.prices,
            policies,
            chosen=chosen,
            what_ifs=what_ifs,
            keep=selection.filters.keep,
        )
    o.report_issues(selection.dataset, verbose)
    if json:
        from sniff.present.cache_view import cache_json
        from sniff.present.jsonout import dumps

        typer.echo(dumps(cache_json(report)))
        return
    from rich.console import Console

    from sniff.present.cache_view import print_cache

    print_cache(Console(), report)


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
    paths: o.Paths,
    *,
    since: str | None,
    until: str | None,
    project: str | None,
    model: str | None,
    agent: str | None,
    tz: str | None,
    json: bool,
    pricing: Path | None,
    log_format: str | None,
    verbose: bool,
    no_index: bool,
    dask: str | None,
    policy_file: Path | None,
    show: bool,
) -> None:
    filters, zone, prices = o.check(
        since=since, until=until, project=project, model=model, agent=agent, tz=tz,
        pricing=pricing, log_format=log_format,
    )  # fmt: skip
    if policy_file is not None:  # a bad file is a usage error before any log is read
        from sniff.engine import load_policies

        load_policies(policy_file)
    report: BreakReport
    dataset: Dataset
    with shown(show):
        if dask:
            from sniff import dask_backend
            from sniff.dask_cluster import cluster

            with cluster(dask) as client:
                report, dataset = dask_backend.breaks(
                    client, paths, pricing, filters, zone, log_format=log_format,
                    policy_file=policy_file,
                )  # fmt: skip
            o.require_logs(dataset, paths)
        else:
            from sniff.analyses.breaks import CacheRules, find_breaks

            dataset = o.load(
                paths, filters, prices, pricing=pricing, log_format=log_format,
                with_prompts="sized",  # as scan reads them, so both report the same breaks
                no_index=no_index,
            )  # fmt: skip
            rules = CacheRules(policy_file)
            report = find_breaks(dataset.requests, prices, rules, zone=zone, keep=filters.keep)
    o.report_issues(dataset, verbose)
    if json:
        from sniff.present.breaks_json import breaks_json
        from sniff.present.jsonout import dumps

        typer.echo(dumps(breaks_json(report)))
        return
    from rich.console import Console

    from sniff.present.breaks_view import print_breaks

    print_breaks(Console(), report, zone)
