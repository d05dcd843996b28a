"""Provides the bounds of what a log line may plausibly say: token counts, nesting and dates.

Why: one line holding a count of 10**30 tokens, a value nested a thousand levels deep or a date
in the year 9999 would otherwise overflow an integer, a stack or a calendar somewhere down the
line and lose the whole run, or pass silently and put trillions of dollars into a total. A line
beyond these bounds is skipped and listed (`LineIssue`), and every other line still counts.

- A token count is a non-negative integer (a float is taken only when it is a whole number) of
  at most `PLAUSIBLE_TOKENS` per class and request. A null or absent count is 0.
- JSON nested more than `MAX_DEPTH` levels is not read.
- A date is one of the years 2 to 9998: every time zone can show it, and a day, week or month
  added to it is still a date.

The transcript parsers check counts in their msgspec schemas (`Count`, in C, as they decode);
the parsers of API bodies, decoded as plain values, check each count they read (`count`).
"""

from __future__ import annotations

import itertools
import operator
import re
from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec

PLAUSIBLE_TOKENS = 10**9
"""Tokens of one class (input, cache read, output, ...) that one request can plausibly hold."""
MAX_DEPTH = 64
"""Levels of JSON nesting read; a line nested deeper is skipped."""
EARLIEST = datetime(2, 1, 1, tzinfo=UTC).timestamp()
LATEST = datetime(9999, 1, 1, tzinfo=UTC).timestamp()
"""The dates read, as epoch seconds: from the year 2 up to, not including, the year 9999."""
SURELY_DATED = ("0003", "9998")
"""ISO texts that sort between these name a year that is in range in any time zone: only the
others need parsing to tell whether they are (the transcripts' per-line test)."""

IMPLAUSIBLE_USAGE = "implausible usage"
TOO_DEEP = f"nested deeper than {MAX_DEPTH} levels"
OUT_OF_RANGE = "date out of range"

_Tokens = Annotated[int, msgspec.Meta(ge=0, le=PLAUSIBLE_TOKENS)]
_WholeTokens = Annotated[float, msgspec.Meta(ge=0, le=PLAUSIBLE_TOKENS, multiple_of=1)]
Count = _Tokens | _WholeTokens | None
"""A token count as a schema field: a string, bool, list, negative number, fraction or a count
above `PLAUSIBLE_TOKENS` fails validation."""
Cumulative = (
    Annotated[int, msgspec.Meta(ge=0)] | Annotated[float, msgspec.Meta(ge=0, multiple_of=1)] | None
)
"""A running total of tokens (Codex's `total_token_usage`): its growth per response is what is
bounded (`check_growth`), not the total."""


class Implausible(ValueError):
    """A line that is skipped for what it says; the message is its reason."""


class UsageFields(msgspec.Struct, gc=False):
    """The base of schema structs that hold token counts: when a line does not fit its schema
    and is read leniently (`lines.lenient`), a field of one of these that does not fit makes
    the line implausible rather than counting as 0."""


def count(value: Any) -> int:
    """A token count of a body decoded as plain values: 0 when null or absent.

    Raises:
        Implausible: the count is present but not a plausible number of tokens.
    """
    if type(value) is int and 0 <= value <= PLAUSIBLE_TOKENS:
        return value
    if value is None:
        return 0
    if type(value) is float and 0 <= value <= PLAUSIBLE_TOKENS and value.is_integer():
        return int(value)
    raise Implausible(IMPLAUSIBLE_USAGE)


def usage_part(usage: dict[str, Any], key: str) -> dict[str, Any]:
    """A usage object's sub-object (`cache_creation`, `prompt_tokens_details`, ...); empty when
    null or absent.

    Raises:
        Implausible: it is present but not an object.
    """
    value = usage.get(key)
    if isinstance(value, dict):
        return value
    if value is None:
        return {}
    raise Implausible(IMPLAUSIBLE_USAGE)


