"""Provides the report's tables as rows: what the HTML and the Markdown writers lay out.

One list for both, so a table has the same title, columns and figures in every format. The
opening tables (top sessions, projects, models, the plans, what wasted money) are
`sniff.present.report.manager`'s; the detail follows them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sniff.analyses.cost.branches import Attributed
from sniff.analyses.cost.commits import CommitReport, CommitRow
from sniff.analyses.cost.summary import Group
from sniff.analyses.latency.by_model import ModelLatency
from sniff.analyses.report import Report
from sniff.findings import Finding
from sniff.model_names import table_names
from sniff.numbers import compact, money, percent, plural, seconds, signed_money
from sniff.present.report import manager
from sniff.present.report.agents import Row, sections
from sniff.present.report.table import Table
from sniff.present.terminal.branches import NOTES


def opening(report: Report) -> list[Table]:
    """What a budget owner reads first: top sessions, projects and models, the plans."""
    summary = report.summary
    found = [
        manager.top_sessions(report),
        manager.top_groups(report, "project", _rows(summary.by_project), len(summary.by_project)),
        manager.top_groups(report, "model", _model_rows(summary.by_model), len(summary.by_model)),
    ]
    plans = manager.plans(report)
    return found if plans is None else [*found, plans]


def savings(report: Report) -> list[Table]:
    """What wasted money and how to stop it; what another cache policy would have cost."""
    found = [manager.wasted(report)]
    said = manager.provider_word(report)
    if said is not None:
        found.append(said)
    if report.cache is not None and report.cache.what_if:
        found.append(_what_ifs(report))
    return found


def latency(report: Report) -> list[Table]:
    """Latency per model group."""
    return [_latency(report.latency)] if report.latency else []


def detail(report: Report) -> list[Table]:
    """Everything else: the `--by` grouping, harnesses, branches, a team's machines and users,
    commits, changes, agents."""
    found = [] if report.by in ("project", "model") else [_groups(report)]
    found += [_harnesses(report), _attributed(report.branches, "branch", "Cost by git branch")]
    team = report.exporters.items()  # a team export's machines and users
    found += [_attributed(rows, by, f"Cost by {by}") for by, rows in team if rows]
    if report.commits is not None and report.commits.commits:
        found.append(_commits(report.commits))
    if report.drift is not None and report.drift.events:
        found.append(_drift(report))
    if report.agents is not None:
        for title, headers, agent_rows, text_columns in sections(report.agents):
            anchor = "agents-" + title.split(":")[0].lower().replace(" ", "-")
            found.append(Table(anchor, title, headers, agent_rows, text_columns))
    return found


def tables(report: Report) -> list[Table]:
    """Every table of the report, in the order shown."""
    found = [*opening(report), *savings(report), *latency(report)]
    if report.lint:
        found.append(lint_rules(report))
    return [*found, *detail(report)]


LATENCY_NOTE = (
    "Medians (p50) and 90th percentiles (p90). Time to first token (TTFT) ends at a response's "
    "first block, which for a thinking model is thinking the user does not see; time to first "
    "visible token ends at its first text, else its first tool call; their difference is how "
    "much later the user saw anything, not thinking time (it also holds the text block's own "
    "streaming). End to end ends at the last token. Exact where a log records the request's "
    "own times (claude-trace, request logs), otherwise upper bounds from when log lines were "
    "written. The peaks of each distribution: `sniff latency`."
)


def _latency(groups: list[ModelLatency]) -> Table:
    rows: list[Row] = []
    for group in groups:
        row: Row = [(group.group, None), (f"{group.timed:,}", group.timed),
                    (percent(group.exact / group.timed), group.exact / group.timed)]  # fmt: skip
        for metric, q in (("ttft", "p50"), ("ttft", "p90"), ("visible", "p50"), ("e2e", "p50"),
                          ("e2e", "p90")):  # fmt: skip
            found = group.summary(metric)
            value = None if found is None else getattr(found, q)
            row.append((seconds(value), value or 0))
        rows.append(row)
    headers = ["model", "timed", "exact", "TTFT p50", "TTFT p90", "visible p50", "end p50",
               "end p90"]  # fmt: skip
    return Table("latency", "Latency by model", headers, rows, 1, LATENCY_NOTE)


def _rows(groups: list[Group]) -> list[Row]:
    return [_group_row(group) for group in groups]


def _model_rows(groups: list[Group]) -> list[Row]:
    """Models named as tables name them (`table_names`); JSON keeps the dated ids."""
    names = table_names([group.key for group in groups])
    return [
        [(name, None), *_group_row(group)[1:]] for name, group in zip(names, groups, strict=True)
    ]


def _groups(report: Report) -> Table:
    """Cost by the report's `--by` grouping."""
    by = report.by
    headers = [by, "requests", "cost", "hit rate", "saved", "tokens"]
    return Table(f"cost-by-{by}", f"Cost by {by}", headers, _rows(report.groups))


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


