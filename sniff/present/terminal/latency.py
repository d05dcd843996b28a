"""Provides the presentation of latency: the histogram on a log axis with its peaks marked,
the peaks explained, peaks over time, goodput, percentiles; and the JSON object."""

from __future__ import annotations

import math
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sniff.analyses.latency.coverage import MEANING, REASONS
from sniff.analyses.latency.measures import ExplainedPeak, Goodput, LatencyReport
from sniff.analyses.latency.valleys import VALLEY_Z
from sniff.numbers import percent, plural, seconds
from sniff.present.terminal.console import measures_table
from sniff.present.terminal.visible import beside_json, beside_table, thinking_json, thinking_table

NAMES = {
    "ttft": "time to first token",
    "visible": "time to first visible token",
    "tpot": "time per output token",
    "e2e": "end to end",
}
BAR_WIDTH = 40


def print_latency(console: Console, report: LatencyReport) -> None:
    """Every part of the report, in the order a reader asks: shape, peaks, causes, targets."""
    name = NAMES[report.metric]
    console.print(
        Text.assemble(
            (f"Latency: {name}", "bold"),
            f" · {report.count:,} requests "
            f"({report.exact:,} exact, {report.count - report.exact:,} approximate)",
        )
    )
    for note in report.notes:
        console.print(f"note: {note}", style="dim")
    if len(report.coverage) > 1 or any(row.measured < row.requests for row in report.coverage):
        console.print(coverage_table(report))
    if report.thinking:  # it needs no timing
        console.print(thinking_table(report.thinking))
    if not report.count:
        console.print("No request in these logs has this timing.")
        return
    console.print(histogram(report))
    if report.beside:
        console.print(beside_table(report.beside))
    if report.explained:
        console.print(_peaks_table(report.explained))
    if report.peaks.valleys:
        console.print(valleys_table(report))
        console.print(VALLEY_RULE.format(VALLEY_Z), style="dim")
    if report.over_time:
        console.print(_over_time_table(report))
    if report.percentiles is not None:
        p = report.percentiles
        console.print(
            measures_table(
                "Percentiles (for reference: they mix the peaks)",
                ["p50", "p90", "p95", "p99", "min", "max", "mean"],
                [[seconds(v) for v in (p.p50, p.p90, p.p95, p.p99, p.minimum, p.maximum, p.mean)]],
                text_columns=0,
            )
        )
    if report.goodput is not None:
        _print_goodput(console, report.goodput)


def histogram(report: LatencyReport) -> Text:
    """One line per log-spaced bucket, its bar, and the peaks marked where they stand."""
    bins = report.peaks.bins
    text = Text()
    if not bins:
        return text
    tallest = max(count for _, _, count in bins) or 1
    marks = {}
    for index, peak in enumerate(report.peaks.peaks):
        for position, (low, high, _) in enumerate(bins):
            if low <= peak.location < high or (position == len(bins) - 1 and peak.location >= low):
                marks[position] = f" ◀ peak {index + 1}: {seconds(peak.location)}"
                break
    for position, (low, high, count) in enumerate(bins):
        label = f"{_edge(low):>8} – {_edge(high):<8}"
        cells = math.ceil(count / tallest * BAR_WIDTH) if count else 0
        text.append(label, style="dim")
        text.append(" " + "█" * cells, style="cyan")
        text.append(f" {count:,}" if count else "")
        if position in marks:
            text.append(marks[position], style="bold")
        text.append("\n")
    return text


def _edge(value: float) -> str:
    """A bucket's edge: below a second with two significant figures, so that narrow buckets
    do not read `1 ms – 1 ms`."""
    if value >= 1:
        return seconds(value)
    if value >= 1e-3:
        return f"{significant(value * 1e3)} ms"
    return f"{significant(value * 1e6)} µs"


def _peaks_table(explained: list[ExplainedPeak]) -> Any:
    rows = []
    for index, item in enumerate(explained, start=1):
        peak = item.peak
        hits = "–" if item.hit_share is None else percent(item.hit_share)
        misses = "–" if item.hit_share is None else percent(1 - item.hit_share)
        model, model_share = item.by_model[0] if item.by_model else ("–", 0.0)
        band, band_share = item.by_output[0] if item.by_output else ("–", 0.0)
        rows.append(
            [
                str(index),
                seconds(peak.location),
                f"{seconds(peak.low)}–{seconds(peak.high)}",
                percent(peak.share),
                f"{item.requests:,}",
                hits,
                misses,
                # the share first, so that a name shortened to fit never takes it with it
                f"{percent(model_share)} {model}",
                f"{percent(band_share)} {band} tokens",
            ]
        )
    headers = ["peak", "at", "range (±1σ)", "share", "reqs", "hits", "misses", "model", "output"]
    return measures_table(
        "Peaks of the distribution", headers, rows, text_columns=3, shrinkable=(7, 8), dated=True
    )


def _over_time_table(report: LatencyReport) -> Any:
    peaks = report.peaks.peaks
    headers = ["period", "reqs", "hit rate"]
    headers += [f"peak {i + 1} ({seconds(p.location)})" for i, p in enumerate(peaks)]
    rows = [
        [period.period, f"{period.requests:,}", percent(period.hit_rate)]
        + [f"{percent(share)}" for share in period.shares]
        for period in report.over_time[-14:]
    ]
    title = "Peaks over time: heights move with the hit rate, locations stay"
    return measures_table(title, headers, rows, text_columns=1)


