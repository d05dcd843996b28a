"""Provides the terminal presentation of the cost summary, with rich tables."""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from datetime import tzinfo
from typing import TextIO

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from sniff.analyses.cost.summary import Group, SessionRow, Summary, Totals
from sniff.model import Dataset, LineIssue
from sniff.model_names import table_names
from sniff.numbers import compact, duration, money, percent, plural, tokens
from sniff.present.json.common import zone_name
from sniff.present.terminal.layout import PATH_HEADERS, fit_paths, plan
from sniff.present.terminal.layout import elide as elide
from sniff.present.terminal.layout import fit_names as fit_names
from sniff.present.terminal.layout import short_project as short_project
from sniff.present.terminal.safe_console import styled
from sniff.pricing import PriceSource
from sniff.shown import terminal

ROLLUPS_NOTE = (
    "{} counted from the totals their agent logged (Droid, Goose): no requests in them, "
    "and left out of cache breaks and latency."
)
TOP_SESSIONS = 10
RECENT_DAYS = 31


def print_summary(
    console: Console,
    summary: Summary,
    dataset: Dataset,
    prices: PriceSource,
    zone: tzinfo,
    top: tuple[int | None, str] = (None, "cost"),
) -> None:
    """`sniff scan`: totals, then cost by project, model and day, then the top sessions: the
    first of `summary.sessions` as `top` says, how many (None: `TOP_SESSIONS`) and the order
    they are in (its `--limit` and `--sort`)."""
    print_header(console, summary, dataset, prices, zone)
    if not summary.totals.requests and not summary.totals.rollups:
        console.print(
            f"Nothing to count: no request in {plural(len(dataset.files), 'file')} read"
            + "".join(f", {count:,} as {name}" for name, count in sorted(dataset.formats.items()))
            + (" (each is named below, with why)." if dataset.empty_files else ".")
        )
        print_warnings(console, summary, dataset)
        return
    console.print(totals_table(summary.totals))
    console.print(breakdown("By project", "project", summary.by_project))
    console.print(breakdown("By model", "model", summary.by_model))
    console.print(breakdown("By agent", "agent", summary.by_agent))
    console.print(harness_table(summary.by_harness))
    days = summary.by_day[-RECENT_DAYS:]
    title = "By day" if len(days) == len(summary.by_day) else f"By day (last {len(days)})"
    console.print(breakdown(f"{title}, {zone_name(zone)}", "day", days))
    shown, order = top
    console.print(
        sessions_table(summary.sessions[: shown or TOP_SESSIONS], f"Top sessions by {order}", zone)
    )
    print_warnings(console, summary, dataset)


def print_header(
    console: Console, summary: Summary, dataset: Dataset, prices: PriceSource, zone: tzinfo
) -> None:
    """What was read, over which period, priced with what."""
    if dataset.sample:
        console.print(
            Text.assemble(
                ("No agent logs found in the usual places: showing the bundled sample logs.",
                 "yellow"),
                " Pass a path to read others.",
            )
        )  # fmt: skip
    period, first, last = "", summary.totals.first, summary.totals.last
    if first and last:
        start = first.astimezone(zone).strftime("%Y-%m-%d %H:%M")
        end = last.astimezone(zone).strftime("%Y-%m-%d %H:%M")
        period = f" · {start} → {end}"
    console.print(
        Text.assemble(("sniff", "bold"), " · ")
        + f"{plural(summary.totals.requests, 'request')} from "
        f"{plural(len(dataset.files), 'file')}{period} · prices: {prices.library}"
        + (f" (overrides: {', '.join(prices.overrides)})" if prices.overrides else "")
    )


def totals_table(totals: Totals) -> Table:
    """Cost, tokens by class, hit rate and savings."""
    table = Table(
        title="Totals", show_header=False, title_justify="left", title_style="bold", box=None
    )
    table.add_column(style="bold")
    table.add_column(justify="right")
    cost = money(totals.cost)
    if totals.unpriced_requests:
        cost += (
            f" (+ {totals.unpriced_requests:,} unpriced requests)" if totals.priced_requests else ""
        )
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
    """One row per group: requests, tokens by class, hit rate, cost, savings."""
    rows, headers = _breakdown_rows(key_name, groups)
    return measures_table(title, headers, rows, text_columns=1, dated=key_name == "model")


