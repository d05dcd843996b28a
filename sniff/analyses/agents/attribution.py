"""Provides `attribute`: what each subagent type, skill and MCP server cost (`sniff agents`).

The rules, from what the logs hold:
- A subagent run is a subagent chain (`Request.agent_id`) tied to the Task (or Agent) launch
  that started it: the launch whose result names the run (Claude Code's
  `toolUseResult.agentId`, 2.0 on), else (1.0's inline sidechains) the launch of the session
  open from before the chain's first request to after its last, when only one is, or only
  parallel launches of one type from one response are. Its type is the launch's
  `subagent_type`, its parent request the one that asked for the launch. Subagent requests
  tied to no launch are in the row `NOT_LINKED`, so the types sum to every subagent request.
- A skill's requests are those of the chain that invoked it (`Skill`), from the one after the
  invocation up to the next user request of the session or the chain's next skill invocation.
- An MCP server's tools are the `mcp__<server>__<tool>` ones; its cost is the cost of the
  requests that asked for its tools, each shared equally among the tools that request asked
  for, and its context added the prompt tokens its results put into later prompts (as
  `analyses.agents.activity` counts it per tool).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sniff.analyses.cost.commits import Spent, spent
from sniff.ingest.tool_detail import SKILL_TOOLS, SUBAGENT_TOOLS
from sniff.model import Activity, Agent, Request, ToolCall, ToolResult

NOT_LINKED = "(no launch named)"
"""The subagent type of the subagent requests no launch in the logs names."""
UNNAMED = "(unnamed)"
SLACK = 1.0
"""Seconds a run's first request may start before its launch was logged, and its last end
after the launch's result: each line is written when its block is complete."""


@dataclass(frozen=True, slots=True)
class GroupRow:
    """A subagent type or a skill: its launches or invocations, and what their requests used."""

    name: str
    runs: int
    """Launches (a subagent type) or invocations (a skill)."""
    spent: Spent


@dataclass(frozen=True, slots=True)
class RunRow:
    """One subagent run, its total, and the request that launched it."""

    agent_id: str
    session_id: str
    subagent_type: str
    parent_key: str
    """The request that asked for the launch."""
    spent: Spent


@dataclass(frozen=True, slots=True)
class ServerRow:
    """One MCP server: its tools' calls, failures, context added and cost."""

    server: str
    tools: int
    calls: int
    errors: int
    result_tokens: int
    """Prompt tokens its tools' results added to later prompts."""
    cost_usd: float | None
    """Its share of the cost of the requests that asked for its tools; None when unpriced."""


@dataclass(frozen=True, slots=True)
class Attribution:
    """Cost by subagent type, subagent run, skill and MCP server."""

    subagent_types: list[GroupRow] = field(default_factory=list)
    runs: list[RunRow] = field(default_factory=list)
    skills: list[GroupRow] = field(default_factory=list)
    servers: list[ServerRow] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ServerUse:
    """What `attribute` needs of one MCP tool call (an `agents.ToolUse`'s parts)."""

    call: ToolCall
    server: str
    failed: bool
    result_tokens: int


def attribute(
    requests: Sequence[Request], activity: Activity, mcp: Iterable[ServerUse]
) -> Attribution:
    """The subagent types, runs, skills and MCP servers of `requests` and their activity."""
    by_key = {request.key: request for request in requests}
    types, runs = _subagents(requests, activity)
    asked = Counter(call.key for call in activity.calls)
    return Attribution(
        types, runs, _skills(requests, activity, by_key), _servers(mcp, by_key, asked)
    )


def _subagents(
    requests: Sequence[Request], activity: Activity
) -> tuple[list[GroupRow], list[RunRow]]:
    """Each subagent type's launches and runs' requests, and each run linked to its launch."""
    chains: dict[tuple[str, str], list[Request]] = {}
    for request in requests:
        if request.agent == Agent.SUBAGENT:
            chains.setdefault((request.session_id, request.agent_id), []).append(request)
    results = {result.tool_use_id: result for result in activity.results}
    sessions = {request.session_id for request in requests}
    launches = [c for c in activity.calls if c.name in SUBAGENT_TOOLS and c.session_id in sessions]
    linked: list[tuple[ToolCall, str, list[Request]]] = []
    open_: list[ToolCall] = []
    for call in launches:
        result = results.get(call.id)
        run = result.agent_id if result is not None else None
        mine = chains.pop((call.session_id, run), []) if run else []
        if run and mine:
            linked.append((call, run, mine))
        else:
            open_.append(call)
    for (session, run), mine in list(chains.items()):
        launch = _by_time(open_, results, session, mine)
        if launch is not None:
            linked.append((launch, run, chains.pop((session, run))))
    counts = Counter(call.detail or UNNAMED for call in launches)
    totals: dict[str, Spent] = {}
    runs = []
    for call, run, mine in linked:
        kind, used = call.detail or UNNAMED, spent(mine)
        runs.append(RunRow(run, call.session_id, kind, call.key, used))
        totals[kind] = totals.get(kind, Spent()).plus(used)
    rest = [request for chain in chains.values() for request in chain]
    if rest:
        totals[NOT_LINKED] = spent(rest)
    rows = [GroupRow(kind, counts.get(kind, 0), totals.get(kind, Spent()))
            for kind in counts.keys() | totals.keys()]  # fmt: skip
    runs.sort(key=lambda row: (-(row.spent.cost_usd or 0.0), row.session_id, row.agent_id))
    return _dearest(rows), runs


