"""Provides the cost report as one self-contained HTML page: charts, tables, assumptions.

Everything is inside the file (styles, SVG charts, a few lines of script that sort tables when a
header is clicked), so it opens offline, can be mailed, and prints to PDF as it shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from sniff.analyses.latency.by_model import ALL, ModelLatency
from sniff.analyses.latency.timing import median
from sniff.analyses.report import Report, period_text
from sniff.numbers import compact, money, plural, seconds
from sniff.present.report import charts
from sniff.present.report.data import assumptions, sources
from sniff.present.report.manager import cards, sentences
from sniff.present.report.table import Table
from sniff.present.report.tables import RuleFindings, detail, latency, opening, rule_findings
from sniff.present.report.tables import savings as savings_tables
from sniff.shown import html_text

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; color: #222; max-width: 62rem; margin: 2rem auto;
       padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2.2rem; }
h3 { font-size: 1.02rem; margin-top: 1.5rem; }
.meta, figcaption, .note { color: #555; } figcaption, .note { font-size: 13px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr));
         gap: .8rem; margin: 1rem 0; }
.card { border: 1px solid #ddd; border-radius: 6px; padding: .5rem .8rem; }
.card b { display: block; font-size: 1.45rem; } .card span { display: block; color: #555;
          font-size: 13px; }
.scroll { overflow-x: auto; margin: .5rem 0; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { padding: .25rem .5rem; border-bottom: 1px solid #e4e4e4; text-align: right;
         white-space: nowrap; }
th:first-child, td:first-child, .text { text-align: left; } td.text { white-space: normal; }
td.word { white-space: nowrap; }
th { cursor: pointer; background: #f6f6f6; white-space: nowrap; }
th[data-dir]::after { content: " ↕"; color: #999; }
figure { margin: .5rem 0 1.2rem; } figure svg { display: block; width: 100%; height: auto; }
.narrow { display: none; }
details { border: 1px solid #e4e4e4; border-radius: 6px; padding: .3rem .6rem; margin: .4rem 0; }
summary { cursor: pointer; }
@media (max-width: 40rem) {
  body { margin: 1rem auto; padding: 0 .75rem; }
  .cards { grid-template-columns: 1fr 1fr; gap: .5rem; }
  .card { padding: .4rem .55rem; } .card b { font-size: 1.2rem; }
  .wide { display: none; } .narrow { display: block; }
  .scroll { overflow: visible; }
  table.sortable thead { display: none; }
  table.sortable, table.sortable tbody, table.sortable tr { display: block; width: auto; }
  table.sortable tr { border: 1px solid #ddd; border-radius: 6px; margin: .5rem 0;
                      padding: .3rem .55rem; }
  table.sortable td { display: flex; justify-content: space-between; gap: .8rem;
                      text-align: right; white-space: normal; overflow-wrap: anywhere;
                      border: 0; padding: .1rem 0; font-size: 14px; }
  table.sortable td::before { content: attr(data-label); color: #555; text-align: left;
                              white-space: nowrap; }
  table.sortable td > span { min-width: 0; }
  table.sortable td.text { display: block; text-align: left; }
  table.sortable td.text::before { display: block; }
  table.sortable td:first-child { font-weight: 600; }
}
@media print { body { margin: 0; max-width: none; } th { cursor: auto; }
  .wide { display: block; } .narrow { display: none; } .scroll { overflow: visible; }
  details { border: 0; } figure, table { break-inside: avoid; } }
"""

CLASS_TEXT = " class='text'"
CLASS_WORD = " class='text word'"
"""A text without a space (a model, a day, a path) or a short one (a time): kept on one line,
not broken at hyphens."""
SHORT = 16

SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach((th) => {
  const column = th.cellIndex;
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
    period = period_text(report.totals.first, report.totals.last, report.zone)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>LLM cost report · {html_text(period)}</title><style>{STYLE}</style></head><body>",
        "<h1>LLM cost report</h1>",
        f"<p class='meta'>{html_text(period)} · {html_text(sources(report))}</p>",
        "<div class='cards' id='summary'>",
        *(
            f"<div class='card'>{html_text(card.label)}<b>{html_text(card.value)}</b>"
            f"<span>{html_text(card.note)}</span></div>"
            for card in cards(report)
        ),
        "</div>",
        *(f"<p>{prose(text)}</p>" for text in sentences(report)),
        *(_section(table) for table in opening(report)),
        *_over_time(report),
        *(_section(table) for table in savings_tables(report)),
        *_latency(report),
        *_lint(report),
        "<h2 id='detail'>More detail</h2>",
        _tokens(report),
        *(_section(table, level=3) for table in detail(report)),
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


def _over_time(report: Report) -> list[str]:
    """Cost per day and the hit rate per day, on a true time axis; the days `sniff drift`
    found a change on marked and numbered as its table below numbers them."""
    days = [day.key for day in report.summary.by_day]
    if not days:
        return []
    costs = [report.cost_by_class.get(day, {}) for day in days]
    rates = [day.totals.hit_rate for day in report.summary.by_day]
    events = report.drift.events if report.drift is not None else []
    marks = [event.at for event in events if days[0] <= event.at <= days[-1]]
    caption = "Cache hit rate per day (share of prompt tokens read from the cache)"
    if marks:
        caption += "; dashed: the changes numbered under More detail"
    return [
        "<h2 id='over-time'>Cost over time</h2>",
        _figure(
            "chart-daily-cost",
            partial(charts.daily_cost, days, costs),
            "Cost per day by token class, each day at its date",
        ),  # fmt: skip
        _figure("chart-hit-rate", partial(charts.hit_rate, days, rates, marks), caption),
    ]


LATENCY_CHARTS = 4
"""At most this many model groups get a chart."""
LATENCY_CHART_MIN = 10
"""A model group needs this many timed requests for a chart worth reading."""


def _latency(report: Report) -> list[str]:
    """The latency table, then one chart per model group with enough timed requests."""
    tables = latency(report)
    if not tables:
        return []
    groups = [g for g in report.latency[1:] if g.timed >= LATENCY_CHART_MIN][:LATENCY_CHARTS]
    if not groups and report.latency[0].timed >= LATENCY_CHART_MIN:
        groups = [report.latency[0]]
    figures = [_latency_figure(group) for group in groups]
    return [_section(tables[0]), *figures, *(_section(table, level=3) for table in tables[1:])]


def _latency_figure(group: ModelLatency) -> str:
    series = [
        (name, colour, group.values[metric])
        for name, colour, metric in (
            ("time to first token", "#4a6fa5", "ttft"),
            ("end to end", "#e8a33d", "e2e"),
        )  # fmt: skip
        if group.values[metric]
    ]
    said = ", ".join(f"{name} median {seconds(median(values))}" for name, _, values in series)
    what = "every model" if group.group == ALL else group.group
    caption = f"{what}: {plural(group.timed, 'request')} timed; {said} (dashed lines)"
    identity = "chart-latency-" + "".join(c if c.isalnum() else "-" for c in group.group)
    return _figure(identity, partial(charts.latency, series), caption)


def _lint(report: Report) -> list[str]:
    """The prompt findings by rule, each rule's findings folded away under its counts."""
    groups = rule_findings(report)
    if not groups:
        return []
    return [
        "<h2 id='lint'>Prompt findings by rule (sniff lint)</h2>",
        "<p class='note'>What would make the prompts cache better, by rule; open one to see "
        "where. <code>sniff lint --explain RULE</code> says more.</p>",
        *(_rule(group) for group in groups),
    ]


def _rule(group: RuleFindings) -> str:
    worth = f", worth {money(group.worth_usd)}" if group.worth_usd else ""
    return (
        f"<details id='lint-{html_text(group.rule)}'><summary><b>{html_text(group.rule)}</b> "
        f"{html_text(group.summary)}: {plural(group.count, 'finding')}{html_text(worth)}"
        f"</summary><p class='note'>Fix: {prose(group.fix)}</p>"
        f"{_table(group.findings)}{_note(group.findings)}</details>"
    )


def _figure(identity: str, draw: Callable[[int], str], caption: str) -> str:
    """The chart drawn twice, for a page and for a phone: the style shows the one that fits."""
    return (
        f"<figure id='{identity}'><div class='wide'>{draw(charts.WIDE)}</div>"
        f"<div class='narrow'>{draw(charts.NARROW)}</div>"
        f"<figcaption>{html_text(caption)}</figcaption></figure>"
    )


def prose(text: str) -> str:
    """sniff's own words as HTML: escaped, a `command` set as code."""
    return CODE.sub(r"<code>\1</code>", html_text(text))


CODE = re.compile(r"`([^`<>]+)`")


def _section(table: Table, level: int = 2) -> str:
    """A heading, its sortable table, and its note."""
    heading = f"<h{level} id='{table.anchor}'>{html_text(table.title)}</h{level}>"
    return heading + _table(table) + _note(table)


def _note(table: Table) -> str:
    return f"<p class='note'>{prose(table.note)}</p>" if table.note else ""


def _table(table: Table) -> str:
    """A sortable table: on a page it scrolls in its own box when too wide; on a phone each
    row is a card of labelled cells (the style's narrow rules)."""
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
            label = f" data-label='{html_text(table.headers[index])}'"
            shown = prose(text) if index in table.prose_columns else html_text(text)
            cells.append(f"<td{kind}{label}{sort}><span>{shown}</span></td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f"<div class='scroll'><table class='sortable'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _kind(text: str) -> str:
    return CLASS_WORD if " " not in text.strip() or len(text) <= SHORT else CLASS_TEXT