def _print_goodput(console: Console, goodput: Goodput) -> None:
    targets = ", ".join(f"{metric} ≤ {seconds(value)}" for metric, value in goodput.slo.items())
    total = goodput.total
    rate = ""
    if goodput.per_hour is not None and goodput.per_active_day is not None:
        rate = (
            f", {significant(goodput.per_hour)} per active hour "
            f"({plural(goodput.active_hours, 'hour')} with requests), "
            f"{significant(goodput.per_active_day)} per active day "
            f"({plural(goodput.active_days, 'day')})"
        )
    console.print(
        Text.assemble(
            ("Goodput", "bold"),
            f" ({targets}): {total.good:,} of {total.measured:,} requests "
            f"({percent(total.share)}){rate}"
            + (f"; {goodput.unmeasured:,} not measurable" if goodput.unmeasured else ""),
        )
    )
    for title, rows in (("by day", goodput.by_day[-14:]), ("by model", goodput.by_model[:10])):
        console.print(
            measures_table(
                f"Goodput {title}",
                [title.split()[1], "measured", "good", "share"],
                [[r.key, f"{r.measured:,}", f"{r.good:,}", percent(r.share)] for r in rows],
                text_columns=1,
            )
        )


def significant(value: float, digits: int = 2) -> str:
    """A rate with `digits` significant figures below 10 (`0.52`, `1.4`), whole above (`1,234`)."""
    rounded = float(f"{value:.{digits}g}")
    if rounded == 0 or abs(rounded) >= 10 ** (digits - 1):
        return f"{value:,.0f}"
    return f"{rounded:.{digits - 1 - math.floor(math.log10(abs(rounded)))}f}"


def coverage_table(report: LatencyReport) -> Table:
    """Per harness, the requests this measure rests on, and why the others were not measured."""
    rows = [
        [row.harness, f"{row.requests:,}", f"{row.measured:,}",
         "; ".join(f"{count:,} {REASONS[key]}" for key, count in row.reasons().items())]
        for row in report.coverage
    ]  # fmt: skip
    headers = ["harness", "requests", "measured", "not measured: why"]
    return measures_table(
        "Measured, by harness", headers, rows, text_columns=1, shrinkable=3, caption=MEANING
    )


def valleys_table(report: LatencyReport) -> Any:
    """Between each pair of neighbouring places, how deep the data dip against the noise: why
    two places are two peaks, or one."""
    rows = [
        ["two peaks" if v.apart else "one", seconds(v.left), seconds(v.right), f"{v.depth:.1f}σ"]
        for v in report.peaks.valleys
    ]
    return measures_table("Valleys", ["verdict", "from", "to", "dip"], rows, text_columns=1)


VALLEY_RULE = (
    "Two places are two peaks where the data dip between them by more than {:g} standard "
    "deviations of Poisson noise (σ); else one population."
)


def latency_json(report: LatencyReport) -> dict[str, Any]:
    """The report with stable keys: metric, count, percentiles, peaks, goodput, peaks_over_time."""
    p = report.percentiles
    goodput = report.goodput
    return {
        "metric": report.metric,
        "count": report.count,
        "exact": report.exact,
        "approximate": report.count - report.exact,
        "percentiles": None
        if p is None
        else {
            "p50": p.p50,
            "p90": p.p90,
            "p95": p.p95,
            "p99": p.p99,
            "min": p.minimum,
            "max": p.maximum,
            "mean": p.mean,
        },
        "peaks": [
            {
                "location_s": item.peak.location,
                "low_s": item.peak.low,
                "high_s": item.peak.high,
                "log10_width": item.peak.log_width,
                "share": item.peak.share,
                "requests": item.requests,
                "fit_residual": item.peak.residual,
                "cache_hit_share": item.hit_share,
                "by_model": dict(item.by_model),
                "by_output_tokens": dict(item.by_output),
            }
            for item in report.explained
        ],
        "goodput": None
        if goodput is None
        else {
            "slo_s": goodput.slo,
            "measured": goodput.total.measured,
            "good": goodput.total.good,
            "share": goodput.total.share,
            "good_per_hour": goodput.per_hour,
            "good_per_active_day": goodput.per_active_day,
            "active_hours": goodput.active_hours,
            "active_days": goodput.active_days,
            "unmeasured": goodput.unmeasured,
            "by_day": {r.key: {"measured": r.measured, "good": r.good} for r in goodput.by_day},
            "by_model": {r.key: {"measured": r.measured, "good": r.good} for r in goodput.by_model},
        },
        "peaks_over_time": [
            {
                "period": period.period,
                "requests": period.requests,
                "hit_rate": period.hit_rate,
                "shares": period.shares,
                "medians_s": period.medians,
            }
            for period in report.over_time
        ],
        "histogram": [
            {"low_s": low, "high_s": high, "count": n} for low, high, n in report.peaks.bins
        ],
        "valleys": [
            {"left_s": v.left, "right_s": v.right, "depth_sigma": v.depth, "two_peaks": v.apart}
            for v in report.peaks.valleys
        ],
        "not_measurable": report.not_measurable,
        "coverage": [
            {
                "harness": row.harness,
                "requests": row.requests,
                "measured": row.measured,
                **{key: getattr(row, key) for key in REASONS},
            }
            for row in report.coverage
        ],  # fmt: skip
        "beside_ttft": beside_json(report.beside),
        "thinking_share": thinking_json(report.thinking),
        "notes": report.notes,
    }
