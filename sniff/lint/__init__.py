"""Provides `lint`: prompt files and logged requests in, cache anti-patterns with their price out.

The rules are in `rules` (on one prompt) and `session_rules` (on consecutive requests); this
module reads the prompt files, groups logged requests into sessions, runs the selected rules,
and prices each problem with the cache engine (`savings`). Logged requests, their prompts'
text and the priced requests SN012 judges idle gaps by, come from the caller's `Loader`: lint
sits below the front ends and their way of reading logs.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from sniff import tokens
from sniff.data_files import read_given
from sniff.errors import UserError
from sniff.findings import Finding, Saving, Severity
from sniff.ingest.record import Prompts
from sniff.lint import rules as _rules  # noqa: F401 - registers the rules on one prompt
from sniff.lint.inputs import load_prompts, logged_prompts
from sniff.lint.prompts import LintPrompt
from sniff.lint.registry import RULES, LintContext, finding
from sniff.lint.savings import chain_saving, file_saving
from sniff.lint.session_rules import opening
from sniff.model import Dataset, Request
from sniff.pricing import PriceBook
from sniff.redact_secrets import redact_secrets

PRICED_RULES = frozenset({"SN001", "SN006", "SN014", "SN002"})
"""Rules whose fix the engine can replay: volatile or changing prefix content."""


class Loader(Protocol):
    """How the caller reads logs into priced requests (`sniff.logs.load` is one)."""

    def __call__(
        self, paths: list[Path] | None, prices: PriceBook | None, *, with_prompts: Prompts
    ) -> Dataset: ...


@dataclass(frozen=True, slots=True)
class LintConfig:
    """Which rules run, and when lint fails; from flags and `[tool.sniff.lint]`."""

    select: tuple[str, ...] = ()
    """Only these rules (empty: all)."""
    ignore: tuple[str, ...] = ()
    fail_on: Severity = Severity.ERROR
    calls_per_minute: float = 1.0
    """The call rate assumed when pricing a prompt file's findings."""

    def rules(self) -> list[str]:
        """The ids of the rules to run."""
        chosen = [rule for rule in RULES if not self.select or rule in self.select]
        return sorted(rule for rule in chosen if rule not in self.ignore)


@dataclass(frozen=True, slots=True)
class LintReport:
    """Everything `sniff lint` found."""

    findings: list[Finding]
    prompts: list[LintPrompt] = field(default_factory=list)
    files: int = 0
    config: LintConfig = LintConfig()
    read: Dataset | None = None
    """The logs as `load` read them (to check a fix again without reading them again)."""

    def failed(self) -> bool:
        """Whether a finding reaches `fail_on`."""
        return any(found.severity >= self.config.fail_on for found in self.findings)


def lint(
    paths: Sequence[Path],
    config: LintConfig,
    prices: PriceBook | None = None,
    *,
    load: Loader,
) -> LintReport:
    """Check prompt files and logs under `paths`, the logs read by `load`.

    Raises:
        UserError: a path does not exist, or a prompt file cannot be read.
    """
    prices = prices or PriceBook()
    prompts, logs = load_prompts(list(paths))
    read = load(logs, prices, with_prompts=Prompts.TEXT) if logs else None
    logged, usage_only = logged_prompts(read, logs) if read is not None else ([], [])
    return check(prompts + logged, usage_only, config, prices, read)


def check(
    prompts: list[LintPrompt],
    usage_only: list[Path],
    config: LintConfig,
    prices: PriceBook,
    read: Dataset | None = None,
) -> LintReport:
    """Run the rules on prompts already read (also used to check a fix again); `read` holds
    the logs' requests SN012 judges idle gaps by."""
    chains = _chains(prompts)
    context = LintContext(
        prompts=prompts,
        chains=chains,
        minimum=_minimum(),
        count=lambda text: tokens.count(text),
        # their blocks are sized as `cache --breaks` reads them: both judge the same breaks
        gaps=_gap_findings(_linted(read, prompts, usage_only), prices)
        if read is not None and "SN012" in config.rules()
        else [],
    )
    findings: list[Finding] = []
    for rule_id in config.rules():
        findings.extend(RULES[rule_id].check(context))
    findings = [_redacted(found) for found in _priced(findings, prompts, chains, prices, config)]
    findings.sort(key=lambda f: (f.file, -f.severity, f.line, f.column, f.rule))
    files = len({p.file for p in prompts} | {str(path) for path in usage_only})
    return LintReport(findings, prompts, files, config, read)


def _redacted(found: Finding) -> Finding:
    """The finding as sniff shows it: no credential in what it says (`redact_secrets`). The
    prompts themselves stay as they are: `--fix` rewrites them."""
    return replace(
        found,
        message=redact_secrets(found.message),
        evidence=redact_secrets(found.evidence),
        fix=redact_secrets(found.fix),
    )