def _attributed(rows: list[Attributed], by: str, title: str) -> Table:
    """Cost by git branch (`by` "branch"), or by the machine or user a team export credits each
    request with, with the sessions that made it."""
    cells = []
    for row in rows:
        group = _group_row(Group(row.key, row.totals))
        cells.append([*group[:2], (f"{row.sessions:,}", row.sessions), *group[2:]])
    headers = [by, "requests", "sessions", "cost", "hit rate", "saved", "tokens"]
    return Table(f"cost-by-{by}", title, headers, cells, note=NOTES[by])


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


@dataclass(frozen=True, slots=True)
class RuleFindings:
    """One lint rule's findings: how many, what fixing them would save, and each one."""

    rule: str
    summary: str
    fix: str
    findings: Table
    count: int
    worth_usd: float


def lint_rules(report: Report) -> Table:
    """The prompt findings grouped by rule, most worth fixing first."""
    rows: list[Row] = [
        [
            (group.rule, None),
            (group.summary, None),
            (f"{group.count:,}", group.count),
            (money(group.worth_usd) if group.worth_usd else "–", group.worth_usd),
        ]  # fmt: skip
        for group in rule_findings(report)
    ]
    headers = ["rule", "what", "findings", "worth"]
    note = "Each rule's findings follow; `sniff lint --explain RULE` says more."
    return Table("lint", "Prompt findings by rule (sniff lint)", headers, rows, 2, note)


def rule_findings(report: Report) -> list[RuleFindings]:
    """Per rule, its findings with their places relative to the scanned roots."""
    import sniff.lint  # noqa: F401  (importing it registers every rule)
    from sniff.lint.registry import RULES

    roots = report.dataset.roots
    by_rule: dict[str, list[Finding]] = {}
    for finding in report.lint:
        by_rule.setdefault(finding.rule, []).append(finding)
    found = []
    for rule, findings in by_rule.items():
        places = [relative_where(f, roots) for f in findings]
        rows: list[Row] = [
            [(place, None), (f.message, None),
             (money(f.saving.usd) if f.saving else "–", f.saving.usd if f.saving else 0)]
            for f, place in zip(findings, places, strict=True)
        ]  # fmt: skip
        moved = places != [f.where for f in findings]
        note = f"Locations are relative to {', '.join(roots)}." if moved else ""
        known = RULES.get(rule)
        summary, how = (known.summary, known.fix) if known else (rule, "")
        table = Table(f"lint-{rule}", f"{rule}: {summary}", ["where", "what", "worth"], rows, 2,
                      note)  # fmt: skip
        worth = sum((f.saving.usd or 0.0) for f in findings if f.saving)
        found.append(RuleFindings(rule, summary, how, table, len(findings), worth))
    return sorted(found, key=lambda group: (-group.worth_usd, -group.count, group.rule))


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
