"""Provides `sniff proxy`: a local proxy that passes agents' API calls to Anthropic or OpenAI
unchanged and records each one, for every command to read (the proxy itself is
`sniff.proxy`)."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from sniff.cli import options as o
from sniff.cli.errors import one_line_errors
from sniff.errors import UserError

ANTHROPIC_UPSTREAM = "https://api.anthropic.com"
OPENAI_UPSTREAM = "https://api.openai.com"


@one_line_errors
def proxy(
    port: o.ListenPort = 8790,
    host: o.ListenHost = "127.0.0.1",
    out: o.DailyFolder = None,
    anthropic_upstream: Annotated[
        str,
        typer.Option("--anthropic-upstream", help="Where Anthropic's calls go.", metavar="URL"),
    ] = ANTHROPIC_UPSTREAM,
    openai_upstream: Annotated[
        str,
        typer.Option("--openai-upstream", help="Where OpenAI's calls go.", metavar="URL"),
    ] = OPENAI_UPSTREAM,
    diagnose: Annotated[
        bool,
        typer.Option(
            "--diagnose",
            help="Change each request to ask the provider why its cache missed (Anthropic's "
            "cache diagnosis beta, OpenAI's comparison response).",
        ),
    ] = False,
) -> None:
    """Pass Claude Code's, Codex's and the SDKs' API calls to Anthropic or OpenAI unchanged,
    and record each call (request, response, timing to the first token) to daily files (in
    proxy/ of sniff's data folder unless --out names another). Runs until Ctrl-C."""
    o.listen_port(port)
    upstreams = {
        "anthropic": _upstream("--anthropic-upstream", anthropic_upstream),
        "openai": _upstream("--openai-upstream", openai_upstream),
    }
    _run(host, port, out, upstreams, diagnose)


def _run(host: str, port: int, out: Path | None, upstreams: dict[str, str], diagnose: bool) -> None:
    """Listen, say where and what to set, and serve until Ctrl-C or SIGTERM."""
    # imported here: aiohttp costs every other command's start-up
    from sniff.paths import proxy_folder
    from sniff.proxy.files import prepare
    from sniff.proxy.server import Settings, serve

    folder = prepare(out if out is not None else proxy_folder())
    settings = Settings(host, port, folder, upstreams, diagnose)
    if not _loopback(host):
        sys.stderr.write(
            f"sniff proxy: warning: listening on {host}: anyone who can reach it can spend the "
            "API keys that pass through it\n"
        )

    def ready(endpoint: str) -> None:
        sys.stdout.write(banner(endpoint, folder.absolute(), diagnose))
        sys.stdout.flush()

    serve(settings, ready)
    sys.stderr.write("sniff proxy: stopped\n")


def _upstream(option: str, url: str) -> str:
    """An upstream's base URL, checked: http or https, with a host."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(f"{option} must be an http:// or https:// URL, not {url!r}")
    return url.rstrip("/")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def banner(endpoint: str, folder: Path, diagnose: bool) -> str:
    """Where the proxy listens and writes, and what to set for the agents to go through it."""
    change = (
        "--diagnose: requests are CHANGED: each asks the provider why its cache missed\n"
        if diagnose
        else ""
    )
    return (
        f"sniff proxy: listening on {endpoint}\n"
        f"writing to {folder} (calls-YYYY-MM-DD.jsonl, one per UTC day)\n"
        f"{change}"
        "\n"
        "Claude Code and the Anthropic SDK:\n"
        f"export ANTHROPIC_BASE_URL={endpoint}\n"
        "The OpenAI SDK and Codex:\n"
        f"export OPENAI_BASE_URL={endpoint}/v1\n"
        f'(Codex: or base_url = "{endpoint}/v1" in a [model_providers] entry of config.toml)\n'
        "\n"
        "See docs/proxy.md. Ctrl-C to stop.\n"
    )
