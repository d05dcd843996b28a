"""Provides `redact`: a report to share with a team, every number kept, nothing private said.

Dropped: the text of prompts, user requests, slash command names and tool results (excerpts
in failure examples, lint evidence and messages). Replaced by stable pseudonyms: project names,
git branches and repositories, and every path (roots, log files), so the same project keeps one
name across reports made with the same data. Kept: models, tools, days, session ids (random
ids), causes and all figures.
"""

from __future__ import annotations

import dataclasses
import hashlib

import msgspec

from sniff.analyses.agents.activity import AgentReport, CommandRow, ErrorRow
from sniff.analyses.cache.breaks import Break, BreakReport
from sniff.analyses.cost.branches import NO_BRANCH
from sniff.analyses.cost.commits import CommitReport
from sniff.analyses.cost.exporters import LOCAL, NO_USER
from sniff.analyses.cost.summary import Group, Summary
from sniff.analyses.drift.points import ChangePoint
from sniff.analyses.drift.report import DriftReport
from sniff.analyses.report import Report
from sniff.model import NO_ACTIVITY, Dataset, LineIssue, Request

DROPPED = "[redacted]"


def pseudonym(kind: str, name: str) -> str:
    """A stable stand-in for `name`: `project-1a2b3c4d`."""
    return f"{kind}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def redact(report: Report) -> Report:
    """The same report with private text dropped and names replaced (module docstring)."""
    return dataclasses.replace(
        report,
        summary=_summary(report.summary),
        groups=[_group(group) for group in report.groups]
        if report.by == "project"
        else report.groups,
        breaks=_breaks(report.breaks),
        dataset=_dataset(report.dataset),
        lint=[
            dataclasses.replace(
                finding,
                message=f"{finding.rule} finding",
                file=_path(finding.file),
                evidence="",
                request=None,
            )
            for finding in report.lint
        ],
        agents=_agents(report.agents) if report.agents is not None else None,
        branches=[dataclasses.replace(row, key=_branch(row.key)) for row in report.branches],
        exporters={
            by: [dataclasses.replace(row, key=_exporter(by, row.key)) for row in rows]
            for by, rows in report.exporters.items()
        },
        drift=_drift(report.drift) if report.drift is not None else None,
        commits=_commits(report.commits) if report.commits is not None else None,
    )


def _commits(report: CommitReport) -> CommitReport:
    """Commits without their messages, branches, projects and pull requests' addresses."""
    commits = [
        dataclasses.replace(row, message=DROPPED, branch=_branch(row.branch),
                            project=_project(row.project))
        for row in report.commits
    ]  # fmt: skip
    pulls = [
        dataclasses.replace(row, url=pseudonym("pull", row.url), branch=_branch(row.branch))
        for row in report.pulls
    ]
    return dataclasses.replace(report, commits=commits, pulls=pulls)


def _drift(report: DriftReport) -> DriftReport:
    """Project series and the change points found in them under their pseudonyms."""

    def named(dimension: str, value: str | None) -> str | None:
        return _project(value) if dimension == "project" and value else value

    def point(found: ChangePoint) -> ChangePoint:
        return dataclasses.replace(found, value=named(found.dimension, found.value))

    series = [dataclasses.replace(s, value=named(s.dimension, s.value)) for s in report.series]
    events = [
        dataclasses.replace(event, points=tuple(point(p) for p in event.points))
        for event in report.events
    ]
    points = [point(found) for found in report.points]
    return dataclasses.replace(report, series=series, points=points, events=events)


def _project(name: str) -> str:
    return pseudonym("project", name) if name else name


def _branch(name: str) -> str:
    return name if name == NO_BRANCH else pseudonym("branch", name)


def _exporter(by: str, name: str) -> str:
    """A machine or user of a team export: the rows of logs read here keep their name."""
    return name if name in (LOCAL, NO_USER) else pseudonym(by, name)


def _path(path: str) -> str:
    suffix = ".jsonl" if path.endswith(".jsonl") else ""
    return pseudonym("file", path) + suffix


def _group(group: Group) -> Group:
    return Group(_project(group.key), group.totals)


def _summary(summary: Summary) -> Summary:
    sessions = [dataclasses.replace(row, project=_project(row.project)) for row in summary.sessions]
    return dataclasses.replace(
        summary, by_project=[_group(group) for group in summary.by_project], sessions=sessions
    )


def _request(request: Request) -> Request:
    return msgspec.structs.replace(
        request, project=_project(request.project), file=_path(request.file), blocks=(),
        git_branch=request.git_branch and _branch(request.git_branch),
        repository=request.repository and pseudonym("repository", request.repository),
    )  # fmt: skip


def _break(found: Break) -> Break:
    previous = _request(found.previous) if found.previous is not None else None
    return dataclasses.replace(found, request=_request(found.request), previous=previous)


def _breaks(report: BreakReport) -> BreakReport:
    return dataclasses.replace(
        report,
        breaks=[_break(found) for found in report.breaks],
        tolerated=[dataclasses.replace(t, request=_request(t.request)) for t in report.tolerated],
        by_project=[dataclasses.replace(row, key=_project(row.key)) for row in report.by_project],
    )


def _dataset(dataset: Dataset) -> Dataset:
    return msgspec.structs.replace(
        dataset,
        requests=tuple(_request(request) for request in dataset.requests),
        files=tuple(_path(path) for path in dataset.files),
        roots=tuple(pseudonym("logs", root) for root in dataset.roots),
        issues=tuple(
            LineIssue(_path(issue.file), issue.line, issue.reason, issue.kept)
            for issue in dataset.issues
        ),
        unknown_files=tuple(_path(path) for path in dataset.unknown_files),
        activity=NO_ACTIVITY,
    )


def _agents(report: AgentReport) -> AgentReport:
    return dataclasses.replace(
        report,
        errors=[
            ErrorRow(
                row.error_class,
                row.description,
                row.count,
                [(tool, DROPPED, at) for tool, _, at in row.examples],
            )
            for row in report.errors
        ],
        tools_by_project={_project(p): c for p, c in report.tools_by_project.items()},
        commands=[_command(row) for row in report.commands],
    )


def _command(row: CommandRow) -> CommandRow:
    command = pseudonym("/command", row.command) if row.command else None
    return dataclasses.replace(row, project=_project(row.project), text=DROPPED, command=command)
