"""Provides the lint rules: what breaks prefix caching, each with an id, a severity and a fix.

Each rule is a function from the prompts being checked to findings; its docstring is the
explanation `sniff lint --explain` shows. Rules on one prompt look at its blocks; rules on a
chain compare consecutive requests of a session, as a provider's cache would see them.
Sources for every anti-pattern: docs/prompt-caching.md §7.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sniff.lint.model import Finding, LintBlock, LintPrompt, Severity
from sniff.lint.volatile import Volatile, find_volatile, line_and_column

MAX_BREAKPOINTS = 4
RESULT_KINDS = frozenset(
    {
        "tool_use",
        "tool_result",
        "thinking",
        "redacted_thinking",
        "image",
        "function_call",
        "function_call_output",
        "reasoning",
        "input_image",
        "image_url",
        "document",
    }
)
"""Blocks whose ids and paths are history, written once and repeated as they were."""
TEMPLATE = re.compile(r"\{\{[^{}]+\}\}|\{%[^%]+%\}|\$\{[A-Za-z_][^}]*\}")
"""Template placeholders: filled differently per request."""


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
) -> Finding:
    """A finding located in `prompt` (and `block`, at character `at` of its text)."""
    found = RULES[rule_id]
    line, column = prompt.line, 0
    if not prompt.logged:
        offset = _offset(prompt, block, at)
        if offset >= 0:
            line, column = line_and_column(prompt.source_text, offset)
    return Finding(
        rule=rule_id,
        severity=found.severity,
        message=message,
        file=prompt.file,
        line=line,
        column=column,
        request=prompt.request,
        block_path=block.path if block is not None else None,
        evidence=evidence,
        fix=found.fix,
    )


def _offset(prompt: LintPrompt, block: LintBlock | None, at: int) -> int:
    if block is None or not prompt.source_text:
        return -1
    if block.offset >= 0:
        return block.offset + at
    # a JSON prompt file: find the text as the file writes it (escaped)
    import json

    snippet = json.dumps(block.text[at : at + 40])[1:-1]
    found = prompt.source_text.find(snippet)
    return found


def cached_prefix(prompt: LintPrompt) -> list[LintBlock]:
    """The blocks a cache would store: up to the last breakpoint; without breakpoints, the
    system prompt and tools (and, for automatic caching, all but the latest turn)."""
    marks = prompt.breakpoints()
    if marks:
        return list(prompt.blocks[: marks[-1] + 1])
    if prompt.api == "text":
        return _before_dynamic_tail(list(prompt.blocks))
    stable = [b for b in prompt.blocks if b.role in ("system", "tools")]
    if prompt.api in ("openai-chat", "openai-responses"):
        last_user = max((i for i, b in enumerate(prompt.blocks) if b.role == "user"), default=-1)
        return list(prompt.blocks[:last_user]) if last_user > 0 else stable
    return stable


def _before_dynamic_tail(blocks: list[LintBlock]) -> list[LintBlock]:
    """A prompt file without its trailing volatile or templated paragraphs: filled per request
    at the end (where --fix and SN014 put them), they follow the reusable prefix instead of
    breaking it. A file with no static paragraph before them keeps them all."""
    end = len(blocks)
    while end > 0 and (
        find_volatile(blocks[end - 1].text) or TEMPLATE.search(blocks[end - 1].text)
    ):
        end -= 1
    return blocks[:end] if end else blocks


# --- rules on one prompt ---------------------------------------------------------------------


@rule(
    "SN001",
    "volatile-prefix",
    Severity.ERROR,
    "Volatile content (a timestamp, date, id, counter, temp path, seed) in the cached prefix",
    "Move the volatile content after the last breakpoint, into the latest user turn.",
)
def volatile_prefix(context: LintContext) -> Iterator[Finding]:
    """A prefix cache only hits when the prompt starts with exactly the bytes of an earlier
    request. A timestamp, a date, a UUID, a request id, a counter, a temporary path or a random
    seed in the system prompt, in the tools, or anywhere before the last cache breakpoint makes
    every request's prefix new: each one writes the cache again (at 1.25x the input price on
    Anthropic) and reads nothing. Keep the stable instructions first and put what changes per
    request at the end, in the latest user message."""
    seen: set[tuple[str, str, str]] = set()
    for prompt in context.prompts:
        marks = prompt.breakpoints()
        for block in cached_prefix(prompt):
            if block.kind in RESULT_KINDS:
                continue
            if prompt.logged and block.role not in ("system", "tools"):
                continue  # history that changes between requests is SN005's
            if (
                marks
                and block is prompt.blocks[marks[-1]]
                and block.role not in ("system", "tools")
            ):
                continue  # a volatile breakpoint block is SN006's
            for volatile in find_volatile(block.text):
                key = (prompt.file, block.path, volatile.kind)
                if key in seen:
                    continue  # once per place, not once per logged request
                seen.add(key)
                yield finding(
                    "SN001",
                    prompt,
                    block,
                    _volatile_message(volatile, block),
                    _evidence(block.text, volatile),
                    volatile.start,
                )


@rule(
    "SN006",
    "breakpoint-on-volatile-block",
    Severity.ERROR,
    "A cache breakpoint on a block that changes every request",
    "Put the breakpoint on the last stable block, before the changing content.",
)
def breakpoint_on_volatile(context: LintContext) -> Iterator[Finding]:
    """A breakpoint writes one cache entry: the prefix ending at the marked block. When that
    block holds content that changes every request (a timestamp with the user's message, a
    fresh tool result), each request writes an entry no later request can match, and the
    20-block lookback does not find the stable content behind it. The common mistake the
    Anthropic documentation warns about: mark the last block that stays the same instead."""
    seen: set[tuple[str, str]] = set()
    for prompt in context.prompts:
        for index in prompt.breakpoints():
            block = prompt.blocks[index]
            if block.kind in RESULT_KINDS or (
                prompt.logged and block.role not in ("system", "tools")
            ):
                continue  # the rolling breakpoint on the newest turn is meant to move
            changes = find_volatile(block.text)
            if not changes or (prompt.file, block.path) in seen:
                continue
            seen.add((prompt.file, block.path))
            yield finding(
                "SN006",
                prompt,
                block,
                f"the breakpoint at {block.path} marks a block with a {changes[0].kind}",
                _evidence(block.text, changes[0]),
                changes[0].start,
            )
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            for index in after.breakpoints():
                block = after.blocks[index]
                if (
                    block.role in ("system", "tools")
                    and index < len(before.blocks)
                    and before.blocks[index].text != block.text
                    and (after.file, block.path) not in seen
                ):
                    seen.add((after.file, block.path))
                    yield finding(
                        "SN006",
                        after,
                        block,
                        f"the marked block {block.path} changed since the last request",
                        _diff(before.blocks[index].text, block.text),
                    )


@rule(
    "SN007",
    "too-many-breakpoints",
    Severity.ERROR,
    "More than 4 cache breakpoints in one request",
    "Keep at most 4 breakpoints: the tools/system end, and the last one or two messages.",
)
def too_many_breakpoints(context: LintContext) -> Iterator[Finding]:
    """Anthropic accepts at most 4 cache_control breakpoints per request (automatic caching
    takes one of the slots); a request with more is rejected with HTTP 400. Place one at the
    end of the stable prefix (tools and system) and one or two on the latest messages."""
    for prompt in context.prompts:
        marks = prompt.breakpoints()
        if len(marks) > MAX_BREAKPOINTS:
            extra = prompt.blocks[marks[MAX_BREAKPOINTS]]
            yield finding(
                "SN007",
                prompt,
                extra,
                f"{len(marks)} breakpoints; the API takes 4",
                ", ".join(prompt.blocks[i].path for i in marks),
            )


@rule(
    "SN008",
    "below-minimum",
    Severity.WARNING,
    "The cached prefix is shorter than the model's minimum cacheable size",
    "Cache a longer stable prefix (add the examples or tools it reuses), or drop the breakpoint.",
)
def below_minimum(context: LintContext) -> Iterator[Finding]:
    """Below the model's minimum (512 to 4,096 tokens on Anthropic by model and date, 1,024 on
    OpenAI) a prompt is silently not cached: the breakpoint costs nothing but saves nothing.
    If the prefix is reused, growing it to the minimum (stable examples, the tool list) makes
    it cacheable; otherwise the breakpoint can go."""
    seen: set[tuple[str, str | None]] = set()
    for prompt in context.prompts:
        marks = prompt.breakpoints()
        if not marks or prompt.model is None or (prompt.file, prompt.model) in seen:
            continue
        size = sum(context.count(block.text) for block in prompt.blocks[: marks[-1] + 1])
        minimum = context.minimum(prompt.model, prompt.api)
        if 0 < size < minimum:
            seen.add((prompt.file, prompt.model))
            yield finding(
                "SN008",
                prompt,
                prompt.blocks[marks[-1]],
                f"the cached prefix is about {size:,} tokens; {prompt.model} caches "
                f"from {minimum:,}",
            )


@rule(
    "SN010",
    "one-hour-ttl-on-tail",
    Severity.WARNING,
    "A 1-hour cache breakpoint on the conversation's changing tail",
    "Use the 5-minute TTL on the latest messages; keep 1 hour for the stable prefix.",
)
def one_hour_on_tail(context: LintContext) -> Iterator[Finding]:
    """A 1-hour write costs twice the input price and pays off only after two reads. The last
    messages of a conversation are superseded by the next turn's write, so a 1-hour TTL there
    pays double for an entry read at most once. Use 1 hour on the stable prefix (tools, system)
    of sessions with long pauses, and 5 minutes on the moving tail."""
    for prompt in context.prompts:
        marks = prompt.breakpoints()
        if not marks:
            continue
        last = prompt.blocks[marks[-1]]
        if last.mark == "1h" and last.role not in ("system", "tools") and not prompt.logged:
            yield finding("SN010", prompt, last, f"{last.path} is marked with a 1-hour TTL")
    yield from ()


@rule(
    "SN013",
    "ttl-order",
    Severity.ERROR,
    "A 5-minute breakpoint before a 1-hour one",
    "Put 1-hour breakpoints before 5-minute ones.",
)
def ttl_order(context: LintContext) -> Iterator[Finding]:
    """When a request mixes TTLs, every 1-hour breakpoint must come before every 5-minute one;
    otherwise the API rejects the request. Longer-lived entries sit on the stable start of the
    prompt, shorter-lived ones on the moving end."""
    for prompt in context.prompts:
        marks = [prompt.blocks[i] for i in prompt.breakpoints()]
        for earlier, later in zip(marks, marks[1:], strict=False):
            if earlier.mark == "5m" and later.mark == "1h":
                yield finding(
                    "SN013", prompt, later, f"{later.path} (1h) comes after {earlier.path} (5m)"
                )
                break


@rule(
    "SN011",
    "per-request-cache-key",
    Severity.WARNING,
    "A prompt_cache_key that changes per request",
    "Use one prompt_cache_key per shared prefix (a tenant, a feature), not per request.",
)
def per_request_cache_key(context: LintContext) -> Iterator[Finding]:
    """OpenAI routes requests by their prefix and prompt_cache_key: requests with different keys
    go to different machines and never share a cache. A key with a timestamp or id in it, or a
    new key every request, fragments the cache into entries nobody reads again."""
    seen: set[str] = set()
    for prompt in context.prompts:
        key = prompt.params.get("prompt_cache_key")
        if isinstance(key, str) and find_volatile(key) and prompt.file not in seen:
            seen.add(prompt.file)
            yield finding("SN011", prompt, None, "prompt_cache_key holds volatile content", key)
    for chain in context.chains:
        keys = [p.params.get("prompt_cache_key") for p in chain if p.params.get("prompt_cache_key")]
        if len(keys) >= 3 and len(set(map(str, keys))) == len(keys) and chain[0].file not in seen:
            seen.add(chain[0].file)
            yield finding(
                "SN011",
                chain[-1],
                None,
                f"{len(keys)} requests of a session used {len(keys)} different keys",
                ", ".join(map(str, keys[:3])) + ", ...",
            )


@rule(
    "SN014",
    "dynamic-before-static",
    Severity.WARNING,
    "Template placeholders before static instructions",
    "Move the paragraphs with placeholders after the static ones, to the end of the prompt.",
)
def dynamic_before_static(context: LintContext) -> Iterator[Finding]:
    """A template filled per request ({{user}}, ${date}, {% ... %}) changes the prompt from the
    placeholder on. When dynamic paragraphs come before static instructions and examples, the
    reusable prefix stops at the first placeholder. Static content first, dynamic content last,
    keeps the whole static part cacheable."""
    for prompt in context.prompts:
        if prompt.api != "text":
            continue
        blocks = list(prompt.blocks)
        dynamic = [i for i, b in enumerate(blocks) if TEMPLATE.search(b.text)]
        static = [i for i, b in enumerate(blocks) if not TEMPLATE.search(b.text)]
        if dynamic and static and dynamic[0] < static[-1]:
            block = blocks[dynamic[0]]
            match = TEMPLATE.search(block.text)
            assert match is not None
            yield finding(
                "SN014",
                prompt,
                block,
                f"{block.path} has a placeholder and {len(static)} static paragraph(s) follow it",
                match.group(0),
                match.start(),
            )


# --- rules on chains of logged requests ------------------------------------------------------


@rule(
    "SN002",
    "system-changed",
    Severity.ERROR,
    "The system prompt changed between consecutive requests of a session",
    "Keep the system prompt identical across a session; put what changes in the latest turn.",
)
def system_changed(context: LintContext) -> Iterator[Finding]:
    """Every request of a session should start with the same system prompt: the cache keys on
    the exact bytes of tools, then system, then messages. A system prompt rewritten between
    turns (new instructions, a refreshed date, a re-rendered template) invalidates the cached
    system prompt and everything after it."""
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            old = [b for b in before.blocks if b.role == "system"]
            new = [b for b in after.blocks if b.role == "system"]
            for index, (a, b) in enumerate(zip(old, new, strict=False)):
                if a.text != b.text:
                    yield finding(
                        "SN002",
                        after,
                        b,
                        f"system block {index + 1} changed",
                        _diff(a.text, b.text),
                    )
                    break
            else:
                if old and new and len(old) != len(new):
                    yield finding(
                        "SN002", after, None, f"system blocks went from {len(old)} to {len(new)}"
                    )


@rule(
    "SN003",
    "tools-changed",
    Severity.ERROR,
    "Tools were added, removed or reordered between consecutive requests of a session",
    "Keep the tool list fixed for a session; append-only if it must grow.",
)
def tools_changed(context: LintContext) -> Iterator[Finding]:
    """Tool definitions come first in the cached prefix, so adding, removing or reordering a
    tool (an MCP server connecting mid-session, dynamic tool selection) invalidates the whole
    cache: tools, system prompt and history. Fix the tool list for a session, or use the
    provider's ways to change tools without changing the prefix (tool_choice, allowed tools,
    deferred tool loading)."""
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            old, new = _tool_names(before), _tool_names(after)
            if old != new:
                added = [n for n in new if n not in old]
                removed = [n for n in old if n not in new]
                what = (f"added {', '.join(added)}" if added else "") + (
                    f" removed {', '.join(removed)}" if removed else ""
                ) or "reordered"
                tool = next((b for b in after.blocks if b.kind == "tool"), None)
                yield finding("SN003", after, tool, f"tools {what.strip()}", f"{old} -> {new}")


@rule(
    "SN004",
    "unstable-tool-schema",
    Severity.WARNING,
    "A tool schema serialized with a different key order between requests",
    "Serialize tool schemas deterministically (sorted keys).",
)
def unstable_tool_schema(context: LintContext) -> Iterator[Finding]:
    """The same tool definition written with its JSON keys in another order is, to the cache,
    a different prompt. Languages that iterate maps in random order (Go, Swift) or code that
    rebuilds schemas from sets produce it. Serialize schemas with sorted keys."""
    seen: set[str] = set()
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            old = {b.text: b for b in before.blocks if b.kind == "tool"}
            for block in (b for b in after.blocks if b.kind == "tool"):
                twin = old.get(block.text)
                if (
                    twin is not None
                    and twin.key_order != block.key_order
                    and block.text not in seen
                ):
                    seen.add(block.text)
                    yield finding(
                        "SN004",
                        after,
                        block,
                        f"{block.path} has the same content in another key order",
                    )


@rule(
    "SN005",
    "history-rewritten",
    Severity.ERROR,
    "Earlier messages were edited, removed or re-serialized instead of appended to",
    "Only append to the conversation; never edit or re-render earlier turns.",
)
def history_rewritten(context: LintContext) -> Iterator[Finding]:
    """A conversation caches well when each request repeats the previous one exactly and appends
    the new turn. Editing an earlier message, truncating tool results, or re-serializing history
    differently invalidates the cache from the first changed message on, so everything after it
    is written again."""
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            if _tool_names(before) != _tool_names(after):
                continue  # SN003 explains this request
            # every turn, tool results (OpenAI Chat's `tool` role) included
            old = [b for b in before.blocks if b.role not in ("system", "tools")]
            new = [b for b in after.blocks if b.role not in ("system", "tools")]
            if not old or not new or old[0].text != new[0].text:
                continue  # a new conversation in the same session, not an edited one
            for index, a in enumerate(old[:-1]):
                if index >= len(new) or new[index].text != a.text:
                    block = new[index] if index < len(new) else None
                    yield finding(
                        "SN005",
                        after,
                        block,
                        f"message block {index + 1} changed",
                        _diff(a.text, block.text if block else ""),
                    )
                    break


@rule(
    "SN009",
    "setting-changed",
    Severity.WARNING,
    "The model, tool_choice, thinking, reasoning or images changed mid-session",
    "Keep these settings fixed within a session; route by session, not by request.",
)
def setting_changed(context: LintContext) -> Iterator[Finding]:
    """Caches are per model, and several settings are part of the cached prefix: tool_choice,
    the thinking configuration, reasoning effort, the presence of images, the speed mode. A
    router, an A/B test or a fallback that changes them between turns of one conversation
    starts the cache over."""
    yield from _model_switches(context)
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            for name in ("tool_choice", "thinking", "reasoning", "images", "speed"):
                if before.params.get(name) != after.params.get(name):
                    yield finding(
                        "SN009",
                        after,
                        None,
                        f"{name} changed",
                        f"{before.params.get(name)!r} -> {after.params.get(name)!r}",
                    )
                    break


@rule(
    "SN012",
    "ttl-gaps",
    Severity.WARNING,
    "Idle gaps longer than the cache's TTL within a session",
    "Use the 1-hour TTL for sessions with long pauses; see `sniff cache --breaks`.",
)
def ttl_gaps(context: LintContext) -> Iterator[Finding]:
    """A cached prefix lives 5 minutes (or 1 hour) after its last use, counted from the start of
    the request that used it. A session that pauses longer pays to write its whole prefix again
    on the next request. For sessions that pause for minutes at a time, the 1-hour TTL costs
    less; `sniff cache --breaks` prices every such gap and compares the two TTLs."""
    yield from context.gaps
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            if before.started is None or after.started is None:
                continue
            ttl = 3600.0 if any(b.mark == "1h" for b in before.blocks) else 300.0
            gap = after.started - before.started
            if gap > ttl:
                when = datetime.fromtimestamp(after.started, UTC).strftime("%Y-%m-%d %H:%M")
                yield finding(
                    "SN012",
                    after,
                    None,
                    f"{gap / 60:.0f} minutes idle before this request ({when} UTC), "
                    f"TTL {ttl / 60:.0f} minutes",
                )


def _model_switches(context: LintContext) -> Iterator[Finding]:
    """Requests that go on with a conversation on another model. The chains are per model (the
    other rules compare like with like), so a switch only shows across them: here requests of
    a session are taken in order whatever their model."""
    sessions: dict[tuple[str, str, bool], list[LintPrompt]] = {}
    for prompt in context.prompts:
        if prompt.logged:
            agent = any(block.kind == "tool" for block in prompt.blocks)
            sessions.setdefault((prompt.file, prompt.session or "", agent), []).append(prompt)
    for requests in sessions.values():
        requests.sort(key=lambda p: (p.started if p.started is not None else 0.0, p.line))
        for before, after in zip(requests, requests[1:], strict=False):
            opening = _opening(before)
            if before.model != after.model and opening and opening == _opening(after):
                yield finding(
                    "SN009", after, None, f"model changed from {before.model} to {after.model}"
                )


def _opening(prompt: LintPrompt) -> str | None:
    """The first turn of the conversation: requests that share it continue one conversation
    (a subagent or a background call on another model starts its own)."""
    turns = (b.text for b in prompt.blocks if b.role not in ("system", "tools"))
    return next(turns, None)


# --- helpers ---------------------------------------------------------------------------------


def _tool_names(prompt: LintPrompt) -> list[str]:
    names = []
    for block in prompt.blocks:
        if block.kind == "tool":
            raw = block.raw if isinstance(block.raw, dict) else {}
            inner = raw.get("function")
            function = inner if isinstance(inner, dict) else {}
            names.append(str(raw.get("name") or function.get("name") or block.path))
    return names


def _volatile_message(volatile: Volatile, block: LintBlock) -> str:
    where = {"system": "the system prompt", "tools": "a tool definition"}.get(
        block.role, f"{block.path}, before the last breakpoint"
    )
    return f"a {volatile.kind} in {where}"


def _evidence(text: str, volatile: Volatile, around: int = 30) -> str:
    start = max(volatile.start - around, 0)
    end = min(volatile.end + around, len(text))
    before, after = text[start : volatile.start], text[volatile.end : end]
    return f"{'…' if start else ''}{before}»{volatile.text}«{after}{'…' if end < len(text) else ''}"


def _diff(old: str, new: str, lines: int = 6) -> str:
    diff = difflib.unified_diff(
        old.splitlines(), new.splitlines(), "before", "after", n=0, lineterm=""
    )
    shown = [line for line in diff if not line.startswith(("---", "+++", "@@"))]
    if not shown:  # one long line: show where it differs
        at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), 0)
        return f"-…{old[max(at - 20, 0) : at + 40]}…\n+…{new[max(at - 20, 0) : at + 40]}…"
    return "\n".join(shown[:lines]) + ("\n…" if len(shown) > lines else "")
