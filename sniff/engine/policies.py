"""Provides cache policies: provider rules as dated, overridable data (`data/cache_policies.toml`).

Why data: every provider changed its caching rules during 2025-2026 (minimums per model, TTLs,
granularity). The rules live in a file with their sources; a user overrides any value from the
command line or with a file of the same shape, without waiting for a release.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from datetime import date
from importlib.resources import files
from pathlib import Path
from typing import Any

from sniff.errors import UserError

POLICIES = ("anthropic", "openai", "ideal", "engine")
KINDS = {"anthropic": "breakpoints", "openai": "automatic", "ideal": "automatic", "engine": "lru"}
"""How each policy decides what is cached: at marked breakpoints, every prefix, or LRU."""


@dataclass(frozen=True, slots=True)
class MinTokensRule:
    """From `since` on, prefixes of models whose name contains `model` need `tokens`."""

    model: str
    tokens: int
    since: str = ""


@dataclass(frozen=True, slots=True)
class ThinkingRule:
    """From `since` on, models whose name contains `model` strip earlier thinking blocks at a
    new user turn (`strips`), or keep them."""

    model: str
    strips: bool
    since: str = ""


@dataclass(frozen=True, slots=True)
class Policy:
    """One cache policy with every parameter the simulator reads."""

    name: str
    kind: str
    """`breakpoints`, `automatic` or `lru`."""
    description: str
    source: str
    min_tokens: int
    granularity: int
    ttl: str
    """The TTL of writes that do not name one (`5m`, `1h`, `idle`, `forever`)."""
    ttl_seconds: dict[str, float]
    refresh_on_hit: bool
    available_after: str
    """`first_token` (an entry is readable once its writer streams) or `start`."""
    writes_billed: bool
    max_breakpoints: int = 4
    lookback_blocks: int = 20
    max_lifetime_seconds: float = 0.0
    """A hard cap on an entry's life however often it is hit (0: none)."""
    kv_tokens: int = 0
    """Capacity of an LRU cache (0: unbounded)."""
    min_tokens_rules: tuple[MinTokensRule, ...] = ()
    force_ttl: bool = False
    """Write every breakpoint with `ttl`, whatever TTL the request marked it with (what-ifs)."""
    thinking_rules: tuple[ThinkingRule, ...] = ()
    thinking_source: str = ""
    """Where the thinking rules were read, and when."""

    def seconds(self, ttl: str | None) -> float:
        """The lifetime of an entry written with `ttl` (the policy's default when None)."""
        return self.ttl_seconds.get(ttl or self.ttl, self.ttl_seconds[self.ttl])

    def min_tokens_for(self, model: str, day: date) -> int:
        """The smallest cacheable prefix for `model` on `day`."""
        found = self.min_tokens
        iso = day.isoformat()
        for rule in self.min_tokens_rules:
            if rule.model in model and rule.since <= iso:
                found = rule.tokens
        return found

    def strips_thinking(self, model: str, day: date) -> bool:
        """Whether `model`, on `day`, drops earlier thinking blocks when a user turn begins."""
        found = False
        iso = day.isoformat()
        for rule in self.thinking_rules:
            if rule.model in model and rule.since <= iso:
                found = rule.strips
        return found

    def label(self) -> str:
        """The policy as a user names it, with its TTL when one was chosen."""
        return f"{self.name} {self.ttl}" if self.force_ttl else self.name


def load_policies(path: Path | None = None) -> dict[str, Policy]:
    """The bundled policies, with the values of the TOML file at `path` laid over them.

    A file that sets a policy's `min_tokens` without `min_tokens_rules` sets one minimum for
    every model, as `--min-tokens` does.

    Raises:
        UserError: the file cannot be read or names unknown policies or parameters.
    """
    raw = tomllib.loads(files("sniff.data").joinpath("cache_policies.toml").read_text())
    if path is not None:
        try:
            extra = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise UserError(f"cannot read policy file {path}: {error}") from error
        for name, values in extra.items():
            if name not in raw or not isinstance(values, dict):
                raise UserError(f"{path}: unknown policy {name!r} (known: {', '.join(POLICIES)})")
            if "min_tokens" in values and "min_tokens_rules" not in values:
                values = {**values, "min_tokens_rules": []}  # one minimum for every model
            raw[name] = {**raw[name], **values}
    return {name: _policy(name, raw[name]) for name in POLICIES}


def with_overrides(
    policy: Policy,
    *,
    ttl: str | None = None,
    min_tokens: int | None = None,
    kv_tokens: int | None = None,
) -> Policy:
    """The policy with command-line overrides applied.

    Raises:
        UserError: a TTL the policy does not know.
    """
    changes: dict[str, Any] = {}
    if ttl is not None:
        if ttl not in policy.ttl_seconds:
            known = ", ".join(policy.ttl_seconds)
            raise UserError(f"--ttl {ttl} is not a TTL of the {policy.name} policy ({known})")
        changes["ttl"] = ttl
        changes["force_ttl"] = True
    if min_tokens is not None:
        changes["min_tokens"] = min_tokens
        changes["min_tokens_rules"] = ()
    if kv_tokens is not None:
        changes["kv_tokens"] = kv_tokens
    return replace(policy, **changes)


def _policy(name: str, values: dict[str, Any]) -> Policy:
    try:
        rules = tuple(
            MinTokensRule(str(rule["model"]), int(rule["tokens"]), str(rule.get("since", "")))
            for rule in values.get("min_tokens_rules", [])
        )
        thinking = tuple(
            ThinkingRule(str(rule["model"]), bool(rule["strips"]), str(rule.get("since", "")))
            for rule in values.get("thinking_rules", [])
        )
        return Policy(
            name=name,
            kind=KINDS[name],
            description=str(values.get("description", "")),
            source=str(values.get("source", "")),
            min_tokens=int(values["min_tokens"]),
            granularity=int(values.get("granularity", 1)),
            ttl=str(values["ttl"]),
            ttl_seconds={str(k): float(v) for k, v in values["ttl_seconds"].items()},
            refresh_on_hit=bool(values.get("refresh_on_hit", True)),
            available_after=str(values.get("available_after", "first_token")),
            writes_billed=bool(values.get("writes_billed", False)),
            max_breakpoints=int(values.get("max_breakpoints", 4)),
            lookback_blocks=int(values.get("lookback_blocks", 20)),
            max_lifetime_seconds=float(values.get("max_lifetime_seconds", 0)),
            kv_tokens=int(values.get("kv_tokens", 0)),
            min_tokens_rules=rules,
            thinking_rules=thinking,
            thinking_source=str(values.get("thinking_source", "")),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise UserError(f"cache policy {name!r}: bad or missing value ({error})") from error
