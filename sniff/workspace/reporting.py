"""Provides `workspace_report`: `sniff report`'s report of a Workspace's logs, with the lint
findings of their prompts and the subscription weighed against plans.

Why apart from the Workspace: a report is the one answer that runs lint over the logs (the
analyses never do) before the analyses build it; the Workspace keeps only reading and its
caches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sniff.errors import UserError

if TYPE_CHECKING:
    from sniff.analyses.cost.plans import Plan
    from sniff.analyses.report import Report
    from sniff.findings import Finding
    from sniff.model import Dataset
    from sniff.workspace import Workspace


def workspace_report(
    workspace: Workspace, by: str, *, redact: bool, plans: Sequence[Plan] | None
) -> Report:
    """The report of `workspace`'s logs (see `Workspace.report`).

    Raises:
        UserError: as `dataset`, or `by` names no grouping (before any log is read).
    """
    from sniff.analyses.cost.plans import chosen_plans
    from sniff.analyses.report import GROUPINGS, build_report
    from sniff.ingest.parquet_in import owners

    if by not in GROUPINGS:
        raise UserError(f"--by must be one of {', '.join(GROUPINGS)}, not {by!r}")
    dataset = workspace.dataset("counted")
    built = build_report(
        dataset, workspace.prices, workspace.zone, by=by, keep=workspace.filters.keep,
        lint=_findings(workspace, dataset), activity=workspace.activity(),
        plans=chosen_plans(None) if plans is None else plans, owners=owners(dataset.files),
    )  # fmt: skip
    if redact:
        from sniff.analyses.redact import redact as redacted

        return redacted(built)
    return built


def _findings(workspace: Workspace, dataset: Dataset) -> list[Finding]:
    """What `sniff lint` finds in the prompts of the logs the chosen requests came from (idle
    gaps, SN012, are the breaks' part)."""
    from sniff.analyses.report import linted_logs

    logs = linted_logs(dataset, workspace.filters.keep)
    if not logs:
        return []
    from functools import partial

    from sniff.lint import LintConfig, lint
    from sniff.logs import load

    read = partial(load, use_index=workspace.use_index)
    return lint(logs, LintConfig(ignore=("SN012",)), workspace.prices, load=read).findings
