"""Provides the cost report as one self-contained HTML page: charts, tables, assumptions.

Everything is inside the file (styles, SVG charts, a few lines of script that sort tables when a
header is clicked), so it opens offline, can be mailed, and prints to PDF as it shows.
"""

from __future__ import annotations

from html import escape
from typing import Any

from sniff.analyses.report import Report, period_text
from sniff.present import report_charts as charts
from sniff.present.causes import headline
from sniff.present.formats import compact, money, percent, seconds
from sniff.present.latency_view import NAMES
from sniff.present.report_data import assumptions, sources

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #222; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.meta { color: #555; } .cards { display: flex; flex-wrap: wrap; gap: .8rem; margin: 1rem 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .9rem; min-width: 8rem; }
.card b { display: block; font-size: 1.3rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; font-size: 13px; }
th, td { padding: .25rem .5rem; border-bottom: 1px solid #e4e4e4; text-align: right; }
th:first-child, td:first-child, td.text { text-align: left; }
th { cursor: pointer; background: #f6f6f6; } th[data-dir]::after { content: " ↕"; color: #999; }
figure { margin: .5rem 0 1rem; } figure svg { width: 100%; height: auto; }
figcaption { color: #555; font-size: 12px; }
@media print { body { margin: 0; max-width: none; } th { cursor: auto; }
  figure, table { break-inside: avoid; } }
"""

SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach((th, column) => {
  th.dataset.dir = "";
  th.addEventListener("click", () => {
    const body = th.closest("table").tBodies[0];
    const up = th.dataset.dir !== "asc";
    th.dataset.dir = up ? "asc" : "desc";
    const value = (row) => {
      const cell = row.cells[column];
      const key = cell.dataset.sort;
      return key !== undefined ? parseFloat(key) : cell.textContent.trim().toLowerCase();
    };
    const rows = Array.from(body.rows);
    rows.sort((a, b) => (value(a) > value(b) ? 1 : value(a) < value(b) ? -1 : 0) * (up ? 1 : -1));
    rows.forEach((row) => body.appendChild(row));
  });
});
"""


def report_html(report: Report) -> str:
    """The whole page."""
    t = report.totals
    breaks = report.breaks
    period = period_text(report.summary.first, report.summary.last, report.zone)
    cards = [
        ("cost", money(t.cost)),
        ("requests", f"{t.requests:,}"),
        ("cache hit rate", percent(t.hit_rate)),
        ("saved by caching", money(t.savings)),
        ("cache breaks", headline(breaks)),
    ]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>LLM cost report · {escape(period)}</title><style>{STYLE}</style></head><body>",
        "<h1>LLM cost report</h1>",
        f"<p class='meta'>{escape(period)} · {escape(sources(report))}</p>",
        "<div class='cards'>",
        *(
            f"<div class='card'>{escape(label)}<b>{escape(value)}</b></div>"
            for label, value in cards
        ),
        "</div>",
        _tokens(report),
        *_charts(report),
        _groups_table(report),
        _breaks_table(report),
        *_extras(report),
        "<h2>Assumptions</h2><ul>",
        *(f"<li>{escape(text)}</li>" for text in assumptions(report)),
        "</ul>",
        f"<script>{SORT_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts)


def _tokens(report: Report) -> str:
    t = report.totals
    return (
        "<p>Tokens: "
        f"uncached input {compact(t.input_tokens)}, cache reads {compact(t.cache_read_tokens)}, "
        f"cache writes {compact(t.cache_write_5m_tokens)} (5m) and "
        f"{compact(t.cache_write_1h_tokens)} (1h), output {compact(t.output_tokens)}.</p>"
    )


def _charts(report: Report) -> list[str]:
    days = [day.key for day in report.days]
    figures = []
    if days:
        costs = [report.cost_by_class.get(day, {}) for day in days]
        figures.append(
            _figure(
                "chart-daily-cost", charts.daily_cost(days, costs), "Cost per day by token class"
            )
        )
        rates = [day.totals.hit_rate for day in report.days]
        figures.append(
            _figure("chart-hit-rate", charts.hit_rate(days, rates), "Cache hit rate per day")
        )
    figures.append(
        _figure(
            "chart-breaks",
            charts.breaks_by_cause(report.breaks.by_cause),
            "What cache breaks cost, by cause",
        )
    )
    for item in report.latency:
        if item.count:
            figures.append(
                _figure(
                    f"chart-latency-{item.metric}",
                    charts.latency_histogram(item),
                    f"Latency: {NAMES[item.metric]}, with the peaks of its distribution",
                )
            )
    return ["<h2>Charts</h2>", *figures]


def _figure(identity: str, svg: str, caption: str) -> str:
    return f"<figure id='{identity}'>{svg}<figcaption>{escape(caption)}</figcaption></figure>"


def _table(headers: list[str], rows: list[list[tuple[str, Any]]], text_columns: int = 1) -> str:
    """A sortable table; each cell is (shown text, sort value or None)."""
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for index, (text, key) in enumerate(row):
            sort = "" if key is None else f" data-sort='{key}'"
            kind = " class='text'" if index < text_columns else ""
            cells.append(f"<td{kind}{sort}>{escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"<table class='sortable'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _groups_table(report: Report) -> str:
    rows = []
    for group in report.groups:
        g = group.totals
        rows.append(
            [
                (group.key, None),
                (f"{g.requests:,}", g.requests),
                (money(g.cost), g.cost_usd),
                (percent(g.hit_rate), g.hit_rate or 0),
                (money(g.savings), g.savings or 0),
                (compact(g.total_tokens), g.total_tokens),
            ]
        )
    headers = [report.by, "requests", "cost", "hit rate", "saved", "tokens"]
    return f"<h2>Cost by {escape(report.by)}</h2>" + _table(headers, rows)


def _breaks_table(report: Report) -> str:
    rows = [
        [
            (row.key, None),
            (f"{row.breaks:,}", row.breaks),
            ("yes" if row.faults else "no", None),
            (compact(row.rebuilt_tokens), row.rebuilt_tokens),
            (money(row.cost_usd), row.cost_usd),
        ]
        for row in report.breaks.by_cause
        if row.breaks
    ]
    headers = ["cause", "breaks", "fault", "rebuilt tokens", "cost"]
    note = (
        "<p class='meta'>Cold starts, compactions and thinking dropped at a new user turn are "
        "expected: how caching works, not faults.</p>"
    )
    return "<h2>Cache breaks by cause</h2>" + _table(headers, rows) + note


def _extras(report: Report) -> list[str]:
    parts = []
    if report.cache is not None and report.cache.what_if:
        rows = [
            [
                (what.label, None),
                (what.description, None),
                (money(what.measures.cost_usd), what.measures.cost_usd),
                (money(what.delta_usd), what.delta_usd or 0),
            ]
            for what in sorted(report.cache.what_if, key=lambda w: w.delta_usd or 0.0)
        ]
        parts += ["<h2>What another cache policy would have cost</h2>"]
        parts.append(_table(["policy", "what it does", "cost", "difference"], rows, 2))
    if report.lint:
        rows = [
            [
                (f.rule, None),
                (f.where, None),
                (f.message, None),
                (money(f.saving.usd) if f.saving else "–", f.saving.usd if f.saving else 0),
            ]
            for f in report.lint
        ]
        parts += ["<h2>Prompt findings (sniff lint)</h2>"]
        parts.append(_table(["rule", "where", "what", "worth"], rows, 3))
    for item in report.latency:
        if not item.explained:
            continue
        rows = [
            [
                (str(i), i),
                (seconds(p.peak.location), p.peak.location),
                (f"{seconds(p.peak.low)} – {seconds(p.peak.high)}", p.peak.low),
                (percent(p.peak.share), p.peak.share),
                (percent(p.hit_share), p.hit_share or 0),
            ]
            for i, p in enumerate(item.explained, start=1)
        ]
        parts.append(f"<h2>Latency peaks: {escape(NAMES[item.metric])}</h2>")
        parts.append(_table(["peak", "at", "range", "share", "cache hits"], rows, 0))
    if report.agents is not None:
        from sniff.present.report_agents import sections

        for title, headers, agent_rows, text_columns in sections(report.agents):
            parts.append(f"<h2>{escape(title)}</h2>")
            parts.append(_table(headers, agent_rows, text_columns))
    return parts
