"""Provides the terminal presentation of the cost summary, with rich tables."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import tzinfo

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sniff.analyses.summary import Group, SessionRow, Summary, Totals
from sniff.model import Dataset, LineIssue
from sniff.pricing import PriceSource
from sniff.present.formats import compact, duration, money, percent, tokens

TOP_SESSIONS = 10
RECENT_DAYS = 31


def print_summary(
    console: Console, summary: Summary, dataset: Dataset, prices: PriceSource, zone: tzinfo
) -> None:
    """`sniff scan`: totals, then cost by project, model and day, then the top sessions."""
    print_header(console, summary, dataset, prices, zone)
    console.print(totals_table(summary.totals))
    console.print(breakdown("By project", "project", summary.by_project))
    console.print(breakdown("By model", "model", summary.by_model))
    console.print(breakdown("By agent", "agent", summary.by_agent))
    days = summary.by_day[-RECENT_DAYS:]
    title = "By day" if len(days) == len(summary.by_day) else f"By day (last {len(days)})"
    console.print(breakdown(f"{title}, {zone_name(zone)}", "day", days))
    console.print(sessions_table(summary.sessions[:TOP_SESSIONS], "Top sessions by cost", zone))
    print_warnings(console, summary, dataset)


def print_header(
    console: Console, summary: Summary, dataset: Dataset, prices: PriceSource, zone: tzinfo
) -> None:
    """What was read, over which period, priced with what."""
    if dataset.sample:
        console.print(
            "[yellow]No Claude Code logs found in the usual places: showing the bundled "
            "sample logs.[/] Pass a path to read others."
        )
    period = ""
    if summary.first and summary.last:
        start = summary.first.astimezone(zone).strftime("%Y-%m-%d %H:%M")
        end = summary.last.astimezone(zone).strftime("%Y-%m-%d %H:%M")
        period = f" · {start} → {end}"
    console.print(
        f"[bold]sniff[/] · {summary.totals.requests:,} requests from {len(dataset.files):,} "
        f"files{period} · prices: {prices.library}"
        + (f" (overrides: {', '.join(prices.overrides)})" if prices.overrides else "")
    )


def totals_table(totals: Totals) -> Table:
    """Cost, tokens by class, hit rate and savings."""
    table = Table(title="Totals", show_header=False, title_justify="left", box=None)
    table.add_column(style="bold")
    table.add_column(justify="right")
    cost = money(totals.cost)
    if totals.unpriced_requests and totals.priced_requests:
        cost += f" (+ {totals.unpriced_requests:,} unpriced requests)"
    table.add_row("Cost", cost)
    table.add_row("Requests", tokens(totals.requests))
    table.add_row("Input (uncached)", tokens(totals.input_tokens))
    table.add_row("Cache read", tokens(totals.cache_read_tokens))
    table.add_row("Cache write 5m", tokens(totals.cache_write_5m_tokens))
    table.add_row("Cache write 1h", tokens(totals.cache_write_1h_tokens))
    table.add_row("Output", tokens(totals.output_tokens))
    table.add_row("Cache hit rate", percent(totals.hit_rate))
    table.add_row("Saved by caching", money(totals.savings))
    return table


def breakdown(title: str, key_name: str, groups: Iterable[Group]) -> Table:
    """One row per group with the shared measures."""
    table = _measures_table(title, [key_name])
    for group in groups:
        table.add_row(group.key, *_measures(group.totals))
    return table


def sessions_table(rows: Iterable[SessionRow], title: str, zone: tzinfo) -> Table:
    """One row per session: start, project, agents, then the shared measures."""
    table = _measures_table(title, ["start", "project", "session", "dur.", "agents"])
    for row in rows:
        table.add_row(
            row.start.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
            short_project(row.project),
            row.session_id[:8],
            duration(row.duration_seconds),
            str(len(row.agents)),
            *_measures(row.totals),
        )
    return table


def print_warnings(console: Console, summary: Summary, dataset: Dataset) -> None:
    """What is missing from the numbers or assumed in them, one line each."""
    skipped = dataset.skipped
    if skipped:
        console.print(
            f"[yellow]{len(skipped):,} line(s) skipped[/] (not valid JSON objects); "
            "--verbose lists them."
        )
    for issue in dataset.unreadable:
        console.print(f"[yellow]could not read {issue.file}[/]: {issue.reason}")
    if summary.unpriced_models:
        console.print(
            f"[yellow]Unpriced models[/] (tokens counted, no cost): "
            f"{', '.join(summary.unpriced_models)}. --pricing FILE can price them."
        )
    if summary.ttl_assumed_requests:
        console.print(
            f"{summary.ttl_assumed_requests:,} request(s) wrote cache without saying which TTL: "
            "priced as 5-minute writes."
        )


def print_issues(console: Console, issues: Iterable[LineIssue]) -> None:
    """`--verbose`: every skipped or repaired line as `file:line: reason`."""
    for issue in issues:
        where = issue.file if issue.line == 0 else f"{issue.file}:{issue.line}"
        console.print(Text(f"{where}: {issue.reason}"), highlight=False)


def short_project(project: str) -> str:
    """The last two path components: enough to recognise, short enough for a column."""
    parts = [part for part in project.replace("\\", "/").split("/") if part]
    return "/".join(parts[-2:]) if len(parts) > 2 else project


def zone_name(zone: tzinfo) -> str:
    """The zone's name as a user would type it."""
    return str(getattr(zone, "key", None) or zone)


def _measures_table(title: str, key_columns: list[str]) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold")
    for name in key_columns:
        table.add_column(name, overflow="fold")
    for name in ("requests", "input", "cache read", "write 5m", "write 1h", "output"):
        table.add_column(name, justify="right")
    table.add_column("hit rate", justify="right")
    table.add_column("cost", justify="right")
    table.add_column("saved", justify="right")
    return table


def _measures(totals: Totals) -> list[str]:
    cost = money(totals.cost)
    if totals.unpriced_requests and totals.priced_requests:
        cost += "*"
    return [
        f"{totals.requests:,}",
        compact(totals.input_tokens),
        compact(totals.cache_read_tokens),
        compact(totals.cache_write_5m_tokens),
        compact(totals.cache_write_1h_tokens),
        compact(totals.output_tokens),
        percent(totals.hit_rate),
        cost,
        money(totals.savings),
    ]
