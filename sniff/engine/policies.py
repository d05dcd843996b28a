"""Provides cache policies: provider rules as dated, overridable data (`data/cache_policies.toml`).

Why data: every provider changed its caching rules during 2025-2026 (minimums per model, TTLs,
granularity). The rules live in a file with their sources; a user overrides any value from the
command line or with a file of the same shape, without waiting for a release.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from sniff.data_files import bundled_and_given
from sniff.errors import UserError

POLICIES = ("anthropic", "openai", "ideal", "engine")
KINDS = {"anthropic": "breakpoints", "openai": "automatic", "ideal": "automatic", "engine": "lru"}
"""How each policy decides what is cached: at marked breakpoints, every prefix, or LRU."""
OWN_POLICY = {"anthropic": "anthropic", "openai": "openai"}
"""The policy a provider's logs were produced with (any other provider's: `ideal`)."""


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
class LongerTtl:
    """A longer cache lifetime a provider sells, and what it costs (`longer_ttl` in the data)."""

    provider: str
    """The policy (provider) that offers it."""
    ttl: str
    name: str
    """How the advice names it: `the 1-hour TTL`."""
    setting: str
    """How a request asks for it."""
    seconds: float
    """The idle gap it can be counted on to bridge."""
    write_price: str
    """The price class its writes are billed at (a `Rates` field), empty when no dearer."""
    instead_of: str
    """The price class of the default TTL's writes it replaces."""
    models: tuple[str, ...] = ()
    """The models that offer it (a name, or a dated snapshot of it); empty: every model."""
    not_in: tuple[str, ...] = ()
    """Log sources (agent tools) that have no setting for it."""
    since: str = ""
    source: str = ""

    def offered(self, source: str, model: str, day: date) -> bool:
        """Whether a request of `model` from `source` on `day` could have asked for it."""
        if source in self.not_in or day.isoformat() < self.since:
            return False
        return not self.models or any(
            model == name or _snapshot_of(model, name) for name in self.models
        )


def _snapshot_of(model: str, name: str) -> bool:
    """`gpt-4.1-2025-04-14` is a dated snapshot of `gpt-4.1`; `gpt-4.1-mini` is not."""
    rest = model[len(name) :]
    return model.startswith(name) and len(rest) == 11 and rest[0] == "-" and rest[1:5].isdigit()


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
    longer_ttl: LongerTtl | None = None
    """The longer lifetime the provider sells, if any."""
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
    raw, extra = bundled_and_given("cache_policies.toml", path, "policy")
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
            raise UserError(
                f"--ttl {ttl} cannot apply to the {policy.name} policy: it offers no {ttl} TTL "
                f"(its TTLs: {known})"
            )
        changes["ttl"] = ttl
        changes["force_ttl"] = True
    if min_tokens is not None:
        changes["min_tokens"] = min_tokens
        changes["min_tokens_rules"] = ()
    if kv_tokens is not None:
        changes["kv_tokens"] = kv_tokens
    return replace(policy, **changes)


@dataclass(frozen=True, slots=True)
class Simulation:
    """The policies `sniff cache` replays the logs under."""

    policies: dict[str, Policy]
    """Every policy by name, each provider's own (`OWN_POLICY`) with the overrides applied."""
    chosen: Policy | None
    """The one policy every request is replayed under, or None: each provider's own."""
    what_ifs: list[Policy]
    """The other policies the logs are replayed under, in the order shown."""


def simulation(
    policy_file: Path | None = None,
    *,
    policy: str | None = None,
    ttl: str | None = None,
    min_tokens: int | None = None,
    kv_tokens: int | None = None,
) -> Simulation:
    """The policies of `sniff cache`'s options: `--policy-file`, `--policy` (one policy for
    every request, as `--kv-tokens` alone chooses `engine`), `--ttl` and `--min-tokens` (on
    the chosen policy, else on each provider's own).

    Raises:
        UserError: an option names no policy or TTL, or a TTL no policy it applies to offers;
            the policy file is invalid.
    """
    policies = load_policies(policy_file)
    if policy is not None and policy not in POLICIES:
        raise UserError(f"--policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if ttl is not None and ttl not in ("5m", "1h"):
        raise UserError(f"--ttl must be 5m or 1h, not {ttl!r}")
    chosen = None
    if policy is not None or kv_tokens is not None:
        # one policy for every request: a TTL it does not offer is a usage error
        chosen = with_overrides(
            policies[policy or "engine"], ttl=ttl, min_tokens=min_tokens, kv_tokens=kv_tokens
        )
    elif ttl is not None or min_tokens is not None:
        policies = _own_with_overrides(policies, ttl=ttl, min_tokens=min_tokens)
    return Simulation(policies, chosen, _what_if_policies(policies, kv_tokens))


def _what_if_policies(policies: dict[str, Policy], kv_tokens: int | None) -> list[Policy]:
    """The policies `sniff cache` and the report replay the logs under, in the order shown."""
    return [
        with_overrides(policies["anthropic"], ttl="5m"),
        with_overrides(policies["anthropic"], ttl="1h"),
        policies["openai"],
        with_overrides(policies["engine"], kv_tokens=kv_tokens),
        policies["ideal"],
    ]


def _own_with_overrides(
    policies: dict[str, Policy],
    *,
    ttl: str | None = None,
    min_tokens: int | None = None,
) -> dict[str, Policy]:
    """`policies` with the overrides applied to each provider's own policy: a TTL only to the
    policies that offer it, as the provider would.

    Raises:
        UserError: none of them offers `ttl`.
    """
    chosen = sorted(set(OWN_POLICY.values()))
    if ttl is not None and not any(ttl in policies[name].ttl_seconds for name in chosen):
        raise UserError(f"--ttl {ttl} is not a TTL of any provider's policy ({', '.join(chosen)})")
    changed = dict(policies)
    for name in chosen:
        offered = ttl if ttl is not None and ttl in policies[name].ttl_seconds else None
        changed[name] = with_overrides(policies[name], ttl=offered, min_tokens=min_tokens)
    return changed


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
            longer_ttl=_longer_ttl(name, values.get("longer_ttl")),
            thinking_rules=thinking,
            thinking_source=str(values.get("thinking_source", "")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise UserError(f"cache policy {name!r}: bad or missing value ({error})") from error


PRICE_CLASSES = frozenset({"", "input", "cache_read", "cache_write_5m", "cache_write_1h"})


def _longer_ttl(provider: str, values: Any) -> LongerTtl | None:
    if values is None:
        return None
    prices = (str(values.get("write_price", "")), str(values.get("instead_of", "")))
    if not set(prices) <= PRICE_CLASSES:
        raise ValueError(f"longer_ttl prices must be among {', '.join(sorted(PRICE_CLASSES))}")
    return LongerTtl(
        provider=provider,
        ttl=str(values["ttl"]),
        name=str(values["name"]),
        setting=str(values["setting"]),
        seconds=float(values["seconds"]),
        write_price=prices[0],
        instead_of=prices[1],
        models=tuple(str(model) for model in values.get("models", ())),
        not_in=tuple(str(source) for source in values.get("not_in", ())),
        since=str(values.get("since", "")),
        source=str(values.get("source", "")),
    )
