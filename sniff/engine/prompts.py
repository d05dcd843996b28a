"""Provides each request's prompt as a path in the prefix tree, with its breakpoints and times.

Two kinds of logs:
- Logs that hold the prompt (claude-trace, request logs): its blocks in order, their token
  counts scaled so they add up to the request's reported prompt size, and the blocks marked
  with `cache_control` as breakpoints (or, without marks, the last block, as automatic caching
  places it).
- Logs that hold only usage (Claude Code transcripts, Codex rollouts): a request continues the
  call it answers (`Request.previous`), so its prompt is that call's prompt plus one new turn
  whose size is the growth of the reported prompt size, exact, with no tokenizer. A chain's
  first request starts with one hidden block for what the log does not hold (system prompt
  and tools); its size is inferred as the smallest first prompt of the same model, agent version
  and kind of agent, and a new model or version is a new hidden block. Breakpoints sit on the
  hidden block and on the last turn, where Claude Code puts them. A compaction call is sent the
  conversation it summarises, so it continues its session's main chain.

Nothing here reads the cache counts a simulation is judged against: only each request's total
prompt size and times. The one exception is documented in `session_ttls`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sniff.engine.tree import Node, PrefixTree
from sniff.model import Agent, Request


@dataclass(slots=True)
class SimPrompt:
    """One request as the simulator sees it."""

    request: Request
    namespace: str
    """The cache namespace: provider and model."""
    tail: Node
    """The prompt: the path from the namespace's root to here."""
    prompt_tokens: int
    """The reported prompt size."""
    start: float
    """When the request was sent (epoch seconds): cache lifetimes count from here."""
    available: float
    """When what this request writes becomes readable (its first token)."""
    marks: list[tuple[Node, str | None]] = field(default_factory=list)
    """Breakpoints: a prefix and the TTL it was marked with (None: the policy's default)."""


def namespace_of(request: Request) -> str:
    """Caches are per provider and per model."""
    return f"{request.provider}/{request.model}"


def build_prompts(
    requests: Iterable[Request], tree: PrefixTree, ttls: dict[str, str] | None = None
) -> list[SimPrompt]:
    """Every request that reached the model, as a path in `tree`, in the order they were sent.

    Args:
        ttls: session id → TTL its writes used, where the log tells (see `session_ttls`).
    """
    ordered = sorted(
        (r for r in requests if r.error is None and r.usage.prompt_tokens > 0), key=_start
    )
    known = {request.key for request in ordered}
    hidden = _hidden_sizes(r for r in ordered if not r.blocks and r.previous not in known)
    built: dict[str, SimPrompt] = {}
    last_main: dict[str, SimPrompt] = {}
    prompts: list[SimPrompt] = []
    for request in ordered:
        ttl = (ttls or {}).get(request.session_id)
        if request.blocks:
            prompt = _from_blocks(request, tree)
        else:
            previous = built.get(request.previous or "")
            if previous is None and request.agent is Agent.COMPACTION:
                # The summariser is sent the conversation it compacts: it continues the main chain.
                previous = last_main.get(request.session_id)
            prompt = _from_usage(request, tree, previous, hidden, ttl)
        built[request.key] = prompt
        if request.agent is Agent.MAIN:
            last_main[request.session_id] = prompt
        prompts.append(prompt)
    return prompts


def session_ttls(requests: Iterable[Request]) -> dict[str, str]:
    """Sessions whose cache writes used the 1-hour TTL.

    A usage-only log does not say how the client marked its breakpoints; whether a session
    wrote any 1-hour entries at all is the one trace of that configuration. This reads only
    whether such writes exist in the session, never how many tokens any request read or wrote.
    """
    return {r.session_id: "1h" for r in requests if r.usage.cache_write_1h_tokens > 0}


def _start(request: Request) -> tuple[float, float]:
    moment = request.started_at or request.first_token_at or request.ended_at
    return moment.timestamp(), request.ended_at.timestamp()


def _times(request: Request) -> tuple[float, float]:
    start = _start(request)[0]
    first = request.first_token_at or request.ended_at
    return start, max(first.timestamp(), start)


def _from_blocks(request: Request, tree: PrefixTree) -> SimPrompt:
    namespace = namespace_of(request)
    node = tree.root(namespace)
    counted = sum(block.tokens for block in request.blocks)
    reported = request.usage.prompt_tokens
    scale = reported / counted if counted else 1.0
    marks: list[tuple[Node, str | None]] = []
    for block in request.blocks:
        node = tree.child(node, block.content_hash, round(block.tokens * scale), block.kind)
        if block.cache_control:
            marks.append((node, block.cache_control))
    if not marks:  # no explicit breakpoint: automatic caching marks the last block
        marks.append((node, None))
    start, available = _times(request)
    return SimPrompt(request, namespace, node, reported, start, available, marks)


def _from_usage(
    request: Request,
    tree: PrefixTree,
    previous: SimPrompt | None,
    hidden: dict[tuple[str, ...], int],
    ttl: str | None,
) -> SimPrompt:
    namespace = namespace_of(request)
    size = request.usage.prompt_tokens
    start, available = _times(request)
    turn = f"turn:{request.key}"
    if previous is not None and previous.namespace == namespace and size >= previous.tail.end:
        tail = tree.child(previous.tail, turn, size - previous.tail.end, "turn")
        marks = [mark for mark in previous.marks if mark[0].kind == "hidden"]
        return SimPrompt(request, namespace, tail, size, start, available, [*marks, (tail, ttl)])
    root = tree.root(namespace)
    hidden_size = hidden.get(_hidden_key(request), 0)
    if 0 < hidden_size <= size:
        label = "hidden:" + ":".join(_hidden_key(request))
        base = tree.child(root, label, hidden_size, "hidden")
        tail = tree.child(base, turn, size - hidden_size, "turn")
        marks = [(base, ttl), (tail, ttl)]
    else:
        tail = tree.child(root, turn, size, "turn")
        marks = [(tail, ttl)]
    return SimPrompt(request, namespace, tail, size, start, available, marks)


def _hidden_key(request: Request) -> tuple[str, ...]:
    return (request.source, request.model, request.version or "", request.agent.value)


def _hidden_sizes(chain_starts: Iterable[Request]) -> dict[tuple[str, ...], int]:
    """The hidden part of each kind of prompt: its smallest first prompt (least user text)."""
    sizes: dict[tuple[str, ...], int] = {}
    for request in chain_starts:
        key = _hidden_key(request)
        size = request.usage.prompt_tokens
        sizes[key] = min(sizes.get(key, size), size)
    return sizes
