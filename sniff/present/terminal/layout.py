"""Provides the layout rule every table of the terminal views follows, so that each reads at the
width it is printed at (80 columns when piped, in most terminals too).

The rule: each column has a priority (`priority`). Money comes first (the cost, then savings
and every other dollar column), then the hit rate, then the requests, then the row's name:
these are never dropped and their numbers never cut. When a table is too wide, the columns of
lowest priority go first (`plan`); only then is long text shortened, with an ellipsis, and
never through a number (`elide`); a project keeps its meaningful tail (`src/tilesrv`, not
`path/5…`: `fit_paths`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

DATE_STAMP = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")
"""A model snapshot's date: `-20250514`, `-2025-08-07`."""
MONEY = re.compile(r"\$\d")

COST, MONEY_COLUMN, HIT, REQUESTS, NAME, OTHER = 100, 90, 80, 70, 60, 30
"""The priorities, highest kept longest; a column of `NAME` or above is never dropped."""
HITS = frozenset({"hit", "hit rate", "sim. hit"})
REQUEST_COUNTS = frozenset({"reqs", "requests"})
SECONDARY = {
    "ag.": 10,
    "misses": 10,
    "harness": 11,
    "session": 12,
    "sessions": 12,
    "gap": 13,
    "rebuilt": 13,
    "sniff infers": 13,
    "range (±1σ)": 12,
    "ttft peaks": 12,
    "vis. peaks": 12,
    "dur.": 14,
    "write": 16,
    "input": 18,
    "output": 20,
}
"""Columns that go before the others (lowest first): the ones a reader misses least, as each
is a detail of another column (agents, misses; a break's gap and tokens, of its cause and
cost), told by another (a session's harness by its project and id) or by another table (the
peaks of latency)."""

PATH_HEADERS = frozenset({"project", "repo"})
"""Columns of paths, shortened to their tail (`fit_paths`) rather than their start."""
SEPARATOR, EDGES = 2, 2
"""`measures_table`'s geometry: two spaces between columns and one at each edge."""
FLOOR = 12
"""The width a shortened text column keeps while a lower-priority column can still go:
enough for `src/tilesrv` or `claude-opus`."""
MODEL_FLOOR = 17
"""A model column's: its names without their date, up to `claude-sonnet-4-5`, as a version
cut from a model's name makes it read as another model."""
LEAST = 6
"""The width text is shortened to, at most, once every column that may go is gone."""
WIDEST = 36
"""No text column is wider: past this a name is a sentence, and its start says enough."""


@dataclass(frozen=True)
class Plan:
    """Which columns a table shows (`kept`, in order), and the width of each shortened one."""

    kept: tuple[int, ...]
    widths: dict[int, int]
    dropped: tuple[str, ...]


def priority(header: str, cells: Sequence[str], index: int, shrinkable: Collection[int]) -> int:
    """A column's priority (`COST` … `OTHER`), from its header and its cells."""
    name = header.strip().lower()
    if name == "cost":
        return COST
    if any(MONEY.search(cell) for cell in cells):
        return MONEY_COLUMN
    if name in HITS:
        return HIT
    if name in REQUEST_COUNTS:
        return REQUESTS
    if index == 0 or index in shrinkable:
        return NAME
    return SECONDARY.get(name, OTHER)


def plan(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int,
    shrinkable: Collection[int],
    *,
    dated: bool = False,
) -> Plan:
    """The columns of `headers` that fit in `width`, lowest priorities dropped first (the
    rightmost of equals), and the width of each `shrinkable` column kept (`dated`: they
    hold model names)."""
    natural = [
        max([len(header), *(len(row[i]) for row in rows)]) for i, header in enumerate(headers)
    ]
    natural = [min(w, WIDEST) if i in shrinkable else w for i, w in enumerate(natural)]
    ranks = [
        priority(header, [row[i] for row in rows], i, shrinkable)
        for i, header in enumerate(headers)
    ]
    kept = list(range(len(headers)))

    floors = {
        i: min(natural[i], _floor(headers[i], [row[i] for row in rows], dated)) for i in shrinkable
    }

    def needed(text: Mapping[int, int]) -> int:
        """The table's width, its shrinkable columns at `text`'s widths."""
        shown = sum(text.get(i, natural[i]) for i in kept)
        return shown + SEPARATOR * (len(kept) - 1) + EDGES

    droppable = sorted((i for i in kept if ranks[i] < NAME), key=lambda i: (ranks[i], -i))
    while needed(floors) > width and droppable:
        kept.remove(droppable.pop(0))
    widths = {i: floors[i] for i in kept if i in shrinkable}
    if needed(widths) > width:  # every column that may go is gone: the text gives way
        widths = {i: min(natural[i], LEAST) for i in widths}
    spare = width - needed(widths)
    while spare > 0 and any(widths[i] < natural[i] for i in widths):
        for i in widths:  # the room left, shared out a character at a time
            if spare > 0 and widths[i] < natural[i]:
                widths[i] += 1
                spare -= 1
    dropped = tuple(headers[i] for i in range(len(headers)) if i not in kept)
    return Plan(tuple(kept), widths, dropped)


