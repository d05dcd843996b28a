"""Provides `--fix`: the prompt rewritten stable-first, without changing what it says.

What moves: lines with volatile content leave the system prompt and tools for the latest user
turn (JSON bodies), or the end of the prompt (prompt files); paragraphs with template
placeholders go after the static ones; a breakpoint on a changing block moves to the last stable
block before it; breakpoints beyond four, and a 1-hour TTL on the tail, are dropped to what the
API accepts; tool schemas get sorted keys. What never moves: the conversation's history.
"""

from __future__ import annotations

import difflib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sniff.errors import UserError
from sniff.lint.inputs import TEXT
from sniff.lint.prompts import LintPrompt
from sniff.lint.rules import MAX_BREAKPOINTS, RESULT_KINDS
from sniff.lint.volatile import find_placeholders, find_volatile


def fixed_text(prompt: LintPrompt) -> str:
    """A plain prompt file with volatile and templated paragraphs moved to the end."""
    paragraphs = prompt.source_text.split("\n\n")
    moves = [bool(find_volatile(p) or find_placeholders(p)) for p in paragraphs]
    moving = [p for p, move in zip(paragraphs, moves, strict=True) if move]
    staying = [p for p, move in zip(paragraphs, moves, strict=True) if not move]
    if not moving:
        return prompt.source_text
    trailing = "\n" if prompt.source_text.endswith("\n") else ""
    body = "\n\n".join(p.rstrip("\n") for p in staying + moving if p.strip())
    return body + trailing


def fixed_body(body: dict[str, Any], api: str) -> dict[str, Any]:
    """A request body rewritten stable-first (a deep copy; the original is not touched)."""
    fixed: dict[str, Any] = json.loads(json.dumps(body))
    moved: list[str] = []
    if api == "anthropic-messages":
        fixed["system"] = _strip_volatile_system(fixed.get("system"), moved)
        fixed["tools"] = [_sorted(tool) for tool in fixed.get("tools", [])] or None
    elif api == "openai-chat":
        for message in fixed.get("messages", []):
            if isinstance(message, dict) and message.get("role") in ("system", "developer"):
                message["content"] = _strip_volatile_system(message.get("content"), moved)
        fixed["tools"] = [_sorted(tool) for tool in fixed.get("tools", [])] or None
    elif api == "openai-responses":
        fixed["instructions"] = _strip_volatile_system(fixed.get("instructions"), moved)
    if fixed.get("tools") is None:
        fixed.pop("tools", None)
    if moved:
        _append_to_latest_user_turn(fixed, api, "\n".join(moved))
    _fix_breakpoints(fixed)
    return fixed


def fixed_file_text(prompt: LintPrompt, bodies: list[dict[str, Any]]) -> str:
    """The JSON prompt file with its bodies fixed, in the file's indentation: a list stays a
    list, even of one body."""
    value: Any = bodies if prompt.index is not None else bodies[0]
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _strip_volatile_system(system: Any, moved: list[str]) -> Any:
    """The system prompt without its volatile lines (collected in `moved`)."""
    if isinstance(system, str):
        return _keep_stable_lines(system, moved)
    if isinstance(system, list):
        kept = []
        for part in system:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                text = _keep_stable_lines(part["text"], moved)
                if not text.strip():
                    continue
                part = {**part, "text": text}
            kept.append(part)
        return kept
    return system


def _keep_stable_lines(text: str, moved: list[str]) -> str:
    lines = text.split("\n")
    moves = [bool(find_volatile(line)) for line in lines]
    moved.extend(line.strip() for line, move in zip(lines, moves, strict=True) if move)
    return "\n".join(line for line, move in zip(lines, moves, strict=True) if not move)


def _append_to_latest_user_turn(body: dict[str, Any], api: str, text: str) -> None:
    if api == "openai-responses":
        items = body.get("input")
        if isinstance(items, str) or items is None:
            body["input"] = f"{items or ''}\n\n{text}".strip()
            return
        body["input"] = [*items, {"role": "user", "content": text}]
        return
    messages = body.setdefault("messages", [])
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"]
    if not users:
        messages.append({"role": "user", "content": text})
        return
    latest = users[-1]
    content = latest.get("content")
    if isinstance(content, str):
        latest["content"] = f"{content}\n\n{text}"
    elif isinstance(content, list):
        content.append({"type": "text", "text": text})


def _fix_breakpoints(body: dict[str, Any]) -> None:
    """Breakpoints on stable blocks only, at most 4, 1-hour ones first and none on the tail."""
    while _move_off_volatile(body):
        pass
    marked = list(_marked_blocks(body))
    for block, _parent in marked[1 : len(marked) - (MAX_BREAKPOINTS - 1)]:
        block.pop("cache_control", None)  # keep the first and the last three
    marked = list(_marked_blocks(body))
    seen_five_minutes = False
    stable_prefix = (body.get("tools"), body.get("system"))
    for index, (block, parent) in enumerate(marked):
        control = block["cache_control"]
        # the tail is the conversation's end, even as the only breakpoint (SN010 says so too):
        # a 1-hour TTL on tools or system stays
        in_prefix = any(parent is part for part in stable_prefix)
        tail = index == len(marked) - 1 and not in_prefix
        if control.get("ttl") == "1h" and (seen_five_minutes or tail):
            control.pop("ttl")
        if control.get("ttl") != "1h":
            seen_five_minutes = True