def _by_time(
    launches: list[ToolCall], results: dict[str, ToolResult], session: str, chain: list[Request]
) -> ToolCall | None:
    """The launch of a run no result names (1.0's inline sidechains): the launches of its
    session open from before its first request to after its last (`SLACK`), when they all
    share one type and one asking request (parallel launches of one response); else None."""
    first = min(request.when.timestamp() for request in chain)
    last = max(request.ended_at.timestamp() for request in chain)
    found = []
    for call in launches:
        result = results.get(call.id)
        if call.session_id != session or call.at is None or result is None or result.at is None:
            continue
        if call.at - SLACK <= first and last <= result.at + SLACK:
            found.append(call)
    if not found or len({(call.key, call.detail) for call in found}) > 1:
        return None
    return found[0]


def _skills(
    requests: Sequence[Request], activity: Activity, by_key: dict[str, Request]
) -> list[GroupRow]:
    """Each skill's invocations and the requests of its chain until the session's next user
    request or the chain's next invocation."""
    stops: dict[str, list[float]] = {}
    for event in activity.events:
        if event.kind == "instruction" and event.at is not None:
            stops.setdefault(event.session_id, []).append(event.at)
    invoked: dict[tuple[str, str], list[tuple[float, str]]] = {}
    for call in activity.calls:
        asking = by_key.get(call.key)
        if call.name in SKILL_TOOLS and asking is not None:
            chain = (asking.session_id, asking.agent_id)
            invoked.setdefault(chain, []).append((asking.when.timestamp(), call.detail or UNNAMED))
    chains: dict[tuple[str, str], list[Request]] = {}
    for request in requests:
        if (request.session_id, request.agent_id) in invoked:
            chains.setdefault((request.session_id, request.agent_id), []).append(request)
    counts: dict[str, int] = {}
    totals: dict[str, Spent] = {}
    for chain, skills in invoked.items():
        skills.sort()
        bounds = sorted(stops.get(chain[0], []) + [at for at, _ in skills])
        for at, name in skills:
            counts[name] = counts.get(name, 0) + 1
            end = next((bound for bound in bounds if bound > at), float("inf"))
            mine = [r for r in chains[chain] if at < r.when.timestamp() < end]
            totals[name] = totals.get(name, Spent()).plus(spent(mine))
    return _dearest([GroupRow(name, runs, totals[name]) for name, runs in counts.items()])


def _servers(
    mcp: Iterable[ServerUse], by_key: dict[str, Request], asked: Counter[str]
) -> list[ServerRow]:
    """Each MCP server's calls, failures, context added, and share of its asking requests'
    cost (`asked`: how many tools each request asked for)."""
    uses = list(mcp)
    rows: dict[str, list[float]] = {}
    tools: dict[str, set[str]] = {}
    priced: set[str] = set()
    for use in uses:
        row = rows.setdefault(use.server, [0, 0, 0, 0.0])
        tools.setdefault(use.server, set()).add(use.call.name)
        row[0] += 1
        row[1] += use.failed
        row[2] += use.result_tokens
        asking = by_key.get(use.call.key)
        if asking is not None and asking.cost is not None:
            row[3] += asking.cost.total_usd / asked[use.call.key]
            priced.add(use.server)
    result = [
        ServerRow(server, len(tools[server]), int(calls), int(errors), int(added),
                  cost if server in priced else None)
        for server, (calls, errors, added, cost) in rows.items()
    ]  # fmt: skip
    return sorted(result, key=lambda row: (-(row.cost_usd or 0.0), -row.calls, row.server))


def _dearest(rows: list[GroupRow]) -> list[GroupRow]:
    return sorted(rows, key=lambda row: (-(row.spent.cost_usd or 0.0), -row.runs, row.name))
