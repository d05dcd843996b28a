"""Provides `sniff lint`: prompt files and logged requests checked for what breaks caching."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.cli.progress import shown, wanted

FORMATS = ("text", "json", "sarif")


@one_line_errors
def lint(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Logs (files, or folders walked for *.jsonl) and prompt files (text, Markdown, "
            "JSON bodies) named one by one. Default: the logs in the usual places.",
            show_default=False,
            metavar="PATH...",
        ),
    ] = None,
    explain: Annotated[
        str | None, typer.Option("--explain", help="Explain a rule (e.g. SN001).", metavar="RULE")
    ] = None,
    output: Annotated[
        str | None,
        typer.Option(
            "--output-format", "-f", help="text (default), json or sarif.", metavar="FORMAT"
        ),
    ] = None,
    json: Annotated[bool, typer.Option("--json", help="Print one JSON object (-f json).")] = False,
    fail_on: Annotated[
        str | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 at this severity or above: error, warning, info.",
            metavar="SEVERITY",
        ),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", help="Run only this rule (repeatable).", metavar="RULE"),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", help="Skip this rule (repeatable).", metavar="RULE"),
    ] = None,
    fix: Annotated[
        bool,
        typer.Option("--fix", help="Rewrite prompt files stable-first, show the diff, re-lint."),
    ] = False,
    calls_per_minute: Annotated[
        float | None,
        typer.Option(
            "--calls-per-minute",
            help="Call rate for pricing a prompt file's findings.",
            callback=o.at_least(0.001),
            metavar="N",
        ),
    ] = None,
    prompts: Annotated[
        list[Path] | None,
        typer.Option(
            "--prompts",
            help="A folder of prompt files (or one file) to lint as prompts (repeatable).",
            metavar="DIR",
        ),
    ] = None,
    no_index: o.NoIndex = False,
    no_progress: o.NoProgress = False,
) -> None:
    """Find what breaks prefix caching in prompts and logged requests, priced, with the fix.

    A folder is walked for logs only; prompt files are linted when named, or under --prompts.
    With neither, the logged requests in the usual places are linted.

    Exit 1 when a finding reaches --fail-on (default: error). Rules can be chosen in
    pyproject.toml under [tool.sniff.lint] (select, ignore, fail-on, calls-per-minute).
    """
    from sniff.errors import UserError
    from sniff.lint.inputs import prompt_files
    from sniff.lint.rules import RULES

    paths = [*(paths or []), *prompt_files(prompts or [])]

    if explain is not None:
        rule = RULES.get(explain.upper())
        if rule is None:
            raise UserError(f"no rule {explain!r}; rules: {', '.join(sorted(RULES))}")
        typer.echo(f"{rule.id} {rule.name} ({rule.severity.label}): {rule.summary}\n")
        typer.echo(rule.explanation + "\n")
        typer.echo(f"Fix: {rule.fix}")
        return
    if json and output not in (None, "json"):
        raise UserError(f"--json prints JSON: it cannot go with -f {output}")
    output = output or ("json" if json else "text")
    if output not in FORMATS:
        raise UserError(f"--output-format must be one of {', '.join(FORMATS)}, not {output!r}")
    if not paths:  # the logged requests where agents keep them, as every other command reads
        from sniff.ingest.files.discover import default_roots

        paths = default_roots()
        if not paths:
            raise UserError(
                "no logs in the usual places: name the prompt files, folders or logs to lint"
            )
    from sniff.lint import lint as run_lint
    from sniff.lint import load_config

    config = load_config(
        select=select or None,
        ignore=ignore or None,
        fail_on=fail_on,
        calls_per_minute=calls_per_minute,
    )
    from sniff.logs import load

    with shown(wanted(json=output != "text", no_progress=no_progress)):
        report = run_lint(paths, config, load=functools.partial(load, use_index=not no_index))
    if fix:
        from sniff.cli.lint_fix import apply_fixes

        report = apply_fixes(report)
    _show(report, output)
    if report.failed():
        raise typer.Exit(1)


def _show(report: object, output: str) -> None:
    from sniff.lint import LintReport

    assert isinstance(report, LintReport)
    if output == "json":
        from sniff.present.terminal.lint import lint_json

        o.print_json(lint_json(report))
    elif output == "sarif":
        from sniff.present.terminal.lint import lint_sarif

        typer.echo(lint_sarif(report))
    else:
        from sniff.present.terminal.lint import print_lint
        from sniff.present.terminal.safe_console import SafeConsole

        print_lint(SafeConsole(), report)
