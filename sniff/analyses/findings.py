"""Provides `collect_findings`: cache breaks and lint findings of an archive, by dollars.

Why together: a person asking "where does caching lose me money" does not care whether the
answer came from the usage (a break) or from the prompt (a lint rule); both point at a request
and both have a price, so they are ranked on one list.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sniff.analyses.browse import Archive
from sniff.findings import Finding


@dataclass(frozen=True, slots=True)
class ArchiveFinding:
    """One break or lint finding, priced, pointing at a request where it can."""

    kind: str
    """`break` or `lint`."""
    code: str
    """The break's cause (`ttl_expired`, ...) or the lint rule (`SN001`, ...)."""
    usd: float | None
    """The break's price, or what fixing the lint finding would save; None when unpriced."""
    message: str
    project: str
    when: datetime | None
    request_key: str | None
    """The request to open, when it is in the archive."""
    where: str
    """The log file and line, or the lint finding's location."""


def collect_findings(archive: Archive, lint: list[Finding] | None = None) -> list[ArchiveFinding]:
    """Every break that was someone's fault, and every lint finding, most expensive first."""
    found: list[ArchiveFinding] = []
    for item in archive.breaks.breaks:
        if not item.fault:
            continue
        request = item.request
        message = f"{item.rebuilt_tokens:,} cached tokens written again"
        if item.detail:
            message += f"; {item.detail}"
        found.append(
            ArchiveFinding(
                "break",
                item.cause,
                item.cost_usd,
                message,
                request.project,
                request.when,
                request.key,
                f"{request.file}:{request.line}",
            )
        )
    for finding in lint or []:
        located = archive.at_line(finding.file, finding.line) if finding.request else None
        found.append(
            ArchiveFinding(
                "lint",
                finding.rule,
                finding.saving.usd if finding.saving else None,
                finding.message,
                located.project if located else "",
                located.when if located else None,
                located.key if located else None,
                finding.where,
            )
        )
    found.sort(key=lambda item: -(item.usd or 0.0))
    return found
