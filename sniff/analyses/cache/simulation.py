"""Provides the cache analysis: observed vs simulated caching, the simulation's error, what-ifs.

Why observed *and* simulated: the reported counts say what happened; the simulation says why
(which prefix was read, which changed, which expired) and what another policy would have done.
A simulation is only worth what it reproduces, so each run is compared with the reported cache
reads under the policy the log was produced with, and the error is always shown.

Every request is simulated, whatever the filters: a cache is warmed by requests outside the
period or project a report looks at. Filters choose what is reported.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from sniff.engine import (
    OWN_POLICY,
    Node,
    Policy,
    PrefixTree,
    SimPrompt,
    SimUsage,
    build_prompts,
    simulate,
)
from sniff.engine.prompts import session_ttls
from sniff.ingest.parallel import map_balanced
from sniff.model import Request, Usage
from sniff.pricing import PriceBook

SHARED_PREFIXES = 10
PARALLEL_MIN_REQUESTS = 5_000
"""Below this many requests, forking workers for the what-ifs would cost more than it saves."""


@dataclass(slots=True)
class Measures:
    """Prompt tokens by what the cache did with them, and their cost."""

    requests: int = 0
    prompt_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_5m_tokens: int = 0
    cache_write_1h_tokens: int = 0
    input_tokens: int = 0
    cost_usd: float = 0.0
    priced_requests: int = 0

    def add(self, usage: Usage, cost: float | None) -> None:
        """Count one request in."""
        self.requests += 1
        self.prompt_tokens += usage.prompt_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_write_5m_tokens += usage.cache_write_5m_tokens
        self.cache_write_1h_tokens += usage.cache_write_1h_tokens
        self.input_tokens += usage.input_tokens
        if cost is not None:
            self.cost_usd += cost
            self.priced_requests += 1

    def add_simulated(
        self, request: Request, sim: SimUsage, policy: Policy, prices: PriceBook
    ) -> float | None:
        """Count one simulated request in (writes as input where the policy does not bill
        them); returns its cost."""
        billed = policy.writes_billed
        uncached = sim.uncached if billed else sim.uncached + sim.write_5m + sim.write_1h
        write_5m, write_1h = (sim.write_5m, sim.write_1h) if billed else (0, 0)
        prompt = uncached + sim.read + write_5m + write_1h
        self.requests += 1
        self.prompt_tokens += prompt
        self.cache_read_tokens += sim.read
        self.cache_write_5m_tokens += write_5m
        self.cache_write_1h_tokens += write_1h
        self.input_tokens += uncached
        rates = prices.rates(request.model, request.when, prompt, request.provider)
        if rates is None:
            return None
        cost = (
            uncached * rates.input
            + sim.read * rates.cache_read
            + write_5m * rates.cache_write_5m
            + write_1h * rates.cache_write_1h
            + request.usage.output_tokens * rates.output
        )
        self.cost_usd += cost
        self.priced_requests += 1
        return cost

    def merge(self, other: Measures) -> None:
        """Add another group's sums."""
        self.requests += other.requests
        self.prompt_tokens += other.prompt_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_5m_tokens += other.cache_write_5m_tokens
        self.cache_write_1h_tokens += other.cache_write_1h_tokens
        self.input_tokens += other.input_tokens
        self.cost_usd += other.cost_usd
        self.priced_requests += other.priced_requests

    @property
    def hit_rate(self) -> float | None:
        """Σ cache reads / Σ prompt tokens."""
        return self.cache_read_tokens / self.prompt_tokens if self.prompt_tokens else None

    @property
    def cost(self) -> float | None:
        """The cost, or None when no request is priced."""
        return None if self.requests and not self.priced_requests else self.cost_usd


@dataclass(frozen=True, slots=True)
class SimulationError:
    """How far simulated cache reads are from reported ones, token-weighted."""

    bias: float | None
    """(Σ simulated − Σ reported) / Σ reported: the error of the totals."""
    absolute: float | None
    """Σ |simulated − reported| / Σ reported, per request: the error of the detail."""
    worst_file: str | None
    worst_file_bias: float | None
    """The file whose totals are off by the most tokens, and by what share."""


