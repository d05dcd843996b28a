"""Provides the cost report as one self-contained HTML page: charts, tables, assumptions.

Everything is inside the file (styles, SVG charts, a few lines of script that sort tables when a
header is clicked), so it opens offline, can be mailed, and prints to PDF as it shows.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from sniff.analyses.report import Report, period_text
from sniff.numbers import compact, money, percent
from sniff.present.causes import headline
from sniff.present.report import charts
from sniff.present.report.data import assumptions, sources
from sniff.present.report.tables import Table, tables
from sniff.present.terminal.latency import NAMES
from sniff.shown import html_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; color: #222; max-width: 60rem; margin: 2rem auto;
       padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
.meta { color: #555; } .cards { display: flex; flex-wrap: wrap; gap: .8rem; margin: 1rem 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .9rem; min-width: 8rem; }
.card b { display: block; font-size: 1.3rem; }
.scroll { overflow-x: auto; margin: .5rem 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: .25rem .5rem; border-bottom: 1px solid #e4e4e4; text-align: right;
         white-space: nowrap; }
th:first-child, td:first-child, .text { text-align: left; } td.text { white-space: normal; }
td.word { white-space: nowrap; }
th { cursor: pointer; background: #f6f6f6; white-space: nowrap; }
th[data-dir]::after { content: " ↕"; color: #999; }
figure { margin: .5rem 0 1rem; } figure svg { display: block; width: 100%; height: auto; }
figcaption { color: #555; font-size: 12px; } .narrow { display: none; }
@media (max-width: 36rem) {
  body { margin: 1rem auto; padding: 0 .75rem; }
  .cards { gap: .5rem; } .card { min-width: 0; flex: 1 1 40%; }
  th, td { padding: .25rem .35rem; }
  .wide { display: none; } .narrow { display: block; }
}
@media print { body { margin: 0; max-width: none; } th { cursor: auto; }
  .wide { display: block; } .narrow { display: none; } .scroll { overflow: visible; }
  figure, table { break-inside: avoid; } }
"""

CLASS_TEXT = " class='text'"
CLASS_WORD = " class='text word'"
"""A text without a space (a model, a day, a path) or a short one (a time): kept on one line,
not broken at hyphens."""
SHORT = 16

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
    period = period_text(report.totals.first, report.totals.last, report.zone)
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
        f"<title>LLM cost report · {html_text(period)}</title><style>{STYLE}</style></head><body>",
        "<h1>LLM cost report</h1>",
        f"<p class='meta'>{html_text(period)} · {html_text(sources(report))}</p>",
        "<div class='cards'>",
        *(
            f"<div class='card'>{html_text(label)}<b>{html_text(value)}</b></div>"
            for label, value in cards
        ),
        "</div>",
        _tokens(report),
        *_charts(report),
        *(_section(table) for table in tables(report)),
        "<h2>Assumptions</h2><ul>",
        *(f"<li>{html_text(text)}</li>" for text in assumptions(report)),
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
    days = [day.key for day in report.summary.by_day]
    figures = []
    if days:
        costs = [report.cost_by_class.get(day, {}) for day in days]
        rates = [day.totals.hit_rate for day in report.summary.by_day]
        figures += [
            _figure(
                "chart-daily-cost",
                partial(charts.daily_cost, days, costs),
                "Cost per day by token class",
            ),
            _figure(
                "chart-hit-rate", partial(charts.hit_rate, days, rates), "Cache hit rate per day"
            ),
        ]
    figures += _drift_chart(report)
    figures.append(
        _figure(
            "chart-breaks",
            partial(charts.breaks_by_cause, report.breaks.by_cause),
            "What cache breaks cost, by cause",
        )
    )
    for item in report.latency:
        if item.count:
            figures.append(
                _figure(
                    f"chart-latency-{item.metric}",
                    partial(charts.latency_histogram, item),
                    f"Latency: {NAMES[item.metric]}, with the peaks of its distribution",
                )
            )
    return ["<h2>Charts</h2>", *figures]


def _drift_chart(report: Report) -> list[str]:
    """The weekly hit rate with the weeks of `sniff drift`'s events marked."""
    drift = report.drift
    if drift is None or not drift.series:
        return []
    from sniff.analyses.drift.report import week_of, weekly

    weeks = weekly(drift.series[0])
    labels = [week for week, _ in weeks]
    rates = [bucket.sums_of("hit_rate").level for _, bucket in weeks]
    marks = [week_of(drift, event.at) for event in drift.events]
    caption = "Cache hit rate per week"
    caption += ", the changes below marked by number" if marks else ": no change found"
    return [_figure("chart-drift", partial(charts.drift_hit_rate, labels, rates, marks), caption)]


def _figure(identity: str, draw: Callable[[float], Figure], caption: str) -> str:
    """The chart drawn twice, for a page and for a phone: the style shows the one that fits."""
    wide, narrow = (charts.svg(draw(width)) for width in (charts.WIDE, charts.NARROW))
    return (
        f"<figure id='{identity}'><div class='wide'>{wide}</div>"
        f"<div class='narrow'>{narrow}</div><figcaption>{html_text(caption)}</figcaption></figure>"
    )


def _section(table: Table) -> str:
    """A heading, its sortable table (scrolling in its own box when too wide), and its note."""
    head = "".join(
        f"<th{CLASS_TEXT if table.is_text(i) else ''}>{html_text(h)}</th>"
        for i, h in enumerate(table.headers)
    )
    body = []
    for row in table.rows:
        cells = []
        for index, (text, key) in enumerate(row):
            sort = "" if key is None else f" data-sort='{html_text(str(key))}'"
            kind = _kind(text) if table.is_text(index) else ""
            cells.append(f"<td{kind}{sort}>{html_text(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    note = f"<p class='meta'>{html_text(table.note)}</p>" if table.note else ""
    return (
        f"<h2 id='{table.anchor}'>{html_text(table.title)}</h2><div class='scroll'>"
        f"<table class='sortable'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>{note}"
    )


def _kind(text: str) -> str:
    return CLASS_WORD if " " not in text.strip() or len(text) <= SHORT else CLASS_TEXT
