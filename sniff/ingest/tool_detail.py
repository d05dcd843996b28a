"""Provides what a tool call was for and what it printed, kept small (`ToolCall.detail`,
`ToolResult.head`), for the tools whose purpose analyses read.

Why only these: cost by commit needs a shell call's command and the start of its output (what
`git commit` printed), cost by subagent type and skill needs a launch's `subagent_type` and a
skill's name. Every other input and output stays undecoded, as the parsers leave them.
The texts are kept as logged; whatever shows them redacts them (`redact_secrets`).
"""

from __future__ import annotations

import re

import msgspec

DETAIL = 500
"""Characters kept of a shell command."""
HEAD = 300
"""Characters kept of a shell call's output."""
SHELL_TOOLS = frozenset(
    {"Bash", "exec_command", "shell", "shell_command", "local_shell", "container.exec"}
)
"""Claude Code's Bash tool and Codex's shell tools."""
SUBAGENT_TOOLS = frozenset({"Task", "Agent"})
SKILL_TOOLS = frozenset({"Skill"})
DETAILED = SHELL_TOOLS | SUBAGENT_TOOLS | SKILL_TOOLS
"""The tools whose input is read."""
WRAPPERS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"})


class ToolInput(msgspec.Struct, gc=False):
    """The fields read of a tool's input: Bash's `command`, Codex's `cmd` or `command` (a
    string or an argv list), a launch's `subagent_type`, a skill's `skill` (or `command`)."""

    command: str | list[str] | None = None
    cmd: str | list[str] | None = None
    subagent_type: str | None = None
    skill: str | None = None


class ShellAction(msgspec.Struct, gc=False):
    """A Codex `local_shell_call`'s `action`."""

    command: list[str] | None = None


_INPUT = msgspec.json.Decoder(ToolInput)
_ACTION = msgspec.json.Decoder(ShellAction)
_TEXT = msgspec.json.Decoder(str)


def detail(name: str, raw: bytes) -> str | None:
    """What a call of tool `name` with input `raw` (its JSON object) was for; None for the
    tools not read, and for an input of another shape."""
    if name not in DETAILED or not raw:
        return None
    try:
        data = _INPUT.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if name in SUBAGENT_TOOLS:
        return data.subagent_type
    if name in SKILL_TOOLS:
        found = data.skill or (data.command if isinstance(data.command, str) else None)
        return (found.strip().lstrip("/") or None) if found else None
    return command_text(data.command if data.command is not None else data.cmd)


def codex_detail(name: str, arguments: bytes, action: bytes) -> str | None:
    """The same for a Codex call: a function call's `arguments` are a JSON string holding the
    input's JSON; a `local_shell_call` has an `action`."""
    if action:
        try:
            return command_text(_ACTION.decode(action).command)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None
    if name not in DETAILED or not arguments:
        return None
    try:
        inner = _TEXT.decode(arguments) if arguments[:1] == b'"' else arguments.decode()
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError):
        return None
    return detail(name, inner.encode())


def command_text(command: str | list[str] | None) -> str | None:
    """A command as the shell ran it, cut to `DETAIL`: an argv list joined, and the script of a
    `bash -lc <script>` wrapper."""
    if isinstance(command, list):
        if len(command) == 3 and command[0] in WRAPPERS and command[1] in ("-c", "-lc"):
            command = command[2]
        else:
            command = " ".join(command)
    return command[:DETAIL] if command else None


KEPT_OUTPUT = re.compile(r"\b(?:git|gh)\b")
"""The shell commands whose output's start is kept: git's and GitHub's CLI, where commits
and pull requests show (`analyses.cost.commits`). Other calls' output is never decoded."""


def keeps_output(command: str | None) -> bool:
    """Whether the start of a shell call's output is kept, from its command."""
    return command is not None and KEPT_OUTPUT.search(command) is not None


def head(text: str) -> str | None:
    """The start of an output, cut to `HEAD`; None for an empty one."""
    return text[:HEAD] if text else None


def output_text(text: str) -> str:
    """What a Codex shell call printed: after the header an `exec_command` output starts with
    (`Chunk ID`, `Wall time`, ..., `Output:`), or a structured output's `output`."""
    if text.startswith('{"output":'):
        try:
            inner = msgspec.json.decode(text)
        except (msgspec.DecodeError, RecursionError):  # a text nested too deep is no output
            inner = None
        if isinstance(inner, dict) and isinstance(inner.get("output"), str):
            return str(inner["output"])
        return text
    _, found, after = text.partition("Output:\n")
    return after or text
