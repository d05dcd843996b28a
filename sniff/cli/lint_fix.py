"""Provides `sniff lint --fix`: rewrite the flagged prompt files, show the diff, lint again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from rich.console import Console

from sniff.lint import LintReport, check
from sniff.lint.fix import fix_files
from sniff.lint.inputs import load_prompts
from sniff.numbers import compact, money, plural
from sniff.present.terminal.safe_console import SafeConsole
from sniff.pricing import PriceBook
from sniff.redact_secrets import redact_secrets


def apply_fixes(report: LintReport, console: Console | None = None) -> LintReport:
    """Fix what can be fixed and return the report of the files as they are now (the logs as
    they were read: a fix rewrites prompt files only)."""
    console = console or SafeConsole(stderr=True)
    flagged = {found.file for found in report.findings}
    fixes = fix_files(report.prompts, flagged)
    if not fixes:
        console.print("--fix: nothing to rewrite (findings in logs, or none a rewrite can fix).")
        return report
    rewritten = {fix.file for fix in fixes}
    gained_tokens = sum(
        f.saving.cached_tokens
        for f in report.findings
        if f.saving is not None and f.file in rewritten
    )
    gained_usd = sum(
        f.saving.usd or 0.0 for f in report.findings if f.saving is not None and f.file in rewritten
    )
    for fix in fixes:
        # soft wrap: a diff with its long lines broken would no longer apply as a patch; the
        # file keeps its credentials, the diff shown does not (redacted in the whole texts, so a
        # key block's lines are too), and a line holding one won't apply
        shown = replace(fix, before=redact_secrets(fix.before), after=redact_secrets(fix.after))
        console.print(shown.diff(), highlight=False, soft_wrap=True)
    paths = [Path(fix.file) for fix in fixes]
    fixed_prompts, _ = load_prompts(paths)
    rest = [p for p in report.prompts if p.file not in rewritten]
    again = check(rest + fixed_prompts, [], report.config, PriceBook(), report.read)
    before = sum(1 for f in report.findings if f.file in rewritten)
    after = sum(1 for f in again.findings if f.file in rewritten)
    console.print(
        f"--fix rewrote {plural(len(fixes), 'file')}: {plural(before, 'finding')} before, "
        f"{after:,} after"
        + (
            f"; worth {compact(gained_tokens)} more cached tokens, {money(gained_usd)}"
            if gained_tokens
            else ""
        )
    )
    return LintReport(again.findings, again.prompts, report.files, report.config, report.read)