def _breakdown_rows(key_name: str, groups: Iterable[Group]) -> tuple[list[list[str]], list[str]]:
    rows = [
        [
            short_project(group.key) if key_name == "project" else group.key,
            requests_cell(group.totals),
            compact(group.totals.input_tokens),
            compact(group.totals.cache_read_tokens),
            compact(group.totals.cache_write_5m_tokens + group.totals.cache_write_1h_tokens),
            compact(group.totals.output_tokens),
            percent(group.totals.hit_rate),
            cost_cell(group.totals),
            money(group.totals.savings),
        ]
        for group in groups
    ]
    headers = [key_name, "reqs", "input", "read", "write", "output", "hit", "cost", "saved"]
    return rows, headers


def harness_table(groups: list[Group]) -> Table:
    """One row per agent: requests (and the whole sessions it logged only as totals), tokens,
    hit rate, cost, savings; where agents logged their own cost, it and the difference
    (sniff's cost minus theirs, over the requests that have both). Tokens are not split by
    class here, so that the table fits 80 columns: the other tables split them."""
    reported = any(group.totals.reported_requests for group in groups)
    rows = []
    for group in groups:
        totals = group.totals
        requests = f"{totals.requests:,}"
        if totals.rollups:
            sessions = f"+{totals.rollups} sess."
            requests = f"{requests} {sessions}" if totals.requests else sessions
        row = [
            group.key,
            requests,
            compact(totals.total_tokens),
            percent(totals.hit_rate),
            cost_cell(totals),
            money(totals.savings),
        ]
        if reported:
            row += (
                [money(totals.reported_usd), money(totals.reported_difference)]
                if totals.reported_requests
                else ["-", "-"]
            )
        rows.append(row)
    headers = ["harness", "reqs", "tokens", "hit", "cost", "saved"]
    headers += ["agent's", "diff"] if reported else []
    return measures_table("By harness", headers, rows, text_columns=1)


def sessions_table(rows: Sequence[SessionRow], title: str, zone: tzinfo) -> Table:
    """One row per session: start, project, duration, agents, requests, tokens, hit rate, cost
    (and whose, where other agents' sessions are among them)."""
    cells = [
        [
            row.start.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
            short_project(row.project),
            row.session_id[:8],
            duration(row.duration_seconds),
            str(len(row.agents)),
            requests_cell(row.totals),
            compact(row.totals.total_tokens),
            percent(row.totals.hit_rate),
            cost_cell(row.totals),
        ]
        for row in rows
    ]
    headers = ["start", "project", "session", "dur.", "ag.", "reqs", "tokens", "hit", "cost"]
    if {row.harness for row in rows} - {"claude-code"}:  # whose sessions, where they mix
        headers.insert(1, "harness")
        for cell, row in zip(cells, rows, strict=True):
            cell.insert(1, row.harness)
        return measures_table(title, headers, cells, text_columns=4, shrinkable=2)
    return measures_table(title, headers, cells, text_columns=3, shrinkable=1)


