"""Provides the cost report as data (JSON), as one CSV row per group, and as Markdown.

The JSON holds the same objects as `--json` elsewhere (`scan`'s summary, `cache --breaks`'
causes, `cache`'s what-ifs, `lint`'s findings, `latency`'s peaks). The CSV has one row per group
of the chosen grouping with the columns of `CSV_COLUMNS`, documented in
docs/commands/report-export.md.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from typing import Any

from sniff.analyses.report import Report, period_text
from sniff.numbers import compact, money, percent, plural
from sniff.present.causes import headline
from sniff.present.json.common import groups_json, summary_json, totals_json, warnings_json
from sniff.present.report.tables import Table, tables
from sniff.present.terminal.agents import agents_json
from sniff.present.terminal.branches import attributed_json
from sniff.shown import csv_cell, markdown_text

CSV_COLUMNS = (
    "requests",
    "input_tokens",
    "cache_read_tokens",
    "cache_write_5m_tokens",
    "cache_write_1h_tokens",
    "output_tokens",
    "reasoning_tokens",
    "prompt_tokens",
    "total_tokens",
    "cost_usd",
    "hit_rate",
    "savings_usd",
    "unpriced_requests",
)
"""After the group's key (named after the grouping: `day`, `project`, ...)."""


def report_json(report: Report) -> dict[str, Any]:
    """Everything in the report, with stable keys."""
    from sniff.present.json.breaks import break_totals_json, by_cause_json, ttl_advice_json
    from sniff.present.terminal.cache import cache_json
    from sniff.present.terminal.latency import latency_json
    from sniff.present.terminal.lint import finding_json

    data = summary_json(report.summary, report.dataset, report.source)
    data["by"] = report.by
    data["groups"] = groups_json(report.by, report.groups)
    data["breaks"] = {
        "count": len(report.breaks.faults),
        "cost_usd": round(report.breaks.fault_cost_usd, 6),
        "totals": break_totals_json(report.breaks),
        "by_cause": by_cause_json(report.breaks),
        "ttl_advice": ttl_advice_json(report.breaks),
    }
    data["what_if"] = [] if report.cache is None else cache_json(report.cache)["what_if"]
    data["lint"] = [finding_json(finding) for finding in report.lint]
    data["latency"] = [latency_json(item) for item in report.latency]
    data["agents"] = agents_json(report.agents) if report.agents is not None else None
    data["by_branch"] = attributed_json(report.branches, "branch")
    data["drift"] = _drift_json(report)
    data["commits"] = _commits_json(report)
    data["assumptions"] = assumptions(report)
    return data


def _commits_json(report: Report) -> dict[str, Any] | None:
    """`sniff commits --json`'s keys, the dearest `COMMITS_SHOWN` commits; None when the logs
    hold no commit made in a session."""
    from sniff.present.report.tables import dearest_commits
    from sniff.present.terminal.commits import commits_json

    if report.commits is None or not report.commits.commits:
        return None
    return commits_json(
        dataclasses.replace(report.commits, commits=dearest_commits(report.commits))
    )


def _drift_json(report: Report) -> dict[str, Any] | None:
    """The weekly hit rate and `sniff drift --json`'s events."""
    if report.drift is None:
        return None
    from sniff.analyses.drift.report import weekly
    from sniff.present.json.drift import event_json

    drift = report.drift
    weeks = weekly(drift.series[0]) if drift.series else []
    return {
        "weekly_hit_rate": [
            {"week": week, "requests": b.requests, "hit_rate": b.sums_of("hit_rate").level}
            for week, b in weeks
        ],
        "events": [event_json(event, drift.zone) for event in drift.events],
    }


def report_csv(report: Report) -> str:
    """One row per group: its key, then CSV_COLUMNS."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([report.by, *CSV_COLUMNS])
    for group in report.groups:
        row = totals_json(group.totals)
        values = ("" if row[key] is None else row[key] for key in CSV_COLUMNS)
        writer.writerow([csv_cell(group.key), *values])
    return out.getvalue()


def assumptions(report: Report) -> list[str]:
    """What the figures rest on, in sentences."""
    warnings = warnings_json(report.summary, report.dataset)
    said = [
        f"Prices: {report.source.library}, per model at each request's date; cost is never "
        "estimated for a model without a published price (it is counted as unpriced).",
        "Hit rate = cache reads / all prompt tokens (token-weighted). Savings = the cost with "
        "every prompt token at the base input price, minus the actual cost.",
    ]
    if warnings["ttl_assumed_requests"]:
        said.append(
            f"{warnings['ttl_assumed_requests']:,} requests did not say which cache TTL their "
            "writes used: 5 minutes was assumed."
        )
    if warnings["unpriced_models"]:
        said.append("Unpriced models: " + ", ".join(warnings["unpriced_models"]) + ".")
    if warnings["skipped_lines"]:
        said.append(
            f"Log lines skipped as unreadable or implausible: {warnings['skipped_lines']:,}."
        )
    if warnings["unparseable_timestamps"]:
        said.append(
            "Log lines with a timestamp that could not be read, dated by their other times or "
            f"their file's: {warnings['unparseable_timestamps']:,}."
        )
    for item in report.latency:
        if item.count > item.exact:
            said.append(
                f"Latency ({item.metric}): {item.count - item.exact:,} of {item.count:,} values "
                "are approximate (from the times log records were written)."
            )
    if report.cache is not None:
        said.append(
            "What-ifs are the cache engine's replay of the same requests; its error against "
            f"the reported cache reads on these logs is {percent(report.cache.error.bias)}."
        )
    return said


def sources(report: Report) -> str:
    """What was read, in a line: the Markdown and the HTML show the same words."""
    dataset = report.dataset
    formats = ", ".join(f"{count:,} {name}" for name, count in sorted(dataset.formats.items()))
    skipped = len(dataset.skipped)
    return (
        f"{plural(len(dataset.files), 'log file')} ({formats or 'none'}), "
        f"{plural(skipped, 'line')} skipped"
    )


def report_markdown(report: Report) -> str:
    """A document for a pull request or a wiki page."""
    t = report.totals
    lines = [
        "# LLM cost report",
        "",
        f"**Period:** {period_text(report.totals.first, report.totals.last, report.zone)}  ",
        f"**Read:** {markdown_text(sources(report))}",
        "",
        "| cost | requests | hit rate | saved by caching | cache breaks |",
        "|---:|---:|---:|---:|---:|",
        f"| {money(t.cost)} | {t.requests:,} | {percent(t.hit_rate)} | {money(t.savings)} | "
        f"{headline(report.breaks)} |",
        "",
        f"Tokens: uncached {compact(t.input_tokens)}, cache read {compact(t.cache_read_tokens)}, "
        f"cache written {compact(t.cache_write_5m_tokens + t.cache_write_1h_tokens)}, "
        f"output {compact(t.output_tokens)}.",
    ]
    for table in tables(report):
        lines += ["", f"## {table.title}", "", *_md_table(table)]
        lines += ["", table.note] if table.note else []
    lines += ["", "## Assumptions", ""] + [
        f"- {markdown_text(text)}" for text in assumptions(report)
    ]
    return "\n".join(lines) + "\n"


def _md_table(table: Table) -> list[str]:
    align = ["---" if table.is_text(i) else "---:" for i in range(len(table.headers))]
    return [
        "| " + " | ".join(table.headers) + " |",
        "|" + "|".join(align) + "|",
        *("| " + " | ".join(markdown_text(text) for text, _ in row) + " |" for row in table.rows),
    ]