@dataclass(frozen=True, slots=True)
class Comparison:
    """One group (a session, a project) observed and simulated."""

    key: str
    observed: Measures
    simulated: Measures


@dataclass(frozen=True, slots=True)
class WhatIf:
    """The same requests under another policy."""

    label: str
    description: str
    measures: Measures
    delta_usd: float | None
    """Simulated cost minus observed cost (negative: it would have cost less)."""


@dataclass(frozen=True, slots=True)
class SharedPrefix:
    """A prefix many requests share: worth caching, or worth keeping stable."""

    label: str
    model: str
    tokens: int
    requests: int
    sessions: int
    value_usd: float | None
    """What reading it from cache saves, when every request but the first reads it."""


@dataclass(frozen=True, slots=True)
class CacheReport:
    """`sniff cache`."""

    policy: str
    """`as logged` (each provider's own policy) or the chosen policy's label."""
    observed: Measures
    simulated: Measures
    error: SimulationError
    by_session: list[Comparison]
    by_project: list[Comparison]
    what_if: list[WhatIf]
    shared_prefixes: list[SharedPrefix]
    notes: list[str] = field(default_factory=list)


def analyze_cache(
    requests: Sequence[Request],
    prices: PriceBook,
    policies: dict[str, Policy],
    *,
    chosen: Policy | None = None,
    what_ifs: Sequence[Policy] = (),
    keep: Callable[[Request], bool] = lambda _request: True,
) -> CacheReport:
    """Simulate `requests` (under each provider's own policy, or `chosen`) and compare.

    Each what-if replay is independent of the others and needs only the prompts: on enough
    requests they run in forked workers (`map_balanced`), which inherit the prompts for free
    and send back only the sums, while this process simulates and sums the policy observed.

    Args:
        keep: which requests the report covers (all of them are simulated).
    """
    tree = PrefixTree()
    forced_ttl = chosen is not None and chosen.force_ttl
    prompts = build_prompts(requests, tree, None if forced_ttl else session_ttls(requests))
    kept = [  # a session's totals (Droid, Goose) are no call to simulate
        index for index, prompt in enumerate(prompts)
        if keep(prompt.request) and not prompt.request.rollup
    ]  # fmt: skip
    observed: list[CacheReport] = []
    measured = map_balanced(
        partial(_measure, prompts, kept, prices),
        list(what_ifs),
        [len(prompts)] * len(what_ifs),
        minimum=PARALLEL_MIN_REQUESTS * len(what_ifs),
        inherit=True,
        while_waiting=lambda: observed.append(
            _observed(prompts, kept, tree, prices, policies, chosen)
        ),
    )
    report = observed[0]
    rolled = sum(1 for prompt in prompts if prompt.request.rollup and keep(prompt.request))
    return replace(
        report,
        what_if=[
            WhatIf(policy.label(), policy.description, measures, _delta(measures, report.observed))
            for policy, measures in zip(what_ifs, measured, strict=True)
        ],
        notes=[*report.notes, *([ROLLUPS_LEFT_OUT.format(rolled)] if rolled else [])],
    )


ROLLUPS_LEFT_OUT = (
    "{:,} record(s) of many calls' totals (Copilot's segments, Droid's and Goose's sessions) "
    "left out: no call's prompt is in them, so what was paid here is less than `sniff scan`'s "
    "cost by theirs."
)