def usage_object(usage: Any) -> dict[str, Any] | None:
    """A response's `usage`: None when null or absent.

    Raises:
        Implausible: it is present but not an object.
    """
    if usage is None or isinstance(usage, dict):
        return usage
    raise Implausible(IMPLAUSIBLE_USAGE)


def check_growth(growth: tuple[int, ...]) -> None:
    """Refuse a response that grew a running total by an implausible count.

    Raises:
        Implausible: a class grew by more than `PLAUSIBLE_TOKENS`.
    """
    for grown in growth:
        if grown > PLAUSIBLE_TOKENS:
            raise Implausible(IMPLAUSIBLE_USAGE)


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))
_STEP = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
"""A bracket as a step up (2) or down (0) from 1, so `accumulate` can sum depths in C."""


def too_deep(raw: bytes | memoryview, within: int = 0) -> bool:
    """Whether the JSON text `raw`, a value inside `within` arrays and objects of its line,
    makes the line nest more than `MAX_DEPTH` levels deep.

    Most JSON holds too few brackets to nest that deep, which is counted at C speed; the rest
    is measured without decoding: strings are removed, then the brackets left are summed.
    """
    data = bytes(raw)
    limit = MAX_DEPTH - within
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS).translate(_STEP)
    depths = itertools.accumulate(map(operator.sub, brackets, itertools.repeat(1)))
    return max(depths, default=0) > limit


def check_depth(raw: bytes | memoryview, within: int = 0) -> None:
    """Refuse JSON that nests its line deeper than `MAX_DEPTH`, before it is decoded.

    Raises:
        Implausible: it does.
    """
    if too_deep(raw, within):
        raise Implausible(TOO_DEEP)


def decoded(raw: msgspec.Raw, within: int = 0) -> Any:
    """A raw JSON value (see `too_deep` for `within`) as plain values; None when absent.

    Raises:
        Implausible: it nests its line deeper than `MAX_DEPTH`.
    """
    if not raw:
        return None
    check_depth(raw, within)
    return msgspec.json.decode(raw)


def epoch(timestamp: str | float | int | None) -> float | None:
    """A timestamp as seconds since the epoch: ISO-8601 text (UTC when no offset) or a number.

    Numbers above 1e11 are taken as milliseconds. None when absent, unreadable, or a date
    outside the years sniff reads: every time that comes out of a log can be shown in any time
    zone (`out_of_range` tells the last case apart).
    """
    if isinstance(timestamp, str):  # the common case first: every parsed response takes this
        if not timestamp:
            return None
        try:
            moment = datetime.fromisoformat(timestamp)
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        try:
            value = moment.timestamp()
        except OverflowError:  # an offset that moves the year 1 or 9999 off the calendar
            return None
    elif timestamp is None or isinstance(timestamp, bool) or not isinstance(timestamp, int | float):
        return None
    else:
        try:
            value = float(timestamp) / 1000 if timestamp > 1e11 else float(timestamp)
        except OverflowError:  # an integer beyond any float
            return None
    return value if EARLIEST <= value < LATEST else None  # NaN is not


def out_of_range(timestamp: str | float | int | None) -> bool:
    """Whether a timestamp reads as a date, but one outside the years sniff reads."""
    if timestamp is None or isinstance(timestamp, bool) or epoch(timestamp) is not None:
        return False
    if isinstance(timestamp, str):
        try:
            datetime.fromisoformat(timestamp)
        except ValueError:
            return False  # unreadable, which is another matter
        return True
    return isinstance(timestamp, int | float)


def in_range(moment: float) -> bool:
    """Whether epoch seconds name a date sniff reads (see the module docstring); NaN does not."""
    return EARLIEST <= moment < LATEST


def check_date(timestamp: str | float | int | None) -> None:
    """Refuse a line dated outside the years sniff reads.

    Raises:
        Implausible: it is.
    """
    if out_of_range(timestamp):
        raise Implausible(OUT_OF_RANGE)


def counted(value: int | float | None) -> int:
    """A count a schema validated (`Count`, `Cumulative`) as an int: 0 when absent."""
    return 0 if value is None else int(value)
