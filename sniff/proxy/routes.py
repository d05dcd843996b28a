"""Provides where a call goes: the API a path names, the upstream that serves it, the URL it is
sent to, and which headers pass each way.

Why by path first: the four API paths say whose they are; anything else (`/v1/models`, a
beta endpoint) goes where its headers say, since only Anthropic's clients send `x-api-key` or
`anthropic-version`. The query string is never read (Claude Code adds `?beta=true`) and is
forwarded as sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

ANTHROPIC = "anthropic"
OPENAI = "openai"
DEFAULT_UPSTREAMS = {ANTHROPIC: "https://api.anthropic.com", OPENAI: "https://api.openai.com"}

APIS: dict[str, tuple[str, str | None]] = {
    # path: (provider, the request-log `api`; None: recorded, but not a call sniff prices)
    "/v1/messages": (ANTHROPIC, "anthropic-messages"),
    "/v1/messages/count_tokens": (ANTHROPIC, None),
    "/v1/chat/completions": (OPENAI, "openai-chat"),
    "/v1/responses": (OPENAI, "openai-responses"),
}
"""The paths whose calls are recorded."""

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
"""Headers of one connection, not of the message (RFC 9110 §7.6.1): never passed on."""
REQUEST_ONLY_OURS = frozenset({"host", "content-length", "expect"})
"""Of the connection to the proxy: the upstream's host and the body's length are set again for
the upstream one (the same body), and a `100-continue` was already answered."""


@dataclass(frozen=True)
class Route:
    """Where one call goes."""

    provider: str
    """`anthropic` or `openai`: whose upstream."""
    upstream: str
    """The upstream's base URL, with no trailing slash."""
    recorded: bool
    """Whether the path is one of the four API paths, whose calls get a line."""
    api: str | None
    """The request-log `api` of the path (None for count_tokens and other paths)."""


def route(path: str, headers: Mapping[str, str], upstreams: Mapping[str, str]) -> Route:
    """The route of a request to `path` (no query string) with `headers` (case-insensitive
    lookups), given the base URL of each provider's upstream."""
    known = APIS.get(path.rstrip("/") or "/")
    if known is not None:
        provider, api = known
        return Route(provider, upstreams[provider].rstrip("/"), True, api)
    anthropic = "x-api-key" in headers or "anthropic-version" in headers
    provider = ANTHROPIC if anthropic else OPENAI
    return Route(provider, upstreams[provider].rstrip("/"), False, None)


def upstream_url(route: Route, raw_path: str) -> str:
    """The URL to send to: the upstream's base and the request's path and query as sent
    (still percent-encoded: nothing is decoded and encoded again)."""
    return route.upstream + raw_path


def _connection_named(headers: Iterable[tuple[str, str]]) -> set[str]:
    """The headers a `Connection` header names: hop-by-hop for this message alone."""
    named: set[str] = set()
    for name, value in headers:
        if name.lower() == "connection":
            named.update(token.strip().lower() for token in value.split(",") if token.strip())
    return named


def passed_headers(
    headers: Iterable[tuple[str, str]], drop: frozenset[str] = frozenset()
) -> list[tuple[str, str]]:
    """`headers` (every occurrence, in order) without the hop-by-hop ones and `drop`."""
    pairs = list(headers)
    dropped = HOP_BY_HOP | drop | _connection_named(pairs)
    return [(name, value) for name, value in pairs if name.lower() not in dropped]


def request_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The client's headers to send upstream: its credentials included, connection ones not."""
    return passed_headers(headers, REQUEST_ONLY_OURS)


def response_headers(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The upstream's headers to send the client: content-type, request-id, rate limits,
    content-length and encoding (the body passes as it came, still encoded)."""
    return passed_headers(headers)