def _observed(
    prompts: list[SimPrompt],
    kept: list[int],
    tree: PrefixTree,
    prices: PriceBook,
    policies: dict[str, Policy],
    chosen: Policy | None,
) -> CacheReport:
    """The report without its what-ifs: the kept requests as logged and as simulated."""
    own = _own_runs(prompts, policies) if chosen is None else simulate(prompts, chosen)
    own_policies = [
        chosen or policies[OWN_POLICY.get(p.request.provider, "ideal")] for p in prompts
    ]
    sessions: dict[str, tuple[Measures, Measures]] = {}
    projects: dict[str, tuple[Measures, Measures]] = {}
    for index in kept:  # each request booked to its own project, as every command books it
        request = prompts[index].request
        cost = request.cost.total_usd if request.cost is not None else None
        for pair in (
            sessions.setdefault(request.session_id, (Measures(), Measures())),
            projects.setdefault(request.project, (Measures(), Measures())),
        ):
            pair[0].add(request.usage, cost)
            pair[1].add_simulated(request, own[index], own_policies[index], prices)
    observed, simulated = Measures(), Measures()
    for seen, simulated_session in sessions.values():
        observed.merge(seen)
        simulated.merge(simulated_session)
    return CacheReport(
        policy=chosen.label() if chosen is not None else _own_label(own_policies, kept),
        observed=observed,
        simulated=simulated,
        error=_error([prompts[i] for i in kept], [own[i] for i in kept]),
        by_session=_comparisons(sessions),
        by_project=_comparisons(projects),
        shared_prefixes=_shared_prefixes(tree, prompts, prices),
        notes=_notes(prompts, kept)
        + ([] if chosen else _ttl_scope(prompts, policies, own_policies, kept)),
        what_if=[],
    )


def _own_runs(prompts: list[SimPrompt], policies: dict[str, Policy]) -> list[SimUsage]:
    """Each provider's requests under its own policy (their caches never meet)."""
    groups: dict[str, list[int]] = {}
    for index, prompt in enumerate(prompts):
        name = OWN_POLICY.get(prompt.request.provider, "ideal")
        groups.setdefault(name, []).append(index)
    results: list[SimUsage | None] = [None] * len(prompts)
    for name, indexes in groups.items():
        for index, usage in zip(
            indexes, simulate([prompts[i] for i in indexes], policies[name]), strict=True
        ):
            results[index] = usage
    return [usage for usage in results if usage is not None]


def _error(prompts: list[SimPrompt], sims: list[SimUsage]) -> SimulationError:
    reported = sum(p.request.usage.cache_read_tokens for p in prompts)
    if not reported:
        return SimulationError(None, None, None, None)
    simulated = sum(s.read for s in sims)
    absolute = sum(
        abs(s.read - p.request.usage.cache_read_tokens) for p, s in zip(prompts, sims, strict=True)
    )
    files: dict[str, list[int]] = {}
    for prompt, sim in zip(prompts, sims, strict=True):
        sums = files.setdefault(prompt.request.file, [0, 0])
        sums[0] += prompt.request.usage.cache_read_tokens
        sums[1] += sim.read
    biases = {f: (s - r) / r for f, (r, s) in files.items() if r}
    # the file whose totals are off by the most tokens (a tiny file's ratio says little)
    worst = max(biases, key=lambda f: abs(files[f][1] - files[f][0]), default=None)
    return SimulationError(
        bias=(simulated - reported) / reported,
        absolute=absolute / reported,
        worst_file=worst,
        worst_file_bias=biases[worst] if worst is not None else None,
    )


def _comparisons(groups: dict[str, tuple[Measures, Measures]]) -> list[Comparison]:
    rows = [Comparison(key, observed, simulated) for key, (observed, simulated) in groups.items()]
    return sorted(rows, key=lambda row: -(row.observed.cost_usd or 0.0))


def _measure(
    prompts: list[SimPrompt], kept: list[int], prices: PriceBook, policy: Policy
) -> Measures:
    """The kept requests' sums had they been cached under `policy`."""
    runs = simulate(prompts, policy)
    measures = Measures()
    for position in kept:
        measures.add_simulated(prompts[position].request, runs[position], policy, prices)
    return measures


def _delta(measures: Measures, observed: Measures) -> float | None:
    cost, paid = measures.cost, observed.cost
    return None if cost is None or paid is None else cost - paid