def load_config(start: Path | None = None, **overrides: Any) -> LintConfig:
    """`[tool.sniff.lint]` of the nearest pyproject.toml, with command-line `overrides`.

    Raises:
        UserError: the table has an unknown rule or severity.
    """
    values: dict[str, Any] = {}
    for folder in [start or Path.cwd(), *(start or Path.cwd()).parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            raw = read_given(candidate, "settings file")
            try:
                table = tomllib.loads(raw.decode()).get("tool", {}).get("sniff", {})
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                raise UserError(f"cannot read {candidate}: {error}") from error
            # `fail-on` as documented, `fail_on` as the flags name it: one key, so flags win
            values = {key.replace("-", "_"): value for key, value in table.get("lint", {}).items()}
            break
    values.update({key: value for key, value in overrides.items() if value is not None})
    severity = str(values.get("fail_on", "error"))
    try:
        config = LintConfig(
            select=tuple(values.get("select", ())),
            ignore=tuple(values.get("ignore", ())),
            fail_on=Severity.parse(severity),
            calls_per_minute=float(values.get("calls_per_minute", 1)),
        )
    except KeyError as error:
        raise UserError(f"unknown severity {severity!r} (error, warning or info)") from error
    unknown = [rule for rule in (*config.select, *config.ignore) if rule not in RULES]
    if unknown:
        raise UserError(f"unknown rule(s): {', '.join(unknown)} (see sniff lint --explain)")
    return config


def _chains(prompts: list[LintPrompt]) -> list[list[LintPrompt]]:
    """Logged requests by session and model (caches are per model), agents apart from
    background calls (those without tools), in the order they were sent.

    A request without tools that goes on with an agent's conversation (its first turn is one an
    agent's request opened with) is that agent's, having dropped its tools: compared with the
    request before it, not set apart as a background call."""
    logged = [prompt for prompt in prompts if prompt.logged]
    has_tools = {id(p): any(block.kind == "tool" for block in p.blocks) for p in logged}
    agents = {
        (p.file, p.session or "", p.model or "", opening(p)) for p in logged if has_tools[id(p)]
    }
    sessions: dict[tuple[str, str, str, bool, bool], list[LintPrompt]] = {}
    for prompt in logged:
        where = (prompt.file, prompt.session or "", prompt.model or "")
        first = opening(prompt)
        agent = has_tools[id(prompt)] or (first is not None and (*where, first) in agents)
        # the harness's own calls (a compaction's summary, a title) are a chain of their own:
        # never compared with the user's conversation, whose prompt they do not change
        sessions.setdefault((*where, agent, prompt.helper), []).append(prompt)
    return [
        sorted(chain, key=lambda p: (p.started if p.started is not None else 0.0, p.line))
        for chain in sessions.values()
    ]


def _minimum() -> Any:
    from sniff.engine import load_policies

    policies = load_policies()
    today = datetime.now(UTC).date()

    def minimum(model: str | None, api: str) -> int:
        name = "openai" if api.startswith("openai") else "anthropic"
        return policies[name].min_tokens_for(model or "", today)

    return minimum


def _linted(read: Dataset, prompts: list[LintPrompt], usage_only: list[Path]) -> list[Request]:
    """The requests read from the logs being linted: those of the logs with prompts and, with
    logs of usage only, all that was read (an export's name the logs they came from)."""
    logged = {prompt.file for prompt in prompts if prompt.logged}
    return [r for r in read.requests if usage_only or r.file in logged]


def _gap_findings(requests: list[Request], prices: PriceBook) -> list[Finding]:
    """SN012, one finding a session where the provider's longer TTL would have paid for its
    dearer writes: the verdict and figure `sniff cache --breaks` gives for the session."""
    from sniff.analyses.cache.breaks import find_breaks
    from sniff.numbers import money

    findings = []
    for verdict in find_breaks(requests, prices).ttl_advice.sessions:
        if not verdict.pays:
            continue
        first, longer, session = verdict.spared[0].request, verdict.longer, verdict.session or ""
        gaps = ", ".join(f"{(b.gap_seconds or 0) / 60:.0f} min" for b in verdict.spared[:5])
        findings.append(
            Finding(
                rule="SN012",
                severity=RULES["SN012"].severity,
                message=f"{len(verdict.spared)} idle gap(s) outlived the cache in session "
                f"{session}: {longer.name} ({longer.setting}) would have paid for itself",
                file=first.file,
                line=first.line,
                request=first.key,
                evidence=f"gaps of {gaps}; {money(verdict.avoided_rebuild_cost_usd)} of "
                f"rebuilds avoided, {money(verdict.extra_write_cost_usd)} more for its writes",
                fix=RULES["SN012"].fix,
                saving=Saving(
                    verdict.avoided_tokens,
                    verdict.net_saving_usd,
                    "net of the dearer writes (as `sniff cache --breaks` gives it)",
                ),
            )
        )
    return findings


def _priced(
    findings: list[Finding],
    prompts: list[LintPrompt],
    chains: list[list[LintPrompt]],
    prices: PriceBook,
    config: LintConfig,
) -> list[Finding]:
    """Each priceable problem gets the engine's saving, once per file or session."""
    chain_of = {id(p): chain for chain in chains for p in chain}
    by_file = {p.file: p for p in prompts if not p.logged}
    by_request: dict[tuple[str, str | None], LintPrompt] = {}
    for each in prompts:  # looked up, not searched for, by each finding
        by_request.setdefault((each.file, each.request), each)
    estimates: dict[str, Saving | None] = {}
    """A prompt file's estimate: one for all its priced rules (it replays the whole file)."""
    done: set[tuple[str, str]] = set()
    priced = []
    for found in findings:
        if found.rule in PRICED_RULES and found.saving is None:
            prompt = by_request.get((found.file, found.request))
            key = (found.file, found.rule if prompt is None or not prompt.logged else "chain")
            if prompt is not None and key not in done:
                done.add(key)
                if prompt.logged:
                    saving = chain_saving(chain_of.get(id(prompt), [prompt]), prices)
                else:
                    if found.file not in estimates:
                        target = by_file.get(found.file, prompt)
                        estimates[found.file] = file_saving(target, prices, config.calls_per_minute)
                    saving = estimates[found.file]
                found = replace(found, saving=saving)
        priced.append(found)
    return priced


__all__ = ["LintConfig", "LintReport", "Loader", "check", "finding", "lint", "load_config"]
