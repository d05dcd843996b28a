"""Provides the typer app of the `sniff` command line, its commands, and clean failure.

Why a custom entry point: a user error must read as one line and exit 2, and nothing may show
a traceback, whatever goes wrong. `main` runs the app in non-standalone mode to own that.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, NoReturn

import typer

from sniff.cli.group import SniffGroup
from sniff.errors import SniffError
from sniff.version import __version__

COMMANDS = (
    "scan", "sessions", "daily", "weekly", "monthly", "blocks", "cache", "agents", "commits",
    "lint", "latency", "context", "drift", "export", "report", "index", "tui", "watch",
    "otel", "proxy", "statusline",
)  # fmt: skip
"""Every command, in the order `--help` lists them; each is the function of its name in the
module of its name under `sniff.cli.commands`, or of `MODULES`' name for it."""
MODULES = {"daily": "periods", "weekly": "periods", "monthly": "periods"}
"""The commands that share a module: the periods differ only in the period."""


def build_app(commands: tuple[str, ...] = COMMANDS) -> typer.Typer:
    """The typer app with `commands` (all of them by default).

    Why a builder: a run needs only its own command, and building all of them costs a good part of
    a status line's budget; `--help` and tests get them all.
    """
    built = typer.Typer(
        name="sniff",
        cls=SniffGroup,
        help="What your AI coding agents cost, whether prompt caching works, and what breaks it.",
        no_args_is_help=False,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["--help", "-h"]},
        # Markdown, not Rich markup: a paragraph of a docstring reflows to the terminal's width,
        # and `[tool.sniff.lint]` in a help text is shown, not swallowed as a style tag
        rich_markup_mode="markdown",
    )
    built.callback()(_root)
    from importlib import import_module

    for name in commands:
        module = import_module(f"sniff.cli.commands.{MODULES.get(name, name)}")
        settings = getattr(module, "CONTEXT_SETTINGS", None)  # a command reading its own options
        built.command(name, context_settings=settings, add_help_option=settings is None)(
            getattr(module, name)
        )
    return built


def _version(value: bool) -> None:
    if value:
        typer.echo(f"sniff {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """What your AI coding agents cost, whether prompt caching works, and what breaks it.

    With no command, `sniff` runs `sniff scan`: a first word that names no command is a path
    to scan, unless it is a slip for a command's name and no such file exists.
    """


def __getattr__(name: str) -> typer.Typer:
    """`sniff.cli.app`: the app with every command, built when first asked for."""
    if name == "app":
        built = globals()["app"] = build_app()
        return built
    raise AttributeError(name)


def _needed(argv: list[str]) -> tuple[str, ...]:
    """The one command `argv` runs, or all of them (help, an unknown word)."""
    if not argv or argv[0] not in COMMANDS and not argv[0].startswith("-"):
        return ("scan",)  # `sniff` and `sniff PATH...` mean `sniff scan`
    if argv[0] in COMMANDS and not {"--help", "-h"} & set(argv[1:]):
        return (argv[0],)
    return COMMANDS


def fail(message: str, code: int = 2) -> None:
    """One line on stderr, then exit."""
    sys.stderr.write(f"sniff: error: {message}\n")
    raise SystemExit(code)


def _reader_left() -> NoReturn:
    """The reader of the output left (`sniff scan | head -1`): stop, quietly and successfully.

    Python's own advice: point stdout at the null device, so the flush at exit cannot fail
    again and print a complaint.
    """
    with contextlib.suppress(OSError, ValueError):  # a stream with no file descriptor
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    raise SystemExit(0) from None


def main(argv: list[str] | None = None) -> None:
    """Run the app; user errors are one line and exit 2, never a traceback."""
    arguments = sys.argv[1:] if argv is None else argv
    command = typer.main.get_command(build_app(_needed(arguments)))
    try:
        result: Any = command.main(args=arguments, prog_name="sniff", standalone_mode=False)
        sys.stdout.flush()  # a closed pipe must fail here, not in the interpreter's exit
    except typer.TyperException as error:  # usage errors: bad option, missing value
        context = getattr(error, "ctx", None)
        hint = f" (see '{context.command_path} --help')" if context is not None else ""
        fail(f"{error.format_message()}{hint}")
    except SniffError as error:
        fail(str(error))
    except (KeyboardInterrupt, typer.Abort):
        sys.stderr.write("sniff: interrupted\n")
        raise SystemExit(130) from None
    except BrokenPipeError:
        _reader_left()
    except SystemExit as leaving:
        if isinstance(leaving.__context__, BrokenPipeError):  # rich's Console exits 1 then
            _reader_left()
        raise
    except Exception as error:  # the promise: no traceback reaches a user
        fail(f"unexpected {type(error).__name__}: {error} (please report this)", code=3)
    raise SystemExit(result if isinstance(result, int) else 0)
