"""Provides the presentation of cache breaks in the terminal (JSON: `breaks_json`)."""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from sniff.analyses.cache.breaks import Break, BreakReport, CauseTotals

if TYPE_CHECKING:
    from sniff.analyses.cache.ttl_advice import TtlAdvice, Verdict
    from sniff.analyses.cost.scan_parts import BreakDigest
from sniff.numbers import compact, duration, money, plural
from sniff.present.causes import explain, headline
from sniff.present.terminal.console import measures_table, short_project

LISTED = 25
COUNT_HEADERS = ["faults", "fault cost", "expected", "expected cost", "rebuilt"]


def print_breaks(
    console: Console,
    report: BreakReport,
    zone: tzinfo,
    listed: tuple[int | None, str | None] = (None, None),
) -> None:
    """Breaks by cause, project, week and idle gap; the faults; the TTL advice. `listed`: how
    many faults to list (None: `LISTED`) and the order the report's breaks are in (None: the
    most expensive first).

    Every table counts all breaks, faults and expected ones in columns of their own, so that
    each sums to the header's counts.
    """
    faults = report.faults
    console.print(Text.assemble(("Cache breaks", "bold"), f" · {headline(report)}"))
    console.print(_totals("By cause", "cause", report.by_cause))
    for row in report.by_cause:
        console.print(Text.assemble((row.key, "bold"), f": {explain(row.key)}"), style="dim")
    if report.agreement:
        console.print(agreement_table(report))
    console.print(_totals("By project", "project", report.by_project[:10]))
    if len(report.by_project) > 10:
        console.print(f"(and {len(report.by_project) - 10:,} more projects)", style="dim")
    console.print(_totals("By week", "week", report.by_week))
    limit, order = listed
    shown = min(limit or LISTED, len(faults))
    title = f"Faults by {order}" if order else "Most expensive faults"
    console.print(breaks_table(faults[:shown], f"{title} ({shown:,} of {len(faults):,})", zone))
    gaps = [
        [bucket.label, f"{bucket.requests:,}", *_counts(bucket.breaks)] for bucket in report.gaps
    ]
    console.print(
        measures_table(
            "Idle gaps before requests (TTL 5m, 1h; first: the first of a chain)",
            ["gap", "reqs", *COUNT_HEADERS],
            gaps,
            text_columns=1,
        )
    )
    for line in ttl_advice_lines(report.ttl_advice):
        console.print(line, highlight=False)
    if report.tolerated:
        console.print(
            f"{plural(len(report.tolerated), 'request')} read slightly less than the previous one, "
            "within the tolerance for the uncached tail: not breaks.",
            style="dim",
        )


def ttl_advice_lines(advice: TtlAdvice) -> list[str]:
    """Each provider's longer TTL over everything, the sessions where it pays, and the tools
    that cannot ask for one."""
    lines = []
    for verdict in advice.retentions:
        lines.append(_verdict_line(verdict))
        paying = [v for v in advice.sessions if v.longer == verdict.longer and v.pays]
        if paying:
            listed = ", ".join(f"{v.session} {money(v.net_saving_usd)}" for v in paying[:5])
            more = f" and {len(paying) - 5:,} more" if len(paying) > 5 else ""
            lines.append(
                f"  It pays in {plural(len(paying), 'session')}: {listed}{more}; set it with "
                f"{verdict.longer.setting}."
            )
    for source, requests in advice.no_setting:
        lines.append(
            f"No longer-TTL advice for the {plural(requests, source + ' request')}: that tool "
            "has no setting for a longer cache lifetime."
        )
    return lines