def _floor(header: str, cells: Sequence[str], dated: bool) -> int:
    """The width a column's text keeps while a column may still go: a path's last component
    (`…tilesrv` says what `src/tilesrv` says), a model's name without its date, else `FLOOR`."""
    if header in PATH_HEADERS:
        lasts = [len(cell.replace("\\", "/").rsplit("/", 1)[-1]) for cell in cells]
        return min(FLOOR, max([1 + last for last in lasts], default=FLOOR))
    if dated:
        return min(MODEL_FLOOR, max([len(DATE_STAMP.sub("", cell)) for cell in cells], default=0))
    return FLOOR


def short_project(project: str) -> str:
    """The last two path components: enough to recognise, short enough for a column."""
    parts = [part for part in project.replace("\\", "/").split("/") if part]
    return "/".join(parts[-2:]) if len(parts) > 2 else project


def fit_paths(paths: list[str], width: int) -> list[str]:
    """`paths` in at most `width` characters each, keeping their meaningful tail: whole
    components dropped from the start (`…/tilesrv`, or `…tilesrv` a character shorter), a last
    one still too long cut at its end."""
    return [_fit_path(path, width) for path in paths]


def _fit_path(path: str, width: int) -> str:
    if len(path) <= width:
        return path
    parts = path.replace("\\", "/").split("/")
    for start in range(1, len(parts)):
        tail = "/".join(parts[start:])
        if len(tail) + 2 <= width:
            return "…/" + tail
    if len(parts[-1]) + 1 <= width:  # a character short of `…/webshop`: `…webshop`
        return "…" + parts[-1]
    return elide(parts[-1], width)


def fit_names(names: list[str], width: int, *, dated: bool = False) -> list[str]:
    """`names` in at most `width` characters, names that differ still reading differently.

    Model names (`dated`) first lose their snapshot date (`claude-sonnet-4-20250514` reads
    `claude-sonnet-4`), except where another name would then read the same. A name still too
    long loses its end (`claude-opus…`), or, where that would make it read like another (also
    `claude-sonnet-4…` beside `claude-sonnet-4`), its middle (`claude-sonn…4-5`).
    """
    shown = {name: name for name in names}
    if all(len(name) <= width for name in shown):
        return names
    if dated:
        undated = {name: DATE_STAMP.sub("", name) for name in shown}
        counts = Counter(undated.values())
        shown = {name: short if counts[short] == 1 else name for name, short in undated.items()}
    cut = {name: elide(short, width, 0) for name, short in shown.items()}
    for reading, count in Counter(_reading(fitted) for fitted in cut.values()).items():
        group = [
            n for n, fitted in cut.items() if _reading(fitted) == reading and fitted != shown[n]
        ]
        if count == 1 or not group:
            continue
        others = {_reading(fitted) for name, fitted in cut.items() if name not in group}
        for tail in (*range(3, width - 1), 2, 1):
            tried = {name: elide(shown[name], width, tail) for name in group}
            readings = {_reading(fitted) for fitted in tried.values()}
            if len(readings) == len(group) and not others & readings:
                cut.update(tried)
                break
    return [cut[name] for name in names]


def _reading(fitted: str) -> str:
    """How a shortened name reads: `claude-sonnet-4…` as `claude-sonnet-4`, which another may be."""
    return fitted.removesuffix("…")


def elide(name: str, width: int, tail: int = 0) -> str:
    """`name` in `width` characters: its start, `…`, and its last `tail` characters, the cut
    moved out of any number it would fall in (`gpt-5.3-c…`, never `gpt-….3%`)."""
    if len(name) <= width:
        return name
    end = width - 1 - tail
    while end > 0 and _inside_number(name, end):
        end -= 1
    start = len(name) - tail if tail else len(name)
    while start < len(name) and _inside_number(name, start):
        start += 1
    return name[:end] + "…" + name[start:]


def _inside_number(text: str, cut: int) -> bool:
    """Whether cutting `text` before index `cut` splits a number (`1|2`, `1|.5`, `1.|5`)."""
    before, after = text[cut - 1 : cut], text[cut : cut + 1]
    if before.isdigit() and after.isdigit():
        return True
    if before.isdigit() and after in ".,":
        return text[cut + 1 : cut + 2].isdigit()
    return before in ".," and after.isdigit() and text[cut - 2 : cut - 1].isdigit()
