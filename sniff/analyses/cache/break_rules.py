"""Provides `CacheRules`: the provider rules the cache-break analysis applies to a request.

Why data: the smallest cacheable prefix and whether a model drops earlier thinking blocks at a
new user turn are rules providers changed model by model; they live with the other cache
policies (`data/cache_policies.toml`), dated and overridable by a policy file, and are read on
the first question: most runs over an index never ask one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sniff.model import Request

if TYPE_CHECKING:
    from sniff.engine.policies import Policy


class CacheRules:
    """Each provider's own cache policy, as it applies to one request."""

    def __init__(self, path: Path | None = None) -> None:
        """Args:
        path: a TOML file of policy values laid over the bundled ones (`--policy-file`).
        """
        self.path = path
        self._policies: dict[str, Policy] = {}
        self._minimums: dict[tuple[str, str, object], int] = {}
        self._thinking: dict[tuple[str, object], bool] = {}

    def minimum(self, request: Request) -> int:
        """The smallest prefix the request's provider caches for its model, on its day."""
        policy = self._policy(request)
        key = (policy.name, request.model, request.when.date())
        if key not in self._minimums:
            self._minimums[key] = policy.min_tokens_for(request.model, request.when.date())
        return self._minimums[key]

    def strips_thinking(self, request: Request) -> bool:
        """Whether the request's model drops earlier thinking blocks when a user turn begins
        (only Anthropic's models think in blocks sent back)."""
        if request.provider == "openai":
            return False
        key = (request.model, request.when.date())
        if key not in self._thinking:
            policy = self._policy(request)
            self._thinking[key] = policy.strips_thinking(request.model, request.when.date())
        return self._thinking[key]

    def _policy(self, request: Request) -> Policy:
        if not self._policies:
            from sniff.engine.policies import load_policies

            self._policies = load_policies(self.path)
        return self._policies["openai" if request.provider == "openai" else "anthropic"]