def _shared_prefixes(
    tree: PrefixTree, prompts: list[SimPrompt], prices: PriceBook
) -> list[SharedPrefix]:
    """Prefixes that many requests share, most valuable first.

    A prefix is a candidate where requests part ways after it (a node with several
    continuations) or where a kind of content ends (tools, system prompt, hidden block).
    """
    through: dict[Node, int] = {}
    sessions: dict[Node, set[str]] = {}
    first_seen: dict[Node, SimPrompt] = {}
    for prompt in prompts:
        through[prompt.tail] = through.get(prompt.tail, 0) + 1
        sessions.setdefault(prompt.tail, set()).add(prompt.request.session_id)
        first_seen.setdefault(prompt.tail, prompt)
    for node in reversed(tree.nodes):  # children before parents: sum up the tree
        parent = node.parent
        if parent is None or parent.parent is None or node not in through:
            continue
        through[parent] = through.get(parent, 0) + through[node]
        group = sessions.setdefault(parent, set())
        if len(group) < 1000:
            group.update(sessions[node])
        first_seen.setdefault(parent, first_seen[node])
    found: list[SharedPrefix] = []
    for node, count in through.items():
        if count < 2 or not _boundary(node):
            continue
        prompt = first_seen[node]
        found.append(_shared(node, count, len(sessions.get(node, ())), prompt, prices))
    found.sort(key=lambda prefix: -(prefix.value_usd or 0.0) or -prefix.tokens)
    return found[:SHARED_PREFIXES]


def _boundary(node: Node) -> bool:
    if node.kind == "hidden" or len(node.children) > 1:
        return True
    return any(child.kind != node.kind for child in node.children.values())


def _shared(
    node: Node, count: int, session_count: int, prompt: SimPrompt, prices: PriceBook
) -> SharedPrefix:
    request = prompt.request
    rates = prices.rates(request.model, request.when, node.end, request.provider)
    value = None
    if rates is not None:
        value = (count - 1) * node.end * (rates.input - rates.cache_read)
    return SharedPrefix(_describe(node), request.model, node.end, count, session_count, value)


def _describe(node: Node) -> str:
    """`hidden system prompt and tools`, or the kinds of blocks the prefix is made of."""
    if node.kind == "hidden":  # labelled hidden:<source>:<model>:<version>:<agent>
        _, source, _model, version, agent = (node.block.split(":") + [""] * 5)[:5]
        tool = {"claude-code": "Claude Code", "codex": "Codex"}.get(source, source)
        return f"{agent} system prompt and tools, {tool} {version} (inferred)"
    kinds = Counter(part.kind for part in node.path())
    parts = [f"{count} {kind}" for kind, count in reversed(list(kinds.items()))]
    return " + ".join(parts) + f" ({node.depth} blocks)"


def _own_label(own_policies: list[Policy], kept: list[int]) -> str:
    """`as logged`, or the providers' own policies named where a TTL was forced on some."""
    used = list({id(own_policies[index]): own_policies[index] for index in kept}.values())
    if not any(policy.force_ttl for policy in used):
        return "as logged"
    return " + ".join(policy.label() for policy in used)


def _ttl_scope(
    prompts: list[SimPrompt],
    policies: dict[str, Policy],
    own_policies: list[Policy],
    kept: list[int],
) -> list[str]:
    """One line where a TTL forced on the providers' own policies did not reach every request:
    the others keep their provider's own rules, which offer no such TTL."""
    ttl = next((policy.ttl for policy in policies.values() if policy.force_ttl), None)
    if ttl is None:
        return []
    forced = Counter(prompts[i].request.provider for i in kept if own_policies[i].force_ttl)
    kept_own = Counter(prompts[i].request.provider for i in kept if not own_policies[i].force_ttl)
    if not kept_own:
        return []
    applied = (
        f"applied to the {_counted(forced)} request(s) only" if forced else "applies to no request"
    )
    return [
        f"TTL {ttl} {applied}: the {_counted(kept_own)} request(s) keep their provider's own "
        f"rules, which offer no {ttl} TTL."
    ]


def _counted(by_provider: dict[str, int]) -> str:
    return " and ".join(f"{count:,} {provider}" for provider, count in sorted(by_provider.items()))


def _notes(prompts: list[SimPrompt], kept: Iterable[int]) -> list[str]:
    notes = []
    usage_only = sum(1 for i in kept if not prompts[i].request.blocks)
    if usage_only:
        notes.append(
            f"{usage_only:,} request(s) come from logs without prompts: their prompts were "
            "rebuilt from the growth of the reported prompt size, with one inferred block for "
            "the system prompt and tools."
        )
    return notes