def _move_off_volatile(body: dict[str, Any]) -> bool:
    """Move one breakpoint off a changing block onto the last stable block before it, in the
    order the cache reads them (tools, system, messages), so the stable prefix is still
    written and read; True when one moved. Dropping it instead would leave nothing cached."""
    slots = _slots(body)
    for index, (container, key) in enumerate(slots):
        block = container[key]
        if (
            not isinstance(block, dict)
            or "cache_control" not in block
            or block.get("type") in RESULT_KINDS
            or not find_volatile(str(block.get("text", "")))
        ):
            continue
        control = block.pop("cache_control")
        for owner, place in reversed(slots[:index]):
            target = owner[place]
            text = target if isinstance(target, str) else str(target.get("text", ""))
            if find_volatile(text):
                continue
            if isinstance(target, str):  # a plain string can hold no breakpoint: one block
                owner[place] = [{"type": "text", "text": target, "cache_control": control}]
            else:
                target.setdefault("cache_control", control)
            break
        return True
    return False


def _slots(body: dict[str, Any]) -> list[tuple[Any, Any]]:
    """Where each block of an Anthropic body sits, as (container, key), in request order; a
    string system prompt or message content is one block held by its owner."""
    tools = body.get("tools")
    slots: list[tuple[Any, Any]] = []
    if isinstance(tools, list):
        slots += [(tools, i) for i, tool in enumerate(tools) if isinstance(tool, dict)]
    owners = [(body, "system")] + [
        (message, "content") for message in body.get("messages") or [] if isinstance(message, dict)
    ]
    for owner, key in owners:
        value = owner.get(key)
        if isinstance(value, str):
            slots.append((owner, key))
        elif isinstance(value, list):
            slots += [(value, i) for i, part in enumerate(value) if isinstance(part, dict)]
    return slots


def _marked_blocks(body: dict[str, Any]) -> list[tuple[dict[str, Any], list[Any]]]:
    """The blocks with a breakpoint, in request order, each with the list holding it."""
    blocks = [(container[key], container) for container, key in _slots(body)]
    # (a string system prompt or content is a slot too, but holds no breakpoint)
    return [(b, parent) for b, parent in blocks if isinstance(b, dict) and "cache_control" in b]


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def is_fixable(prompt: LintPrompt) -> bool:
    """Prompt files can be rewritten, a JSON list of bodies too (it is `logged`, being a chain,
    but it is a file the user writes); logged requests cannot (the log is history, and
    holds no source text)."""
    if prompt.api == TEXT:
        return not prompt.logged
    return isinstance(prompt.body, dict) and bool(prompt.source_text)


@dataclass(frozen=True, slots=True)
class FileFix:
    """A prompt file rewritten by --fix."""

    file: str
    before: str
    after: str

    def diff(self) -> str:
        """The change as a unified diff."""
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                f"{self.file} (before)",
                f"{self.file} (fixed)",
            )
        )


def fix_files(prompts: list[LintPrompt], flagged: set[str]) -> list[FileFix]:
    """Rewrite the prompt files among `flagged` stable-first; the changed ones.

    Every file is checked before any is written, so a read-only one leaves all untouched.

    Raises:
        UserError: a file to rewrite, or its folder, is read-only, or writing one failed.
    """
    by_file: dict[str, list[LintPrompt]] = {}
    for prompt in prompts:
        if prompt.file in flagged and is_fixable(prompt):
            by_file.setdefault(prompt.file, []).append(prompt)
    fixes = []
    for file, group in by_file.items():
        first = group[0]
        before = first.source_text
        if first.api == TEXT:
            after = fixed_text(first)
        else:
            after = fixed_file_text(first, [fixed_body(p.body, p.api) for p in group])
            # the same JSON, key order included (a new order is a fix: SN004), is no rewrite
            if json.dumps(json.loads(after)) == json.dumps(json.loads(before)):
                continue
        if after != before:
            fixes.append(FileFix(file, before, after))
    for fix in fixes:
        _check_writable(Path(fix.file))
    for fix in fixes:
        _rewrite(Path(fix.file), fix.after)
    return fixes


def _check_writable(path: Path) -> None:
    """Refuse a read-only file: its owner said it is not to change (a rename could still
    replace it, so the mode is asked, not tried)."""
    target = path.resolve()
    for what, place in (("it is", target), ("its folder is", target.parent)):
        if not os.access(place, os.W_OK):
            raise UserError(f"--fix cannot rewrite {path}: {what} read-only")


def _rewrite(path: Path, text: str) -> None:
    """Replace the file at `path` (a link's target) with `text`, whole or not at all, keeping
    its mode and owner: an interruption or a full disk leaves the old file, never part of the
    new one."""
    from sniff.atomic_write import replace

    target = path.resolve()
    try:
        old = target.stat()
        owner = (old.st_uid, old.st_gid)
        replace(target, text.encode("utf-8"), stat.S_IMODE(old.st_mode), owner)
    except OSError as error:
        raise UserError(f"--fix cannot rewrite {path}: {error.strerror or error}") from error
