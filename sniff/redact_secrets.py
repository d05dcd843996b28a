"""Provides `redact_secrets`: credentials in prompt text replaced by a placeholder wherever sniff
shows or writes that text (lint findings, agent excerpts, API error reasons).

Why: prompts and tool results hold what people paste and what tools print (an `.env` file, a
shell's environment, a config), so an API key ends up in the logs sniff reads. sniff's own
output is meant to be pasted into an issue, a CI log or a shared report: it must not carry the
key along. The user's files are never touched: `lint --fix` writes a prompt file's text as it
was, and only what sniff prints of it is redacted.

What is found: keys with a vendor's prefix (Anthropic `sk-ant-`, OpenAI `sk-proj-`,
`sk-svcacct-`, `sk-admin-` and the older `sk-` keys, AWS `AKIA…`, GitHub `ghp_`/`github_pat_`,
GitLab, Google `AIza…` and OAuth tokens, Slack, Stripe, Hugging Face, npm), JSON web tokens,
private key blocks, passwords in URLs, `Bearer`/`Basic` credentials, and a long random value
assigned to a name that says key, secret, token or password (`KEY=…`, `token: …`, JSON's
`"api_key": "…"`). The secret part becomes `…[redacted]`; what comes before it stays, so the
reader still sees what it was: `sk-ant-…[redacted]`, `API_TOKEN=…[redacted]`.

Why lenient lengths: an excerpt may end inside a key (the agents' excerpts are cut to a few
hundred characters), so a vendor's prefix followed by a few characters of its alphabet is
enough; the prefixes are distinctive enough for that not to catch ordinary words. Excerpts cut
out of a longer text go through `redact_excerpt`, which sees the whole text, so a key that
straddles the cut is still redacted whole.

Why these patterns and not a library's: the maintained Python list (detect-secrets) has no
pattern for Anthropic, Google or fine-grained GitHub keys, wants each key at full length, and
its entropy detectors, made for source files, flag thousands of ordinary words of a prompt.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

PLACEHOLDER = "…[redacted]"

VENDOR = "vendor"
"""A vendor's prefix: the match must start a word (`task-…` holds no `sk-` key)."""
AROUND = "around"
"""Recognised by what surrounds it, wherever it starts."""
SCHEME = "scheme"
"""Named a credential by an HTTP scheme: counts when the value looks random (`_random`)."""
ASSIGNED = "assigned"
"""Assigned to a name that says so (`NAME`): counts when the value looks random."""

SHAPES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    # (kind, literals one of which every match holds, pattern; `secret` is what is replaced)
    (VENDOR, ("sk-ant-",), r"sk-ant-(?P<secret>[A-Za-z0-9_-]{8,})"),  # Anthropic
    (VENDOR, ("sk-",), r"sk-(?:proj|svcacct|admin)-(?P<secret>[A-Za-z0-9_-]{8,})"),  # OpenAI
    (VENDOR, ("sk-",), r"sk-(?P<secret>[A-Za-z0-9]{20,})(?![A-Za-z0-9_-])"),  # OpenAI, older
    (VENDOR, ("AKIA", "ASIA", "ABIA", "ACCA"), r"A(?:KIA|SIA|BIA|CCA)(?P<secret>[A-Z0-9]{16})\b"),
    (VENDOR, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_(?P<secret>[A-Za-z0-9]{8,})"),
    (VENDOR, ("github_pat_",), r"github_pat_(?P<secret>[A-Za-z0-9_]{8,})"),
    (VENDOR, ("glpat-",), r"glpat-(?P<secret>[A-Za-z0-9_-]{8,})"),  # GitLab
    (VENDOR, ("AIza",), r"AIza(?P<secret>[A-Za-z0-9_-]{8,})"),  # Google API keys
    (VENDOR, ("ya29.",), r"ya29\.(?P<secret>[A-Za-z0-9_-]{8,})"),  # Google OAuth tokens
    (VENDOR, ("GOCSPX-",), r"GOCSPX-(?P<secret>[A-Za-z0-9_-]{8,})"),  # Google OAuth secrets
    (VENDOR, ("xox",), r"xox[abposr]-(?P<secret>[A-Za-z0-9-]{10,})"),  # Slack
    (VENDOR, ("k_live_", "k_test_"), r"[rs]k_(?:live|test)_(?P<secret>[A-Za-z0-9]{10,})"),
    (VENDOR, ("hf_",), r"hf_(?P<secret>[A-Za-z0-9]{30,})"),  # Hugging Face
    (VENDOR, ("npm_",), r"npm_(?P<secret>[A-Za-z0-9]{30,})"),
    (VENDOR, ("eyJ",), r"eyJ(?P<secret>[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.?[A-Za-z0-9_-]*)"),
    (
        AROUND,
        ("PRIVATE KEY",),
        r"-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?P<secret>.*?)(?=-----END|\Z)",
    ),
    (AROUND, ("://",), r"://[^\s:/@\"'<>]+:(?P<secret>[^\s/@\"'<>]{3,})@"),  # a URL's password
    (
        SCHEME,
        ("earer", "EARER", "asic", "ASIC"),
        r"[Bb](?:earer|EARER|asic|ASIC)\s+(?P<secret>[A-Za-z0-9._~+/=-]{16,})",
    ),
    # a long value assigned with `=`, `:` or `=>`, quoted or not
    (ASSIGNED, (":", "="), r"[:=]>?[ \t]*\\?[\"']?(?P<secret>[^\s\"'`<>()\[\]{},;:\\]{16,})"),
)
"""What credentials look like, most trusted first: a later shape's match that overlaps an
earlier one's is dropped, so `API_KEY=sk-ant-…` keeps the vendor's prefix in sight."""

