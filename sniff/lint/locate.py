"""Provides where a finding sits in its prompt file, as an offset into the file's text.

A plain prompt file holds its blocks' text verbatim. A JSON prompt file does not: strings are
escaped (a non-ASCII character may be written raw or as `\\u2014`), tools and structured blocks
are JSON the linter re-serialized, and a list of bodies repeats the same text in each body. So
the file is scanned once for where each JSON value starts and ends, and a block is found by its
path in the body (`messages[3].content[0]`), in the body it belongs to.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from sniff.lint.prompts import LintBlock, LintPrompt

JsonPath = tuple[str | int, ...]
"""Keys and indexes from the document's root to a value: `(1, "messages", 3, "content")`."""
Spans = dict[JsonPath, tuple[int, int]]
"""Where each value of a JSON document starts and ends in its text, by path."""
STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
SPACE = re.compile(r"\s*")
PATH_PART = re.compile(r"([A-Za-z_]\w*)|\[(\d+)\]")
PLAIN = re.compile(r'[^"\\\x00-\x1f\x7f-\U0010ffff]{1,40}')
"""Characters a JSON file writes as they are (no quote, backslash, control or non-ASCII)."""
WORD = re.compile(r"[^\s,:{}\[\]]+")


def locate(prompt: LintPrompt, block: LintBlock | None, at: int, setting: str | None) -> int:
    """Where character `at` of `block`'s text (or of the request's `setting`, such as
    `prompt_cache_key`) is written in the prompt's file; -1 when that is not known."""
    if prompt.api == "text":  # a plain prompt file: each block's text as written
        return block.offset + at if block is not None and block.offset >= 0 else -1
    source = prompt.source_text
    spans = json_spans(source)
    body: JsonPath = () if prompt.index is None else (prompt.index,)
    found = -1
    if block is not None:
        found = _in_value(source, spans, (*body, *block_keys(block.path)), block.text, at)
    elif setting is not None and isinstance(prompt.body, dict):
        found = _in_value(source, spans, (*body, setting), str(prompt.body.get(setting)), at)
    if found < 0 and body:  # at least the body of the list the finding is about
        return spans.get(body, (-1, -1))[0]
    return found


def block_keys(path: str) -> JsonPath:
    """`messages[3].content[0]` → `("messages", 3, "content", 0)`."""
    return tuple(name or int(index) for name, index in PATH_PART.findall(path))


def _in_value(source: str, spans: Spans, path: JsonPath, text: str, at: int) -> int:
    """Where character `at` of `text` is written, `text` being the value at `path` (or its
    `text` or `content` string), or JSON the linter made of that value."""
    span = spans.get(path)
    if span is None:
        return -1
    for key in ((), ("text",), ("content",)):
        start, end = spans.get((*path, *key), (0, 0))
        literal = source[start:end]
        if literal.startswith('"') and json.loads(literal) == text:
            return _raw_offset(source, start + 1, at)
    # a tool or a structured block: its text is the linter's JSON of it, so the words at `at`
    # (up to the first character the file may escape) are looked for in the value as written
    for pattern in (PLAIN, WORD):
        words = pattern.match(text, at)
        found = source.find(words.group(0), span[0], span[1]) if words else -1
        if found >= 0:
            return found
    return span[0]


def _raw_offset(source: str, start: int, at: int) -> int:
    """Where decoded character `at` is written in the JSON string whose content starts at
    `start`: escapes take 2 or 6 characters of the file for one of the text."""
    position = start
    for _ in range(at):
        if source[position] == '"':
            break  # the end of the string: `at` is past its text
        if source[position] != "\\":
            position += 1
        elif source[position + 1] != "u":
            position += 2
        elif 0xD800 <= int(source[position + 2 : position + 6], 16) < 0xDC00:
            position += 12  # a surrogate pair: one character, two escapes
        else:
            position += 6
    return position


@lru_cache(maxsize=16)
def json_spans(source: str) -> Spans:
    """Where every value of a JSON document starts and ends, by its path (memoized: all the
    findings of a file look it up)."""
    spans: Spans = {}
    try:
        _scan(source, 0, (), spans)
    except (IndexError, ValueError, RecursionError):  # not JSON, or too deep: nothing located
        return {}
    return spans


def _scan(source: str, position: int, path: JsonPath, spans: Spans) -> int:
    """Record the value at `position`, and those inside it, in `spans`; where it ends."""
    start = _skip(source, position)
    opening = source[start]
    if opening not in "{[":
        end = _match(STRING if opening == '"' else SCALAR, source, start).end()
        spans[path] = (start, end)
        return end
    closing = "}" if opening == "{" else "]"
    position = _skip(source, start + 1)
    index = 0
    while source[position] != closing:
        key: str | int = index
        if opening == "{":
            name = _match(STRING, source, position)
            key = json.loads(name.group(0))
            position = source.index(":", name.end()) + 1
        position = _skip(source, _scan(source, position, (*path, key), spans))
        if source[position] == ",":
            position = _skip(source, position + 1)
        index += 1
    spans[path] = (start, position + 1)
    return position + 1


def _skip(source: str, position: int) -> int:
    """The first character at or after `position` that is not white space."""
    return _match(SPACE, source, position).end()


def _match(pattern: re.Pattern[str], source: str, position: int) -> re.Match[str]:
    found = pattern.match(source, position)
    if found is None:
        raise ValueError(f"no JSON value at character {position}")
    return found