def print_warnings(console: Console, summary: Summary, dataset: Dataset) -> None:
    """What is missing from the numbers or assumed in them, one line each (the files that
    could not be read are named on the error stream: `cli.options.report_issues`)."""
    skipped = dataset.skipped
    if skipped:
        console.print(
            Text.assemble(
                (f"{plural(len(skipped), 'line')} skipped", "yellow"),
                " (unreadable or implausible); --verbose lists them.",
            )
        )
    if dataset.undated:
        console.print(
            f"{plural(len(dataset.undated), 'line')} with a timestamp sniff cannot read: dated "
            "by its other times or its file's; --verbose lists them."
        )
    for path in dataset.unknown_files:
        console.print(
            Text.assemble(("not a log format sniff reads:", "yellow"), " ", styled(path)),
            highlight=False,
        )
    if summary.totals.failed_requests:
        console.print(
            f"{plural(summary.totals.failed_requests, 'request')} failed (no response or an error "
            "status): counted, at no cost."
        )
    if summary.unpriced_models:
        console.print(
            Text.assemble(
                ("Unpriced models", "yellow"),
                " (tokens counted, no cost): ",
                styled(", ".join(summary.unpriced_models)),
                ". --pricing FILE can price them.",
            )
        )
    if summary.totals.ttl_assumed:
        console.print(
            f"{plural(summary.totals.ttl_assumed, 'request')} wrote cache without saying which "
            "TTL: priced as 5-minute writes."
        )
    if summary.totals.rollups:
        console.print(ROLLUPS_NOTE.format(plural(summary.totals.rollups, "session")))
    notes = (telemetry_note(summary.totals), proxy_note(summary.totals), duplicates_note(dataset))
    for note in notes:
        if note:
            console.print(note)
    empty = set(dataset.empty_files)
    for issue in dataset.issues:
        if issue.file in empty and issue.line == 0:
            console.print(
                Text.assemble(("held no usage:", "yellow"), " ", styled(issue.file)),
                highlight=False,
            )
            console.print(f"  {issue.reason}", style="dim", highlight=False)


def telemetry_note(totals: Totals) -> str:
    """How many requests the agents' own telemetry reported, and how each was counted once."""
    joined = totals.joined_by_request_id + totals.joined_by_tokens_and_time
    if not joined and not totals.telemetry_only:
        return ""
    ways = [f"{count:,} by {how}" for count, how in (
        (totals.joined_by_request_id, "request id"),
        (totals.joined_by_tokens_and_time, "model, tokens and start within 2 s"),
    ) if count]  # fmt: skip
    said = f" ({', '.join(ways)})" if ways else ""
    return (
        f"OpenTelemetry: {plural(joined, 'request')} joined to the same call in another log"
        f"{said}, timed and costed by the agent; "
        f"{plural(totals.telemetry_only, 'request')} from telemetry alone."
    )


def proxy_note(totals: Totals) -> str:
    """How many requests `sniff proxy` recorded, and how many a transcript also held."""
    if not totals.proxy_joined and not totals.proxy_only:
        return ""
    return (
        f"sniff proxy: {plural(totals.proxy_joined, 'request')} joined to "
        f"{'its' if totals.proxy_joined == 1 else 'their'} transcript by response id, timed "
        f"by the proxy; {plural(totals.proxy_only, 'request')} from its record alone."
    )


def duplicates_note(dataset: Dataset) -> str:
    """How many rows of team folders two machines exported, counted once (to the first)."""
    from sniff.ingest.parquet_in import dropped

    count = dropped(dataset.files)
    if not count:
        return ""
    return (
        f"Team export: {plural(count, 'request')} exported by two machines, counted once "
        "(credited to the machine that exported first)."
    )


def print_issues(stream: TextIO, issues: Iterable[LineIssue]) -> None:
    """`--verbose`: every skipped or repaired line as `file:line: reason`, one per line.

    Plain text, never wrapped, so the list can be grepped and its paths copied.
    """
    for issue in issues:
        where = issue.file if issue.line == 0 else f"{issue.file}:{issue.line}"
        stream.write(terminal(f"{where}: {issue.reason}", lines=False) + "\n")


