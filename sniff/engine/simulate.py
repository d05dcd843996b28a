"""Provides `simulate`: what a prefix cache would read and write for each request, under a policy.

Requests are replayed in the order they were sent. Three kinds of policy:
- `breakpoints` (Anthropic): only marked blocks write entries; each breakpoint looks back up to
  `lookback_blocks` blocks for an entry a previous request wrote that is live and already
  available; the reads, 1-hour writes and 5-minute writes follow the provider's billing
  positions (A, B, C in docs/prompt-caching.md §1.2).
- `automatic` (OpenAI, ideal): every request caches its whole prompt; a request reads its
  longest live prefix, rounded down to the policy's granularity, when it reaches the minimum.
- `lru` (self-hosted engines): a capacity-bounded cache of blocks, least recently used leaves
  evicted first, no expiry.

The work per request is its new blocks plus a few steps along its path: linear in new tokens.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime

from sniff.engine.policies import Policy
from sniff.engine.prompts import SimPrompt
from sniff.engine.tree import Node


@dataclass(frozen=True, slots=True)
class SimUsage:
    """One request's prompt under a simulated cache."""

    read: int
    write_5m: int
    write_1h: int
    uncached: int
    hit: Node | None
    """The deepest prefix read from cache (None: a miss)."""

    @property
    def written(self) -> int:
        """Tokens written to the cache."""
        return self.write_5m + self.write_1h


@dataclass(slots=True)
class _Entry:
    expires: float
    available: float
    ttl: str
    born: float


def simulate(prompts: Iterable[SimPrompt], policy: Policy) -> list[SimUsage]:
    """The simulated cache usage of each prompt, in the order given (the order they were sent)."""
    if policy.kind == "breakpoints":
        one = _Breakpoints(policy).one
    elif policy.kind == "lru":
        one = _Lru(policy).one
    else:
        one = _Automatic(policy).one
    return [one(prompt) for prompt in prompts]


class _Breakpoints:
    """Anthropic: entries at breakpoints only, looked up backwards from each breakpoint."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.entries: dict[Node, _Entry] = {}
        self.minimum = _Minimums(policy)

    def one(self, prompt: SimPrompt) -> SimUsage:
        policy = self.policy
        marks = prompt.marks[: policy.max_breakpoints]
        hit: Node | None = None
        for node, _ttl in marks:
            found = self._lookup(node, prompt.start)
            if found is not None and (hit is None or found.end > hit.end):
                hit = found
        size = prompt.prompt_tokens
        read = min(hit.end, size) if hit is not None else 0
        minimum = self.minimum(prompt.request.model, prompt.start)
        chosen = policy.ttl if policy.force_ttl else None
        writes = [
            (n, chosen or t or policy.ttl) for n, t in marks if n.end > read and n.end >= minimum
        ]
        one_hour = min(max([n.end for n, t in writes if t == "1h"] + [read]), size)
        all_writes = min(max([n.end for n, _t in writes] + [read]), size)
        for node, ttl in writes:
            self._put(node, ttl, prompt)
        return SimUsage(
            read=read,
            write_5m=all_writes - one_hour,
            write_1h=one_hour - read,
            uncached=max(prompt.prompt_tokens - all_writes, 0),
            hit=hit,
        )

    def _lookup(self, node: Node, start: float) -> Node | None:
        """The entry a breakpoint finds: itself or one of the blocks within the lookback."""
        current: Node | None = node
        for _ in range(self.policy.lookback_blocks):
            if current is None or current.parent is None:
                return None
            entry = self.entries.get(current)
            if entry is not None and _live(entry, start, self.policy):
                if self.policy.refresh_on_hit:
                    entry.expires = start + self.policy.seconds(entry.ttl)
                return current
            current = current.parent
        return None

    def _put(self, node: Node, ttl: str, prompt: SimPrompt) -> None:
        available = (
            prompt.available if self.policy.available_after == "first_token" else prompt.start
        )
        entry = self.entries.get(node)
        expires = prompt.start + self.policy.seconds(ttl)
        if entry is None or prompt.start >= entry.expires:
            self.entries[node] = _Entry(expires, available, ttl, prompt.start)
        else:  # written before and not expired, maybe not readable yet: the earliest writer wins
            entry.expires = max(entry.expires, expires)
            entry.available = min(entry.available, available)


class _Automatic:
    """OpenAI-style: every prefix of every request is cached, with an idle lifetime.

    A request keeps its whole path warm: every prefix of it is used again.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.entries: dict[Node, _Entry] = {}
        self.lifetime = policy.seconds(None)
        self.minimum = _Minimums(policy)

    def one(self, prompt: SimPrompt) -> SimUsage:
        policy = self.policy
        start = prompt.start
        entries = self.entries
        hit: Node | None = None
        node: Node | None = prompt.tail
        while node is not None and node.parent is not None:  # the first live one is deepest
            entry = entries.get(node)
            if entry is not None and _live(entry, start, policy):
                hit = node
                break
            node = node.parent
        minimum = self.minimum(prompt.request.model, start)
        read = 0
        if hit is not None and prompt.prompt_tokens >= minimum and hit.end >= minimum:
            read = min(hit.end, prompt.prompt_tokens) // policy.granularity * policy.granularity
        self._keep_warm(prompt)
        return SimUsage(read, prompt.prompt_tokens - read, 0, 0, hit if read else None)

    def _keep_warm(self, prompt: SimPrompt) -> None:
        start = prompt.start
        available = start if self.policy.available_after == "start" else prompt.available
        expires = start + self.lifetime
        node: Node | None = prompt.tail
        while node is not None and node.parent is not None:
            entry = self.entries.get(node)
            if entry is None or not _live(entry, start, self.policy):
                self.entries[node] = _Entry(expires, available, self.policy.ttl, start)
            elif entry.expires < expires:
                entry.expires = expires
            node = node.parent


