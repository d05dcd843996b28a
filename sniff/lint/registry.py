"""Provides the lint rules' registry: what a rule is, what it looks at, and how it reports.

`rules` and `session_rules` register their rules here (importing `sniff.lint` imports both,
so `RULES` always holds every rule); `finding` locates a finding in the file it came from, and
`diff` and `changed_at` say what changed between two texts.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from sniff.findings import Finding, Severity
from sniff.lint.locate import locate
from sniff.lint.prompts import LintBlock, LintPrompt
from sniff.lint.volatile import line_and_column
from sniff.redact_secrets import redact_secrets


@dataclass(frozen=True, slots=True)
class LintContext:
    """What the rules look at."""

    prompts: list[LintPrompt]
    chains: list[list[LintPrompt]]
    """Logged requests grouped by session, in the order they were sent."""
    minimum: Callable[[str | None, str], int]
    """(model, api) → the smallest cacheable prefix."""
    count: Callable[[str], int]
    """Tokens of a text."""
    gaps: list[Finding] = field(default_factory=list)
    """Findings of the TTL-gap rule, computed from usage by the break analysis."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule."""

    id: str
    name: str
    severity: Severity
    summary: str
    fix: str
    check: Callable[[LintContext], Iterator[Finding]]

    @property
    def explanation(self) -> str:
        """The paragraph `--explain` prints."""
        return " ".join((self.check.__doc__ or "").split())


RULES: dict[str, Rule] = {}


def rule(
    id: str, name: str, severity: Severity, summary: str, fix: str
) -> Callable[
    [Callable[[LintContext], Iterator[Finding]]], Callable[[LintContext], Iterator[Finding]]
]:
    """Register a rule."""

    def register(
        check: Callable[[LintContext], Iterator[Finding]],
    ) -> Callable[[LintContext], Iterator[Finding]]:
        RULES[id] = Rule(id, name, severity, summary, fix, check)
        return check

    return register


def finding(
    rule_id: str,
    prompt: LintPrompt,
    block: LintBlock | None,
    message: str,
    evidence: str = "",
    at: int = 0,
    setting: str | None = None,
) -> Finding:
    """A finding located in `prompt` (and `block`, at character `at` of its text; or, without a
    block, at character `at` of the request's `setting`, such as `prompt_cache_key`).

    In a prompt file (a JSON list of bodies included) that is a line and column of the file;
    in a log, the line of the request.
    """
    found = RULES[rule_id]
    severity, said = found.severity, message
    if prompt.helper:  # not the user's prompt: worth knowing, nothing to fix in their prompts
        severity, said = Severity.INFO, f"{message} (the harness's own call, not your prompt)"
    line, column = prompt.line, 0
    if prompt.source_text:
        offset = locate(prompt, block, at, setting)
        if offset >= 0:
            line, column = line_and_column(prompt.source_text, offset)
    return Finding(
        rule=rule_id,
        severity=severity,
        message=said,
        file=prompt.file,
        line=line,
        column=column,
        request=prompt.request,
        block_path=block.path if block is not None else None,
        evidence=evidence,
        fix=found.fix,
    )


def diff(old: str, new: str, lines: int = 6) -> str:
    """What changed from `old` to `new`: the changed lines, or around the change of one line.

    Secrets are redacted in the whole texts first: a line of a key block, or a window cut out of
    a long line, no longer holds what makes a key recognisable."""
    old, new = redact_secrets(old), redact_secrets(new)
    changes = difflib.unified_diff(
        old.splitlines(), new.splitlines(), "before", "after", n=0, lineterm=""
    )
    shown = [line for line in changes if not line.startswith(("---", "+++", "@@"))]
    if not shown:  # one long line: show where it differs
        at = changed_at(old, new)
        return f"-…{old[max(at - 20, 0) : at + 40]}…\n+…{new[max(at - 20, 0) : at + 40]}…"
    return "\n".join(shown[:lines]) + ("\n…" if len(shown) > lines else "")


def changed_at(old: str, new: str) -> int:
    """The first character where `new` differs from `old` (where a finding on it points)."""
    differing = (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b)
    return next(differing, min(len(old), len(new)))