def measures_table(
    title: str,
    headers: list[str],
    rows: list[list[str]],
    *,
    text_columns: int,
    shrinkable: int | Sequence[int] = 0,
    dated: bool = False,
    caption: str | None = None,
) -> Table:
    """A table laid out by `layout.plan` for the terminal's width: its lowest-priority columns
    left out (and named under it) before the `shrinkable` text columns are shortened, by
    `fit_paths` for projects, else by `fit_names` (`dated`: they are model names); money, hit
    rates, requests and every other number whole. Cells are measured as they will be shown
    (`shown.terminal`): a redacted key is shorter than the key. `caption` goes under it, above
    the names of the columns left out."""
    shrink = {shrinkable} if isinstance(shrinkable, int) else set(shrinkable)
    rows = [[terminal(cell, lines=False) for cell in row] for row in rows]
    if dated:
        rows = _family_names(rows, text_columns)
    columns = shutil.get_terminal_size().columns
    layout = plan(headers, rows, columns, shrink, dated=dated)
    fitted = _fitted(headers, rows, layout.widths, dated)
    slack = [
        i for i, width in layout.widths.items() if rows and max(len(r[i]) for r in fitted) < width
    ]
    if slack:  # a name shortened more than its width asked (a date gone): its room to others
        measured = [
            [cell if i not in slack else short[i] for i, cell in enumerate(row)]
            for row, short in zip(rows, fitted, strict=True)
        ]
        layout = plan(headers, measured, columns, shrink, dated=dated)
        fitted = _fitted(headers, rows, layout.widths, dated)
    rows = fitted
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        header_style="bold",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        caption="\n".join(
            line for line in (caption, _starred(rows), _left_out(layout.dropped)) if line
        )
        or None,
        caption_justify="left",
    )
    for index in layout.kept:
        if index in layout.widths:
            table.add_column(
                headers[index], no_wrap=True, overflow="ellipsis", max_width=layout.widths[index]
            )
        else:
            numeric = index >= text_columns
            table.add_column(headers[index], justify="right" if numeric else "left", no_wrap=True)
    for row in rows:
        table.add_row(*(row[index] for index in layout.kept))
    return table


def _family_names(rows: list[list[str]], text_columns: int) -> list[list[str]]:
    """Model names in the text columns by their family (`table_names`: the dated id only
    where two would read the same), at every width: one form in every table; JSON keeps the
    dated ids."""
    rows = [row[:] for row in rows]
    for index in range(text_columns):
        names = table_names([row[index] for row in rows])
        for row, name in zip(rows, names, strict=True):
            row[index] = name
    return rows


def _left_out(headers: Sequence[str]) -> str:
    """The line that names the columns too wide to show, and where to find them."""
    if not headers:
        return ""
    return f"not shown at this width: {', '.join(headers)} (--json has every column)"


def _fitted(
    headers: list[str], rows: list[list[str]], widths: dict[int, int], dated: bool
) -> list[list[str]]:
    """`rows` with each column of `widths` shortened to its width."""
    rows = [row[:] for row in rows]
    for index, width in widths.items():
        cells = [row[index] for row in rows]
        if headers[index] in PATH_HEADERS:
            cells = fit_paths(cells, width)
        else:
            cells = fit_names(cells, width, dated=dated)
        for row, cell in zip(rows, cells, strict=True):
            row[index] = cell
    return rows


TOTALS_ONLY = "totals"
"""The requests cell of a row counted only from sessions' totals (Droid, Goose): no request in
it to count, which `0` would misread as a row of nothing."""
TOTALS_MARK = "totals: counted from sessions' totals the agent logged, with no request in them"


def requests_cell(totals: Totals) -> str:
    """A row's requests; `totals` for one that holds only sessions logged as totals."""
    return TOTALS_ONLY if totals.rollups and not totals.requests else f"{totals.requests:,}"


UNPRICED_MARK = "* leaves out requests of a model with no known price (their tokens count)"
"""What the `*` after a cost says, under every table that shows one."""


def _starred(rows: list[list[str]]) -> str | None:
    """The meaning of `cost_cell`'s mark, where a row of the table carries it."""
    marks = []
    if any(cell.startswith("$") and cell.endswith("*") for row in rows for cell in row):
        marks.append(UNPRICED_MARK)
    if any(TOTALS_ONLY in row for row in rows):
        marks.append(TOTALS_MARK)
    return "\n".join(marks) or None


def cost_cell(totals: Totals) -> str:
    """The cost; a `*` marks a total that leaves out unpriced requests."""
    cost = money(totals.cost)
    return cost + "*" if totals.unpriced_requests and totals.priced_requests else cost
