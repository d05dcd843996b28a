"""Provides the terminal presentation of `sniff drift`: the series summary, the events in
sentences, and `--version-compare`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from sniff.analyses.drift.report import NOTES, DriftReport, VersionSide
from sniff.analyses.drift.series import MEASURES, Measure, Series
from sniff.numbers import compact, percent, plural
from sniff.present.json.common import zone_name
from sniff.present.json.drift import sentence, value_text
from sniff.present.terminal.console import measures_table, short_project

SHORT = {
    "hit_rate": "hit",
    "cost_per_request": "$/req",
    "cache_writes_per_request": "writes",
    "break_rate": "breaks",
    "output_per_request": "out",
    "reasoning_per_request": "think",
    "subagent_cost_share": "sub $",
    "compaction_cost_share": "cmp $",
}
SPARE = ("compaction_cost_share", "reasoning_per_request")
"""Measures the terminal table leaves out first when it is narrow (the JSON has them)."""
TOP_VALUES = 8
"""Values shown per dimension in the summary (the JSON holds them all)."""


def cell(measure: Measure, value: float | None) -> str:
    """A level in a table cell."""
    if value is None:
        return "–"
    if measure.unit == "share":
        return percent(value)
    if measure.unit == "usd":
        return f"${value:.4f}"
    return compact(round(value))


def shown_measures(report: DriftReport, width: int) -> list[Measure]:
    """The measures that fit a table `width` columns wide: those above zero somewhere
    (reasoning is zero in logs that do not report it), those of `SPARE` left out while they do
    not fit."""
    overall = report.series[0].total
    measures = [m for m in MEASURES if overall.sums_of(m.key).level]
    fits = 6 if width < 90 else 7 if width < 110 else len(MEASURES)
    for key in SPARE:
        if len(measures) > fits:
            measures = [m for m in measures if m.key != key]
    return measures


def summary_table(report: DriftReport, measures: list[Measure]) -> Table:
    """Each dimension's values over the whole period, the most used first."""
    harnesses = {s.value for s in report.series if s.dimension == "harness"}
    rows, shown = [], dict[str, int]()
    for series in report.series:
        count = shown[series.dimension] = shown.get(series.dimension, 0) + 1
        if count > TOP_VALUES:
            continue
        total = series.total
        levels = [cell(m, total.sums_of(m.key).level) for m in measures]
        value = _value(series, len(harnesses) > 1)
        rows.append([series.dimension, value, f"{total.requests:,}", *levels])
    headers = ["by", "value", "reqs", *(SHORT[m.key] for m in measures)]
    title = "Drift over the period (writes, out, think: tokens per request; $: share of cost)"
    # the values are models among versions and projects: a model loses its date first
    return measures_table(title, headers, rows, text_columns=2, shrinkable=1, dated=True)


def _value(series: Series, harnesses: bool) -> str:
    if series.value is None:
        return "all"
    if series.dimension == "project":
        return short_project(series.value)
    if series.dimension == "version" and not harnesses:
        return series.value.partition(" ")[2]  # one harness: its name says nothing
    return series.value


def events_table(report: DriftReport) -> Table:
    """Each event: when, how many series moved, and what happened in a sentence."""
    table = Table(title=f"Changes ({report.by}, {zone_name(report.zone)})", title_justify="left")
    table.add_column("when", no_wrap=True)
    table.add_column("series", justify="right")
    table.add_column("what changed")
    table.add_column("cause", no_wrap=True)
    for event in report.events:
        cause = "version" if event.attributed else "–"
        table.add_row(event.at, str(len(event.points)), sentence(event), cause)
    return table


def compare_table(sides: tuple[VersionSide, ...]) -> Table:
    """`--version-compare A B`: each measure for both, with the requests behind each."""
    first, second = sides
    headers = ["measure", first.name, "reqs", second.name, "reqs"]
    rows = []
    for measure in MEASURES:
        a, b = first.total.sums_of(measure.key), second.total.sums_of(measure.key)
        rows.append([measure.label, cell(measure, a.level), f"{a.requests:,}",
                     cell(measure, b.level), f"{b.requests:,}"])  # fmt: skip
    return measures_table("Versions compared", headers, rows, text_columns=1)


def print_drift(
    console: Console, report: DriftReport, versions: tuple[VersionSide, ...] = ()
) -> None:
    """`sniff drift` on a terminal."""
    if versions:
        console.print(compare_table(versions))
        return
    if not report.series:
        console.print("No request to follow over time (rollups and failed requests are not).")
        return
    measures = shown_measures(report, console.width)
    console.print(summary_table(report, measures))
    overall = report.series[0].total
    left = [m for m in MEASURES if m not in measures and overall.sums_of(m.key).level]
    if left:
        said = ", ".join(
            f"{m.label} {value_text(m, overall.sums_of(m.key).level or 0.0)}" for m in left
        )
        console.print(f"Overall: {said} (--json: per series and period).")
    if report.events:
        console.print(events_table(report))
    else:
        console.print(f"No change in any series passed the guards ({report.by}).")
    console.print(f"{plural(report.requests, 'request')} counted; " + " ".join(NOTES[:1]))