class _Lru:
    """A self-hosted engine: a bounded prefix cache, least recently used leaves out first.

    A request uses every block of its prompt. Only leaves are evicted (a prefix with cached
    extensions is in use through them), oldest use first, so a cached block's ancestors are
    always cached and the deepest cached block on a path is the whole cached prefix.
    """

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.used: dict[Node, int] = {}
        """Cached node → when it was last used (a counter)."""
        self.extensions: dict[Node, int] = {}
        """Cached node → how many of its children are cached."""
        self.leaves: list[tuple[int, int, Node]] = []
        """A heap of (last use, serial, node); stale entries are skipped when popped."""
        self.clock = 0
        self.size = 0

    def one(self, prompt: SimPrompt) -> SimUsage:
        policy = self.policy
        path = list(prompt.tail.path())  # last block first
        hit = next((node for node in path if node in self.used), None)
        read = 0
        if hit is not None:
            read = min(hit.end, prompt.prompt_tokens) // policy.granularity * policy.granularity
        self.clock += 1
        for node in reversed(path):  # root side first: a parent is cached before its child
            if node not in self.used:
                self.size += node.tokens
                parent = node.parent
                if parent is not None and parent in self.used:
                    self.extensions[parent] = self.extensions.get(parent, 0) + 1
            self.used[node] = self.clock
        tail = prompt.tail
        if not self.extensions.get(tail):
            heapq.heappush(self.leaves, (self.clock, tail.serial, tail))
        self._evict()
        return SimUsage(read, prompt.prompt_tokens - read, 0, 0, hit if read else None)

    def _evict(self) -> None:
        capacity = self.policy.kv_tokens
        while capacity and self.size > capacity and self.leaves:
            used, _serial, node = heapq.heappop(self.leaves)
            if self.used.get(node) != used or self.extensions.get(node):
                continue  # used again since, or no longer a leaf: a stale heap entry
            del self.used[node]
            self.size -= node.tokens
            parent = node.parent
            if parent is not None and parent in self.used:
                self.extensions[parent] -= 1
                if not self.extensions[parent]:
                    heapq.heappush(self.leaves, (self.used[parent], parent.serial, parent))


class _Minimums:
    """The policy's minimum cacheable prefix per model and day, memoized."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.found: dict[tuple[str, int], int] = {}

    def __call__(self, model: str, start: float) -> int:
        key = (model, int(start // 86400))
        found = self.found.get(key)
        if found is None:
            found = self.found[key] = self.policy.min_tokens_for(model, _day(start))
        return found


def _live(entry: _Entry, start: float, policy: Policy) -> bool:
    if not entry.available <= start < entry.expires:
        return False
    cap = policy.max_lifetime_seconds
    return not cap or start < entry.born + cap


def _day(start: float) -> date:
    return datetime.fromtimestamp(start, UTC).date()
