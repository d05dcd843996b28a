"""Provides the detectors of volatile content: text that differs from one request to the next.

Timestamps, dates, UUIDs, request ids, epoch counters, temporary paths and random seeds change
every request; anywhere before the last cache breakpoint they make the prefix new each time.
So do a template's placeholders, filled per request. The patterns are strict on purpose: a
linter in CI must not cry wolf on clean prompts.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate

PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "timestamp",
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b"
        ),
    ),
    (
        "uuid",
        re.compile(
            r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
        ),
    ),
    (
        "request id",
        re.compile(r"\b(?:req|msg|chatcmpl|resp|run|call|toolu|trace|span)[_-][0-9A-Za-z]{12,}\b"),
    ),
    (
        "date",
        re.compile(
            r"\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b"
            r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, "
            r"(?:19|20)\d{2}\b"
            r"|\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* (?:19|20)\d{2}\b"
        ),
    ),
    ("clock time", re.compile(r"\b(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\b")),
    ("epoch time", re.compile(r"(?<![\d.])1[5-9]\d{8}(?:\d{3})?(?:\.\d+)?(?![\d.])")),
    (
        "temporary path",
        re.compile(
            # under /tmp only a generated name (tmpXXXX, a number) changes: /tmp/charts stays
            r"(?:/tmp/(?=tmp|[^\s\"'`]*\d)|/var/folders/|/private/var/folders/"
            r"|\\AppData\\Local\\Temp\\)[^\s\"'`]+"
        ),
    ),
    ("random seed", re.compile(r"\b(?:seed|nonce|salt)\s*[:=]\s*\d{3,}\b", re.IGNORECASE)),
    (
        "counter",
        re.compile(
            r"\b(?:request|attempt|call|turn|iteration|run)\s*(?:#|no\.?|number)\s*\d+\b",
            re.IGNORECASE,
        ),
    ),
)


CODE_FENCE = re.compile(r"```.*?```", re.DOTALL)
"""A fenced code sample: what it shows is an example, written once, not per request."""
EXAMPLE_LEAD = re.compile(
    r"(?:\be\.g\.|\bi\.e\.|\bfor (?:example|instance)|\bsuch as|\blike)[,:]?\s*[\"'`(]?$",
    re.IGNORECASE,
)
"""Words that introduce an example value: "dates as YYYY-MM-DD, e.g. 2024-01-31"."""
TEMPLATE = re.compile(r"\{\{[^{}]+\}\}|\{%[^%]+%\}|\$\{[A-Za-z_][^}]*\}")
"""Template placeholders: filled differently per request."""
ENVIRONMENT = re.compile(r"\$\{[A-Z][A-Z0-9_]*(?:[:#%/][^}]*)?\}")
"""`${HOME}`, `${XDG_CONFIG_HOME:-~/.config}`: an environment variable a shell expands."""
CODE_SPAN = re.compile(r"```.*?```|`[^`\n]+`", re.DOTALL)
"""A fenced code sample or inline code: shell or JavaScript the prompt shows."""


@dataclass(frozen=True, slots=True)
class Volatile:
    """One piece of volatile content in a text."""

    kind: str
    start: int
    end: int
    text: str


def find_volatile(text: str) -> list[Volatile]:
    """Every piece of volatile content in `text`, in order, without overlaps."""
    found: list[Volatile] = []
    samples = [match.span() for match in CODE_FENCE.finditer(text)]
    taken: list[tuple[int, int]] = []
    """What was found, and the examples, in order (they never overlap): a match is checked
    against its one neighbour, not against every earlier match."""
    for kind, pattern in PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            before = bisect_left(taken, (end,))  # the spans that start before this one ends
            if before and taken[before - 1][1] > start:
                continue  # a timestamp's date (or an example's time) is not a second finding
            insort(taken, (start, end))
            if not _example(text, start, samples):
                found.append(Volatile(kind, start, end, match.group(0)))
    return sorted(found, key=lambda v: v.start)


def find_placeholders(text: str) -> list[re.Match[str]]:
    """The template placeholders of `text`, in order: `{{ x }}`, `{% ... %}` and `${x}`.

    `${...}` is shell and JavaScript syntax before it is a template's: in code (a fenced sample,
    inline code) or naming an environment variable (upper case), it is what the prompt teaches,
    written once, not a value filled per request. Template engines fill `{{ }}` and `{% %}`
    wherever they are, so those count everywhere.
    """
    code = [match.span() for match in CODE_SPAN.finditer(text)] if "${" in text else []
    return [
        match
        for match in TEMPLATE.finditer(text)
        if not match.group(0).startswith("$")
        or not (ENVIRONMENT.fullmatch(match.group(0)) or _inside(code, match.start()))
    ]


def _example(text: str, start: int, samples: list[tuple[int, int]]) -> bool:
    """Whether the match at `start` is an example value (in a code sample, or introduced by
    "e.g.", "for example", ...): the same in every request, so no cache breaker."""
    if _inside(samples, start):
        return True
    return EXAMPLE_LEAD.search(text[max(start - 20, 0) : start]) is not None


def _inside(spans: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` falls in one of `spans` (in order, not overlapping): only the one
    starting last at or before it can hold it."""
    last = bisect_left(spans, (position + 1,)) - 1
    return last >= 0 and position < spans[last][1]


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of `offset` in `text` (where its lines start is found once a
    text: a file's findings all ask it)."""
    starts = _line_starts(text)
    line = bisect_right(starts, offset)
    return line, offset - starts[line - 1] + 1


@lru_cache(maxsize=16)
def _line_starts(text: str) -> list[int]:
    return [0, *accumulate(len(line) + 1 for line in text.split("\n")[:-1])]
