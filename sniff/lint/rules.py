"""Provides the lint rules: what breaks prefix caching, each with an id, a severity and a fix.

Each rule is a function from the prompts being checked to findings; its docstring is the
explanation `sniff lint --explain` shows. This module holds the rules on one prompt, which
look at its blocks (the registry they join is `registry`); the rules on a chain, which compare
consecutive requests of a session as a provider's cache would see them, are in `session_rules`
(the package imports both, so `RULES` always holds every rule).
Sources for every anti-pattern: docs/prompt-caching.md §7.
"""

from __future__ import annotations

from collections.abc import Iterator

from sniff.findings import Finding, Severity
from sniff.lint.prompts import LintBlock, LintPrompt
from sniff.lint.registry import RULES, LintContext, changed_at, diff, finding, rule
from sniff.lint.volatile import Volatile, find_placeholders, find_volatile
from sniff.redact_secrets import redact_excerpt

__all__ = ["MAX_BREAKPOINTS", "RESULT_KINDS", "RULES"]

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
        find_volatile(blocks[end - 1].text) or find_placeholders(blocks[end - 1].text)
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
                        diff(before.blocks[index].text, block.text),
                        changed_at(before.blocks[index].text, block.text),
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
    it cacheable; otherwise the breakpoint can go. For a logged request the response's usage
    decides, not the size of the text in the log (logs often shorten it): only a request whose
    usage shows nothing read from or written to the cache is reported."""
    seen: set[tuple[str, str | None]] = set()
    for prompt in context.prompts:
        marks = prompt.breakpoints()
        if not marks or prompt.model is None or (prompt.file, prompt.model) in seen:
            continue
        if prompt.from_log and prompt.cache_usage != 0:
            continue  # it was cached (so it was long enough), or it failed: no evidence
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
        changing = find_volatile(key) if isinstance(key, str) else []
        if changing and prompt.file not in seen:
            seen.add(prompt.file)
            yield finding(
                "SN011",
                prompt,
                None,
                "prompt_cache_key holds volatile content",
                str(key),
                changing[0].start,
                setting="prompt_cache_key",
            )
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
                setting="prompt_cache_key",
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
        placeholders = [find_placeholders(b.text) for b in prompt.blocks]
        dynamic = [i for i, found in enumerate(placeholders) if found]
        static = [i for i, found in enumerate(placeholders) if not found]
        if dynamic and static and dynamic[0] < static[-1]:
            block = prompt.blocks[dynamic[0]]
            match = placeholders[dynamic[0]][0]
            follow = (
                "1 static paragraph follows"
                if len(static) == 1
                else f"{len(static)} static paragraphs follow"
            )
            yield finding(
                "SN014",
                prompt,
                block,
                f"{block.path} has a placeholder and {follow} it",
                match.group(0),
                match.start(),
            )


# --- helpers -----------------------------------------------------------------------------------


def _volatile_message(volatile: Volatile, block: LintBlock) -> str:
    where = {"system": "the system prompt", "tools": "a tool definition"}.get(
        block.role, f"{block.path}, before the last breakpoint"
    )
    return f"a {volatile.kind} in {where}"


def _evidence(text: str, volatile: Volatile, around: int = 30) -> str:
    start = max(volatile.start - around, 0)
    end = min(volatile.end + around, len(text))
    marked = redact_excerpt(text, start, end, ((volatile.start, "»"), (volatile.end, "«")))
    return f"{'…' if start else ''}{marked}{'…' if end < len(text) else ''}"
