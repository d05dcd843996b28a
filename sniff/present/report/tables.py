"""Provides the report's tables as rows: what the HTML and the Markdown writers lay out.

One list for both, so a table has the same title, columns and figures in every format.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sniff.analyses.cost.commits import CommitReport, CommitRow
from sniff.analyses.cost.summary import Group
from sniff.analyses.latency.visible import Beside
from sniff.analyses.report import Report
from sniff.findings import Finding
from sniff.numbers import compact, money, percent, plural, seconds, signed_money
from sniff.present.report.agents import Row, sections
from sniff.present.terminal.branches import NOTES
from sniff.present.terminal.latency import NAMES
from sniff.present.terminal.visible import HEADERS, TITLE, beside_rows

DEFAULT_GROUPINGS = ("project", "model")
"""Shown in every report, whatever `--by` adds: what a reader asks first."""


@dataclass(frozen=True, slots=True)
class Table:
    """One section of the report."""

    anchor: str
    """Its id in the HTML page."""
    title: str
    headers: list[str]
    rows: list[Row]
    text_columns: int = 1
    """How many leading columns are text (aligned left, sorted as text)."""
    note: str = ""

    def is_text(self, column: int) -> bool:
        """A leading text column, or one whose cells have no value to sort by."""
        return column < self.text_columns or all(row[column][1] is None for row in self.rows)


def tables(report: Report) -> list[Table]:
    """Every table of the report, in the order shown."""
    found = [_groups(report, by) for by in dict.fromkeys((*DEFAULT_GROUPINGS, report.by))]
    found.append(_harnesses(report))
    found.append(_branches(report))
    if report.commits is not None and report.commits.commits:
        found.append(_commits(report.commits))
    found.append(_breaks(report))
    if report.drift is not None and report.drift.events:
        found.append(_drift(report))
    if report.cache is not None and report.cache.what_if:
        found.append(_what_ifs(report))
    if report.lint:
        found.append(_lint(report))
    for item in report.latency:
        if item.explained:
            rows: list[Row] = [
                [
                    (str(i), i),
                    (seconds(p.peak.location), p.peak.location),
                    (f"{seconds(p.peak.low)} – {seconds(p.peak.high)}", p.peak.low),
                    (percent(p.peak.share), p.peak.share),
                    (percent(p.hit_share), p.hit_share or 0),
                ]
                for i, p in enumerate(item.explained, start=1)
            ]
            headers = ["peak", "at", "range", "share", "cache hits"]
            title = f"Latency peaks: {NAMES[item.metric]}"
            found.append(Table(f"latency-{item.metric}", title, headers, rows, 0))
        if item.beside:
            found.append(_beside(item.beside))
    if report.agents is not None:
        for title, headers, agent_rows, text_columns in sections(report.agents):
            anchor = "agents-" + title.split(":")[0].lower().replace(" ", "-")
            found.append(Table(anchor, title, headers, agent_rows, text_columns))
    return found


BESIDE_NOTE = (
    "Time to first token ends at a response's first block, which for a thinking model is "
    "thinking the user does not see; time to first visible token ends at its first text, else "
    "its first tool call. Their difference is how much later the user saw anything, not "
    "thinking time: it also holds the text block's own streaming, as a transcript line is "
    "written when its block is complete. Both are upper bounds (approximate)."
)


def _beside(beside: list[Beside]) -> Table:
    """Time to first visible token beside TTFT, per model, with the sentence saying what
    their difference means."""
    values = [
        (row.requests, row.ttft_median, None, row.visible_median, None, row.later) for row in beside
    ]
    rows: list[Row] = [
        [(text[0], None), *zip(text[1:], [*value, row.difference_median], strict=True)]
        for text, value, row in zip(beside_rows(beside), values, beside, strict=True)
    ]
    return Table("latency-visible-beside", TITLE, HEADERS, rows, 1, BESIDE_NOTE)


def _groups(report: Report, by: str) -> Table:
    chosen = {"project": report.summary.by_project, "model": report.summary.by_model}
    groups: list[Group] = report.groups if by == report.by else chosen[by]
    rows = [_group_row(group) for group in groups]
    headers = [by, "requests", "cost", "hit rate", "saved", "tokens"]
    return Table(f"cost-by-{by}", f"Cost by {by}", headers, rows)


def _harnesses(report: Report) -> Table:
    """Cost by harness, with what each agent logged its requests cost where it logs that."""
    groups = report.summary.by_harness
    rows = []
    for group in groups:
        g = group.totals
        row = _group_row(group)
        if g.rollups:  # sessions an agent logged only as totals: no request in them
            row[1] = (f"{g.requests:,} (+{plural(g.rollups, 'session')} of totals)", g.requests)
        reported = g.reported_usd if g.reported_requests else None
        difference = g.reported_difference
        rows.append(
            [
                *row,
                ("-" if reported is None else money(reported), reported or 0),
                ("-" if difference is None else money(difference), difference or 0),
            ]
        )
    headers = ["harness", "requests", "cost", "hit rate", "saved", "tokens", "agent's own", "diff"]
    note = (
        "agent's own: the cost the agent logged for its requests (OpenCode, pi, Cline and "
        "others log one); diff: sniff's cost minus it, over the requests that have both."
    )
    return Table("cost-by-harness", "Cost by harness", headers, rows, note=note)


def _branches(report: Report) -> Table:
    """Cost by git branch, with the sessions that made it."""
    rows = []
    for row in report.branches:
        cells = _group_row(Group(row.key, row.totals))
        rows.append([*cells[:2], (f"{row.sessions:,}", row.sessions), *cells[2:]])
    headers = ["branch", "requests", "sessions", "cost", "hit rate", "saved", "tokens"]
    return Table("cost-by-branch", "Cost by git branch", headers, rows, note=NOTES["branch"])


COMMITS_SHOWN = 20
"""The dearest commits a report lists."""


def dearest_commits(found: CommitReport) -> list[CommitRow]:
    """The `COMMITS_SHOWN` dearest commits, dearest first (ties in the order they were made)."""
    return sorted(found.commits, key=lambda row: -(row.spent.cost_usd or 0.0))[:COMMITS_SHOWN]


def _commits(found: CommitReport) -> Table:
    """The dearest commits made inside sessions, with what led to each."""
    from sniff.present.terminal.commits import ONLY_IN_SESSIONS

    rows = [
        [
            (row.hash[:10], None),
            (row.branch, None),
            (row.message, None),
            (f"{row.spent.requests:,}", row.spent.requests),
            (compact(row.spent.tokens), row.spent.tokens),
            (money(row.spent.cost_usd), row.spent.cost_usd),
        ]
        for row in dearest_commits(found)
    ]
    headers = ["commit", "branch", "message", "requests", "tokens", "cost"]
    title = f"Most expensive commits ({len(found.commits):,} made in {found.sessions:,} sessions)"
    return Table("cost-by-commit", title, headers, rows, 3, note=ONLY_IN_SESSIONS)


def _group_row(group: Group) -> Row:
    g = group.totals
    return [
        (group.key, None),
        (f"{g.requests:,}", g.requests),
        (money(g.cost), g.cost_usd),
        (percent(g.hit_rate), g.hit_rate or 0),
        (money(g.savings), g.savings or 0),
        (compact(g.total_tokens), g.total_tokens),
    ]


def _breaks(report: Report) -> Table:
    rows: list[Row] = [
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
        "Cold starts, compactions and thinking dropped at a new user turn are expected: "
        "how caching works, not faults."
    )
    return Table("breaks", "Cache breaks by cause", headers, rows, note=note)


def _drift(report: Report) -> Table:
    from sniff.present.json.drift import sentence

    assert report.drift is not None
    rows: list[Row] = [
        [
            (str(number), number),
            (event.at, None),
            (sentence(event), None),
            ("version" if event.attributed else "–", None),
        ]
        for number, event in enumerate(report.drift.events, 1)
    ]
    note = (
        "Change points of the daily series (sniff drift), each found by ruptures and kept only "
        "with enough requests and sessions on both sides and a change beyond its 95 % interval."
    )
    return Table("drift", "Changes over time", ["#", "day", "what changed", "cause"], rows,
                 text_columns=4, note=note)  # fmt: skip


def _what_ifs(report: Report) -> Table:
    assert report.cache is not None
    paid = report.cache.observed
    rows: list[Row] = [
        [
            ("what you paid", None),
            ("as logged: each provider's own caching, at published prices", None),
            (money(paid.cost), paid.cost_usd),
            ("–", 0),
        ]
    ]
    rows += [
        [
            (what.label, None),
            (what.description, None),
            (money(what.measures.cost), what.measures.cost_usd),
            ("–" if what.delta_usd is None else signed_money(what.delta_usd), what.delta_usd or 0),
        ]
        for what in report.cache.what_if
    ]
    headers = ["policy", "what it does", "cost", "difference"]
    title = "What another cache policy would have cost"
    return Table("what-if", title, headers, rows, 2)


def _lint(report: Report) -> Table:
    roots = report.dataset.roots
    places = [relative_where(f, roots) for f in report.lint]
    rows: list[Row] = [
        [
            (f.rule, None),
            (place, None),
            (f.message, None),
            (money(f.saving.usd) if f.saving else "–", f.saving.usd if f.saving else 0),
        ]
        for f, place in zip(report.lint, places, strict=True)
    ]
    moved = places != [f.where for f in report.lint]
    note = f"Locations are relative to {', '.join(roots)}." if moved else ""
    title = "Prompt findings (sniff lint)"
    return Table("lint", title, ["rule", "where", "what", "worth"], rows, 3, note)


def relative_where(finding: Finding, roots: Sequence[str]) -> str:
    """The finding's location with its file relative to the root it was found under."""
    return dataclasses.replace(finding, file=relative_path(finding.file, roots)).where


def relative_path(path: str, roots: Sequence[str]) -> str:
    """`path` from the deepest of `roots` holding it (its name when a root is the file itself);
    `path` unchanged when no root holds it."""
    absolute = Path(os.path.abspath(path))
    bases = [Path(os.path.abspath(root)) for root in roots]
    holding = [base for base in bases if absolute.is_relative_to(base)]
    if not holding:
        return path
    base = max(holding, key=lambda folder: len(folder.parts))
    return absolute.name if absolute == base else str(absolute.relative_to(base))