def _verdict_line(verdict: Verdict) -> str:
    longer, net = verdict.longer, verdict.net_saving_usd
    name = longer.name[0].upper() + longer.name[1:]
    if net is None:
        unpriced = plural(verdict.requests, "request")
        return f"{name}: unpriced ({unpriced} of models without a price)."
    outcome = (
        f"would have saved {money(net)}"
        if net > 0
        else f"would have cost {money(-net)} more"
        if net < 0
        else "would have changed nothing"
    )
    writes = (
        f"{money(verdict.extra_write_cost_usd)} more for its writes"
        if longer.write_price
        else "no charge for its writes"
    )
    unpriced = (
        f"; {plural(verdict.unpriced_requests, 'unpriced request')} left out"
        if verdict.unpriced_requests
        else ""
    )
    return (
        f"{name} ({longer.provider}) {outcome}: {writes}, "
        f"{money(verdict.avoided_rebuild_cost_usd)} of rebuilds avoided "
        f"({len(verdict.spared):,} breaks after idle gaps of up to "
        f"{longer.seconds / 60:.0f} minutes){unpriced}."
    )


def breaks_table(breaks: list[Break], title: str, zone: tzinfo) -> Any:
    """One row per break: when, where, the gap, the cause (marked where the provider named it,
    sniff's own inference beside it), tokens and dollars."""
    told = any(found.inferred is not None for found in breaks)
    rows = [
        [
            found.request.when.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
            short_project(found.request.project),
            found.request.session_id[:8],
            "–" if found.gap_seconds is None else duration(found.gap_seconds),
            cause_cell(found),
            *([inferred_cell(found)] if told else []),
            compact(found.rebuilt_tokens),
            money(found.cost_usd),
        ]
        for found in breaks
    ]
    headers = ["time", "project", "session", "gap", "cause", *([SNIFF_INFERS] if told else []),
               "rebuilt", "cost"]  # fmt: skip
    caption = PROVIDER_MARK if told else None
    texts = 6 if told else 5
    return measures_table(title, headers, rows, text_columns=texts, shrinkable=1, caption=caption)


SNIFF_INFERS = "sniff infers"
PROVIDER_MARK = (
    "* the provider's own reason (its cache diagnostics); sniff infers: from usage alone"
)


def cause_cell(found: Break) -> str:
    """A break's cause, `*`-marked where it is the provider's reason."""
    return f"{found.cause}*" if found.inferred is not None else found.cause


def inferred_cell(found: Break) -> str:
    """What sniff inferred where the provider's reason replaced it ("no break": none)."""
    if found.inferred is None:
        return "" if found.said is None else "the same"
    return found.inferred


def agreement_table(report: BreakReport) -> Any:
    """The requests the provider diagnosed: its verdict beside sniff's, and how often they
    agree."""
    rows = [
        [row.sniff, row.provider, "yes" if row.agrees else "no", f"{row.requests:,}",
         compact(row.missed_tokens)]
        for row in report.agreement
    ]  # fmt: skip
    agreed = sum(row.requests for row in report.agreement if row.agrees)
    diagnosed = sum(row.requests for row in report.agreement)
    title = f"The provider's word (agrees with sniff on {agreed:,} of {diagnosed:,} requests)"
    headers = ["sniff", "provider says", "agree", "reqs", "missed"]
    return measures_table(title, headers, rows, text_columns=3)


def print_top_breaks(console: Console, breaks: BreakDigest, zone: tzinfo) -> None:
    """The `sniff scan` section: the dearest breaks and what all of them cost."""
    if not breaks.faults:
        console.print("No cache breaks: every request read the prefix it shared with the last.")
        return
    title = f"Top cache breaks (of {breaks.faults:,})"
    console.print(breaks_table(list(breaks.top), title, zone))
    console.print(
        f"Cache breaks cost {money(breaks.cost_usd)} more than reads would have; "
        "`sniff cache --breaks` explains them all."
    )


def _totals(title: str, key: str, rows: list[CauseTotals]) -> Any:
    cells = [
        [short_project(row.key) if key == "project" else row.key, *_counts(row)] for row in rows
    ]
    return measures_table(title, [key, *COUNT_HEADERS], cells, text_columns=1)


def _counts(row: CauseTotals) -> list[str]:
    return [
        f"{row.faults:,}",
        money(row.fault_cost_usd),
        f"{row.expected:,}",
        money(row.expected_cost_usd),
        compact(row.rebuilt_tokens),
    ]
