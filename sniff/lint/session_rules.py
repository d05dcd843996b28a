"""Provides the lint rules on sessions: consecutive logged requests compared, as a cache sees them.

A provider's cache reads the longest prefix an earlier request wrote, so a request that does not
start with the previous one (the same tools, system prompt and history, in the same bytes, with
the same settings) writes it all again. Each rule here names one way that happens; they register
in the same `RULES` as the rules on one prompt (`rules`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

from sniff.findings import Finding, Severity
from sniff.lint.prompts import LintBlock, LintPrompt
from sniff.lint.registry import LintContext, changed_at, diff, finding, rule

PREFIX_ROLES = frozenset({"system", "tools"})
"""Roles of the blocks before the conversation (tools, system prompt); the rest is its history."""

COMPACTED = "This session is being continued from a previous conversation"
"""How Claude Code's first message reads once a compaction replaced the history with its
summary (as `sniff.ingest.activity.INJECTED` knows it)."""


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
                        diff(a.text, b.text),
                        changed_at(a.text, b.text),
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
            old, new = tool_names(before), tool_names(after)
            if old != new:
                added = [n for n in new if n not in old]
                removed = [n for n in old if n not in new]
                what = (f"added {', '.join(added)}" if added else "") + (
                    f" removed {', '.join(removed)}" if removed else ""
                ) or "reordered"
                tool = _changed_tool(old, after)
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
                    and twin.block.text != block.block.text  # as written: the key order
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
    the new turn. Editing an earlier message (the first one, or the latest one once the
    conversation goes on), truncating tool results, or re-serializing history differently
    invalidates the cache from the first changed message on, so everything after it is written
    again. A sliding window that drops the oldest turns to fit the context changes the prompt
    from its first message: nothing after the system prompt is read from the cache."""
    for chain in context.chains:
        for before, after in zip(chain, chain[1:], strict=False):
            if tool_names(before) != tool_names(after):
                continue  # SN003 explains this request
            # every turn, tool results (OpenAI Chat's `tool` role) included
            old = [b for b in before.blocks if b.role not in PREFIX_ROLES]
            new = [b for b in after.blocks if b.role not in PREFIX_ROLES]
            dropped = _dropped_turns(old, new)
            if dropped:
                yield finding(
                    "SN005",
                    after,
                    new[0],
                    f"the oldest {dropped} message block(s) were dropped (a sliding window)",
                    diff("\n".join(b.text for b in old[:dropped]), ""),
                )
                continue
            index = _first_edit(old, new)
            if index is not None:
                block = new[index] if index < len(new) else None
                text = block.text if block else ""
                compacted = text.lstrip().startswith(COMPACTED)
                found = finding(
                    "SN005",
                    after,
                    block,
                    f"message block {index + 1} changed"
                    + (": a compaction replaced the history (expected)" if compacted else ""),
                    diff(old[index].text, text),
                    changed_at(old[index].text, text),
                )
                # the harness's compaction, not an edit of the user's: nothing to fix
                yield dataclasses.replace(found, severity=Severity.INFO) if compacted else found


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
                        setting=name,
                    )
                    break


@rule(
    "SN012",
    "ttl-gaps",
    Severity.WARNING,
    "Idle gaps outlived the cache where the provider's longer TTL would have paid for itself",
    "Ask for the provider's longer TTL in these requests; see `sniff cache --breaks`.",
)
def ttl_gaps(context: LintContext) -> Iterator[Finding]:
    """A cached prefix lives a few minutes after its last use (Anthropic: 5 minutes, from the
    start of the request that used it; OpenAI: 5 to 10 minutes idle). A session that pauses
    longer writes its prefix again on the next request. Where the provider sells a longer
    lifetime (Anthropic's 1-hour TTL, at 2x base input per write instead of 1.25x; OpenAI's
    extended retention on the models that offer it), this rule fires for a session only when
    that lifetime would have saved money: every write of the session at the longer TTL's
    price, against the rebuilds after the gaps it would have bridged. The figure is the one
    `sniff cache --breaks` gives for the session. A tool with no setting for it (the Codex CLI)
    gets no such advice."""
    yield from context.gaps


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
            first = opening(before)
            if before.model != after.model and first and first == opening(after):
                yield finding(
                    "SN009",
                    after,
                    None,
                    f"model changed from {before.model} to {after.model}",
                    setting="model",
                )


def opening(prompt: LintPrompt) -> str | None:
    """The first turn of the conversation: requests that share it continue one conversation
    (a subagent or a background call on another model starts its own)."""
    turns = (b.text for b in prompt.blocks if b.role not in PREFIX_ROLES)
    return next(turns, None)


def tool_names(prompt: LintPrompt) -> list[str]:
    """The names of the request's tools, in order."""
    names = []
    for block in prompt.blocks:
        if block.kind == "tool":
            written = json.loads(block.text)  # a tool's text is its JSON
            raw = written if isinstance(written, dict) else {}
            inner = raw.get("function")
            function = inner if isinstance(inner, dict) else {}
            names.append(str(raw.get("name") or function.get("name") or block.path))
    return names


def _changed_tool(old: list[str], after: LintPrompt) -> LintBlock | None:
    """The tool of `after` where its list stops matching the previous request's `old` one: the
    first added tool, else the first in another place (what now stands where a tool was removed
    or moved), else the last (tools were removed after it); None when no tool is left."""
    tools = [block for block in after.blocks if block.kind == "tool"]
    new = tool_names(after)
    added = [i for i, name in enumerate(new) if name not in old]
    moved = [i for i, name in enumerate(new) if i >= len(old) or old[i] != name]
    return tools[(added or moved or [-1])[0]] if tools else None


def _dropped_turns(old: list[LintBlock], new: list[LintBlock]) -> int:
    """How many of the oldest blocks of `old` history `new` dropped, going on with the rest as
    it was (a sliding window); 0 when it did not."""
    texts = [block.text for block in old]
    if not texts or not new or new[0].text == texts[0]:
        return 0  # the conversation starts as it did: not a window
    for dropped in range(1, len(texts)):
        kept = texts[dropped:]
        if new[0].text == kept[0] and [b.text for b in new[: len(kept)]] == kept:
            return dropped
    return 0


def _first_edit(old: list[LintBlock], new: list[LintBlock]) -> int | None:
    """The first block of `old` history that `new` does not repeat, when `new` goes on with the
    same conversation; None when it repeats it all (and appends), or starts another one."""
    index = next(
        (i for i, block in enumerate(old) if i >= len(new) or new[i].text != block.text), None
    )
    if index is None or not new:
        return None
    if index == len(old) - 1 and (index >= len(new) - 1 or _completed(old[index], new[index])):
        return None  # the latest turn sent again in another form (a retry), or a prefill answered
    if index == 0 and (
        len(old) < 2 or [b.text for b in new[1 : len(old)]] != [b.text for b in old[1:]]
    ):
        return None  # another conversation in the same session, not an edited one
    return index


def _completed(old: LintBlock, new: LintBlock) -> bool:
    """An assistant turn the previous request prefilled, now with the model's answer after it."""
    return old.role == new.role == "assistant" and new.text.startswith(old.text)