NAME = r"(?i:key|secret|token|passw(?:or)?d|pwd|credentials?)[A-Za-z0-9_.-]*\\?[\"']?[ \t]*\Z"
"""The end of a name that holds a credential: `API_KEY`, `"auth_token"`, `password`."""
NAME_ROOM = 64
"""How far before the `=` the name is looked for."""


@lru_cache(maxsize=1)
def _compiled() -> tuple[list[tuple[str, tuple[str, ...], re.Pattern[str]]], re.Pattern[str]]:
    """The shapes, compiled once, on first use (not at import: `--help` stays fast). Each is
    searched on its own, and only in a text holding one of its literals: a literal is found
    fast, where one alternation of every shape would stop at every common letter."""
    shapes = [(kind, literals, re.compile(shape, re.DOTALL)) for kind, literals, shape in SHAPES]
    return shapes, re.compile(NAME)


def _random(value: str) -> bool:
    """Whether a value looks like a generated credential: letters and digits mixed, and about
    as varied as random text (3 bits a character and more), not a word, path or number."""
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    counts = Counter(value).values()
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts)
    return entropy >= 3.0


def secret_spans(text: str) -> list[tuple[int, int]]:
    """Where the secrets of `text` are: (start, end) of each, in order, not overlapping."""
    shapes, name = _compiled()
    spans: list[tuple[int, int]] = []
    for kind, literals, pattern in shapes:
        if not any(literal in text for literal in literals):
            continue
        for found in pattern.finditer(text):
            if kind == VENDOR and not _starts_word(text, found.start()):
                continue
            if kind in (SCHEME, ASSIGNED) and not _random(found["secret"]):
                continue
            if kind == ASSIGNED and not name.search(
                text, max(found.start() - NAME_ROOM, 0), found.start()
            ):
                continue
            start, end = found.span("secret")
            if not any(start < taken_end and taken_start < end for taken_start, taken_end in spans):
                spans.append((start, end))
    return sorted(spans)


def _starts_word(text: str, start: int) -> bool:
    return start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_")


def redact_secrets(text: str) -> str:
    """`text` with each secret replaced by `…[redacted]` (what comes before it is kept)."""
    return redact_excerpt(text, 0, len(text))


def redact_excerpt(text: str, start: int, end: int, marks: Iterable[tuple[int, str]] = ()) -> str:
    """`text[start:end]` with its secrets redacted, seen in the whole text: a secret cut by
    either end of the excerpt is replaced all the same. `marks` are (position, string) put in at
    those positions of `text` (e.g. `»` and `«` around evidence); one that falls inside a
    secret goes just before or after its placeholder."""
    spans = [(a, b) for a, b in secret_spans(text) if a < end and b > start] if text else []
    pending = sorted(marks)
    parts: list[str] = []
    at = start
    for span_start, span_end in spans:
        _put(parts, text, at, max(span_start, start), pending)
        while pending and pending[0][0] <= span_start:
            parts.append(pending.pop(0)[1])
        parts.append(PLACEHOLDER)
        at = min(span_end, end)
        while pending and pending[0][0] < at:
            parts.append(pending.pop(0)[1])
    _put(parts, text, at, end, pending)
    parts.extend(mark for _, mark in pending)
    return "".join(parts)


def _put(parts: list[str], text: str, start: int, end: int, pending: list[tuple[int, str]]) -> None:
    """Append `text[start:end]`, with the marks that fall in it."""
    while pending and pending[0][0] < end:
        position, mark = pending.pop(0)
        position = max(position, start)
        parts.append(text[start:position])
        parts.append(mark)
        start = position
    parts.append(text[start:end])
