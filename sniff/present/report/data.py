"""Provides the cost report as data (JSON), as one CSV row per group, and as Markdown.

The JSON holds the same objects as `--json` elsewhere (`scan`'s summary, `cache --breaks`'
causes, `cache`'s what-ifs, `lint`'s findings, `blocks --plan`'s plans), and the report's own:
the month's outlook and latency per model group. The CSV has one row per group
of the chosen grouping with the columns of `CSV_COLUMNS`, documented in
docs/commands/report-export.md.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from typing import Any

from sniff.analyses.latency.by_model import REPORTED, ModelLatency
from sniff.analyses.latency.measures import Percentiles
from sniff.analyses.report import Report, period_text
from sniff.numbers import compact, percent, plural
from sniff.present.causes import fix, headline
from sniff.present.json.common import groups_json, summary_json, totals_json, warnings_json
from sniff.present.report.manager import cards, sentences
from sniff.present.report.table import Table
from sniff.present.report.tables import rule_findings, tables
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
    from sniff.present.json.blocks import plan_json
    from sniff.present.json.breaks import (
        agreement_json,
        break_totals_json,
        by_cause_json,
        ttl_advice_json,
    )
    from sniff.present.terminal.cache import cache_json
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
        "provider_agreement": agreement_json(report.breaks),
        "fixes": {row.key: fix(row.key) for row in report.breaks.by_cause if row.faults},
    }
    data["what_if"] = [] if report.cache is None else cache_json(report.cache)["what_if"]
    data["lint"] = [finding_json(finding) for finding in report.dearest_findings]
    data["lint_by_rule"] = [
        {
            "rule": g.rule,
            "summary": g.summary,
            "findings": g.count,
            "saving_usd": round(g.worth_usd, 6),
        }
        for g in rule_findings(report)
    ]
    data["outlook"] = _outlook_json(report)
    data["plans"] = [plan_json(values[0].plan, values) for values in report.plans if values]
    data["latency"] = _latency_json(report)
    data["latency_by_model"] = [_group_json(group) for group in report.latency]
    data["agents"] = agents_json(report.agents) if report.agents is not None else None
    data["by_branch"] = attributed_json(report.branches, "branch")
    for by in ("machine", "user"):  # a team export's: absent otherwise
        if by in report.exporters:
            data[f"by_{by}"] = attributed_json(report.exporters[by], by)
    data["drift"] = _drift_json(report)
    data["commits"] = _commits_json(report)
    data["assumptions"] = assumptions(report)
    return data


def _outlook_json(report: Report) -> dict[str, Any] | None:
    found = report.outlook
    if found is None:
        return None
    return {
        "month": found.month,
        "as_of": found.as_of.isoformat(),
        "month_to_date_usd": round(found.month_to_date, 6),
        "same_point_last_month_usd": round(found.same_point_last_month, 6),
        "previous_month_usd": round(found.previous_month, 6),
        "projected_usd": round(found.projected, 6),
        "projected_low_usd": round(found.low, 6),
        "projected_high_usd": round(found.high, 6),
        "range": "10th to 90th percentile of resampled month ends",
        "days_left": round(found.days_left, 3),
        "sampled_days": found.sampled_days,
    }


def _latency_json(report: Report) -> list[dict[str, Any]]:
    """All models' percentiles per measure, as `sniff latency --json` gives them (its peaks,
    which need scipy, are that command's)."""
    if not report.latency:
        return []
    every = report.latency[0]
    return [
        {
            "metric": metric,
            "count": len(every.values[metric]),
            "exact": every.exact_of[metric],
            "approximate": len(every.values[metric]) - every.exact_of[metric],
            "percentiles": _percentiles_json(every.summary(metric)),
        }
        for metric in REPORTED
    ]


def _group_json(group: ModelLatency) -> dict[str, Any]:
    return {
        "model_group": group.group,
        "timed": group.timed,
        "exact": group.exact,
        **{metric: _percentiles_json(group.summary(metric)) for metric in REPORTED},
    }


def _percentiles_json(found: Percentiles | None) -> dict[str, float] | None:
    if found is None:
        return None
    return {"p50": found.p50, "p90": found.p90, "p95": found.p95, "p99": found.p99,
            "min": found.minimum, "max": found.maximum, "mean": found.mean}  # fmt: skip


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
    if report.latency and report.latency[0].timed > report.latency[0].exact:
        every = report.latency[0]
        said.append(
            f"Latency: {every.timed - every.exact:,} of {every.timed:,} timed requests are timed "
            "approximately (from the times log records were written)."
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
    shown = cards(report)
    lines = [
        "# LLM cost report",
        "",
        f"**Period:** {period_text(report.totals.first, report.totals.last, report.zone)}  ",
        f"**Read:** {markdown_text(sources(report))}",
        "",
        "| " + " | ".join(card.label for card in shown) + " |",
        "|" + "|".join("---:" for _ in shown) + "|",
        "| " + " | ".join(card.value for card in shown) + " |",
        "| " + " | ".join(markdown_text(card.note) for card in shown) + " |",
        "",
        *(line for text in sentences(report) for line in (md_prose(text), "")),
        f"Cache breaks: {headline(report.breaks)}.",
        "",
        f"Tokens: uncached {compact(t.input_tokens)}, cache read {compact(t.cache_read_tokens)}, "
        f"cache written {compact(t.cache_write_5m_tokens + t.cache_write_1h_tokens)}, "
        f"output {compact(t.output_tokens)}.",
    ]
    for table in tables(report):
        lines += _md_section(table, "##")
        if table.anchor == "lint":
            for group in rule_findings(report):
                lines += _md_section(group.findings, "###")
    lines += ["", "## Assumptions", ""] + [
        f"- {markdown_text(text)}" for text in assumptions(report)
    ]
    return "\n".join(lines) + "\n"


def _md_section(table: Table, heading: str) -> list[str]:
    lines = ["", f"{heading} {markdown_text(table.title)}", "", *_md_table(table)]
    return lines + (["", md_prose(table.note)] if table.note else [])


CODE = re.compile(r"`([^`]+)`")


def md_prose(text: str) -> str:
    """sniff's own words as Markdown: escaped, except a `command`, kept as code (whose text
    Markdown never reads as markup)."""
    parts = CODE.split(text)  # even: prose; odd: a code span's text
    return "".join(
        f"`{part}`" if index % 2 else markdown_text(part) for index, part in enumerate(parts)
    )


def _md_table(table: Table) -> list[str]:
    align = ["---" if table.is_text(i) else "---:" for i in range(len(table.headers))]
    return [
        "| " + " | ".join(table.headers) + " |",
        "|" + "|".join(align) + "|",
        *("| " + " | ".join(markdown_text(text) for text, _ in row) + " |" for row in table.rows),
    ]
