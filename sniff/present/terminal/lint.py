"""Provides the presentation of `sniff lint`: grouped text, JSON, and SARIF 2.1.0."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.console import Console
from rich.text import Text

from sniff.findings import Finding, Severity
from sniff.lint import LintReport
from sniff.lint.rules import RULES
from sniff.numbers import compact, money, plural
from sniff.present.json.common import rounded
from sniff.present.terminal.safe_console import styled
from sniff.version import __version__

COLOURS = {Severity.ERROR: "red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
EXCERPT_LINES = 4
"""Lines of a finding's evidence the terminal shows: where it changed, not a whole prompt."""


def print_lint(console: Console, report: LintReport) -> None:
    """Findings grouped by file, each with its evidence, fix and price; then a count."""
    current = None
    for found in report.findings:
        if found.file != current:
            current = found.file
            console.print(Text.assemble("\n", styled(found.file, "bold underline")))
        colour = COLOURS[found.severity]
        place = (
            f"{found.line}:{found.column}"
            if found.line and found.column
            else (f"line {found.line}" if found.line else "")
        )
        extra = " ".join(
            part
            for part in (found.request and f"request {found.request}", found.block_path)
            if part
        )
        console.print(
            Text.assemble(
                "  ",
                (f"{found.severity.label:7}", colour),
                " ",
                (found.rule, "bold"),
                " ",
                styled(f"{place} {extra}  {found.message}"),
            ),
            highlight=False,
        )
        if found.evidence:  # a short excerpt on one line each (--json has it whole)
            room = max(console.width - 13, 20)
            for line in found.evidence.splitlines()[:EXCERPT_LINES]:
                shown = line if len(line) <= room else line[: room - 1] + "…"
                console.print(Text.assemble("            ", styled(shown, "dim")), highlight=False)
        console.print(Text.assemble("            fix: ", styled(found.fix)), highlight=False)
        if found.saving is not None:
            console.print(
                f"            worth: {compact(found.saving.cached_tokens)} more cached tokens, "
                f"{money(found.saving.usd)} {found.saving.basis}",
                highlight=False,
            )
    counts = Counter(found.severity for found in report.findings)
    summary = ", ".join(
        plural(counts[s], s.label, "info" if s is Severity.INFO else None)
        for s in sorted(Severity, reverse=True)
    )
    console.print(f"\n{plural(report.files, 'file')} checked: {summary}.")


def lint_json(report: LintReport) -> dict[str, Any]:
    """`sniff lint --json` (`-f json`)."""
    return {
        "files": report.files,
        "fail_on": report.config.fail_on.label,
        "failed": report.failed(),
        "findings": [finding_json(found) for found in report.findings],
    }


def finding_json(found: Finding) -> dict[str, Any]:
    """One finding."""
    saving = found.saving
    return {
        "rule": found.rule,
        "name": RULES[found.rule].name,
        "severity": found.severity.label,
        "message": found.message,
        "file": found.file,
        "line": found.line,
        "column": found.column,
        "request": found.request,
        "block": found.block_path,
        "evidence": found.evidence,
        "fix": found.fix,
        "saving": None
        if saving is None
        else {
            "cached_tokens": saving.cached_tokens,
            "usd": rounded(saving.usd),
            "basis": saving.basis,
        },
    }


def lint_sarif(report: LintReport) -> str:
    """SARIF 2.1.0, built with the sarif-om object model, for CI code scanning."""
    import sarif_om as sarif
    from jschema_to_python.to_json import to_json

    rule_ids = sorted({found.rule for found in report.findings} | set(report.config.rules()))
    rules = [
        sarif.ReportingDescriptor(
            id=rule_id,
            name=RULES[rule_id].name,
            short_description=sarif.MultiformatMessageString(text=RULES[rule_id].summary),
            full_description=sarif.MultiformatMessageString(text=RULES[rule_id].explanation),
            help=sarif.MultiformatMessageString(text=RULES[rule_id].fix),
            default_configuration=sarif.ReportingConfiguration(
                level=SARIF_LEVELS[RULES[rule_id].severity]
            ),
        )
        for rule_id in rule_ids
    ]
    results = [_sarif_result(sarif, found, rule_ids.index(found.rule)) for found in report.findings]
    log = sarif.SarifLog(
        version="2.1.0",
        schema_uri=SARIF_SCHEMA,
        runs=[
            sarif.Run(
                tool=sarif.Tool(
                    driver=sarif.ToolComponent(name="sniff", version=__version__, rules=rules)
                ),
                results=results,
            )
        ],
    )
    text: str = to_json(log)
    return text


def _sarif_result(sarif: Any, found: Finding, rule_index: int) -> Any:
    region = None
    if found.line:
        region = sarif.Region(start_line=found.line, start_column=found.column or None)
    location = sarif.Location(
        physical_location=sarif.PhysicalLocation(
            artifact_location=sarif.ArtifactLocation(uri=found.file.replace("\\", "/")),
            region=region,
        ),
        logical_locations=[
            sarif.LogicalLocation(
                name=found.block_path, fully_qualified_name=f"{found.request}/{found.block_path}"
            )
        ]
        if found.request and found.block_path
        else None,
    )
    message = found.message + (f"\n{found.evidence}" if found.evidence else "")
    return sarif.Result(
        rule_id=found.rule,
        rule_index=rule_index,
        level=SARIF_LEVELS[found.severity],
        message=sarif.Message(text=message),
        locations=[location],
    )
