"""Provides `SniffGroup`: how `sniff`'s first words choose a command, and how a command's
options are read when they are mistyped or spelled the old way.

Why a group of our own: `sniff PATH...` means `sniff scan PATH...`, so a word that names no
command is a path, unless it is plainly a mistyped command; and an option spelled as it was
before a rename must keep working on the commands where it meant one thing.

Click's classes are typer's own (vendored, private): contexts and commands are typed `Any`
here, and errors are raised through `Context.fail`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

from typer import TyperException
from typer.core import TyperGroup, TyperOption

ROOT_FLAGS = frozenset({"--help", "-h", "--version", "--install-completion", "--show-completion"})

RENAMED = {"--format": ("--output-format", "--log-format")}
"""An old spelling, and what it now means on a command: the first of these it declares (the
format it writes where it writes formats, else the format of the logs it reads)."""


class SniffGroup(TyperGroup):
    """`sniff` and `sniff PATH...` mean `sniff scan ...` (see `mistyped` for the exception)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        from sniff.cli import COMMANDS

        if not args or (args[0] not in self.commands and args[0] not in ROOT_FLAGS):
            close = mistyped(args[0], COMMANDS) if args else []
            if close:
                ctx.fail(
                    f"No such command {args[0]!r}. Did you mean {', '.join(map(repr, close))}?"
                )
            args = ["scan", *args]
        return super().parse_args(ctx, args)

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            rest = valued(command, respelled(command, rest))
        return name, command, rest

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except TyperException as error:
            option, context = getattr(error, "option_name", None), getattr(error, "ctx", None)
            if option is None or context is None:
                raise
            message = elsewhere(option, context)
            if message is None:
                raise
            context.fail(message)


SLIP_RATIO = 0.61
"""The least difflib ratio of a slip for a command's name."""


def mistyped(word: str, commands: tuple[str, ...]) -> list[str]:
    """The commands `word` is a slip for; none when it may be a path.

    The rule: a word that is an existing file or folder, or that looks like a path (holds a
    separator or a dot), is a path for `sniff scan`; any other word close to a command name
    (difflib's ratio above 0.6: typer's own suggestions take 0.6 itself, which makes `logs`,
    a folder's usual name, a slip for `blocks`) is a mistyped command.
    """
    if word.startswith("-") or os.sep in word or "/" in word or "." in word:
        return []
    if os.path.lexists(word):
        return []
    import difflib

    return difflib.get_close_matches(word, commands, n=3, cutoff=SLIP_RATIO)


def respelled(command: Any, args: list[str]) -> list[str]:
    """`args` with each old spelling of an option (`RENAMED`) replaced by what it means on
    `command`, with a note on stderr; option values and everything after `--` stay as given."""
    declared = _declared(command)
    out: list[str] = []
    tokens = iter(args)
    for token in tokens:
        if token == "--":
            out += [token, *tokens]
            break
        name, equals, value = token.partition("=")
        if name in RENAMED and name not in declared:
            now = next((new for new in RENAMED[name] if new in declared), None)
            if now is not None:
                shown = "-f/--output-format" if now == "--output-format" else now
                sys.stderr.write(f"sniff: note: {name} is deprecated here; use {shown}\n")
                token, name = now + equals + value, now
        out.append(token)
        if not equals and _takes_value(declared, name):
            out += _next(tokens)
    return out


def valued(command: Any, args: list[str]) -> list[str]:
    """`args` with the value an option may go without written in where it was left out.

    Why here: typer's parser has no option of optional value (click's `flag_value`). A
    command's function lists its own in `optional_values`: option → its values, the first being
    its meaning alone. The next word is the option's value if it is one of them, or if it is no
    option and no existing path (a mistyped value, which the command then reports); else it
    stays what it is (a path, another option), and the option takes its first value.
    """
    optional: dict[str, tuple[str, ...]] = getattr(command.callback, "optional_values", {})
    if not optional:
        return args
    declared = _declared(command)
    out: list[str] = []
    tokens = iter(args)
    for token in tokens:
        out.append(token)
        if token == "--":
            out += tokens
            break
        values = optional.get(token)
        if values is None:
            if "=" not in token and _takes_value(declared, token):
                out += _next(tokens)
            continue
        following = next(tokens, None)
        if (
            following is None
            or following.startswith("-")
            or (following not in values and os.path.lexists(following))
        ):
            out.append(values[0])
        out += [] if following is None else [following]
    return out


def elsewhere(option: str, context: Any) -> str | None:
    """What to say of an option `context`'s command lacks but other commands take, naming
    them; None when no command takes it (click's own suggestions then stand)."""
    from typer.main import get_command

    from sniff.cli import build_app

    commands = get_command(build_app()).commands  # type: ignore[attr-defined]
    takers = [
        name
        for name, command in commands.items()
        if name != context.command.name and option in _declared(command)
    ]
    if not takers:
        return None
    verb = "does" if len(takers) == 1 else "do"
    return f"'{context.command_path}' takes no option {option}; {', '.join(takers)} {verb}"


def _declared(command: Any) -> dict[str, TyperOption]:
    """Every spelling of every option `command` declares."""
    return {
        name: param
        for param in command.params
        if isinstance(param, TyperOption)
        for name in (*param.opts, *param.secondary_opts)
    }


def _takes_value(declared: dict[str, TyperOption], token: str) -> bool:
    """Whether `token` is an option whose value is the next argument."""
    if not token.startswith("-") or token == "-":
        return False
    if not token.startswith("--") and len(token) > 2:  # -o FILE is 2 characters, -oFILE more
        return False
    param = declared.get(token)
    return param is not None and not param.is_flag and not param.count


def _next(tokens: Iterator[str]) -> list[str]:
    following = next(tokens, None)
    return [] if following is None else [following]
