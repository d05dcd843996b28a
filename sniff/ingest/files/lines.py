"""Provides the lines of a JSONL log decoded into a schema, every unreadable line accounted for.

Why: a log being written has a cut last line, an editor leaves a byte-order mark, a crash leaves
binary garbage. None of that may abort a run or silently drop the good lines around it. A file,
or a block of a big one (`streamed`), is first decoded in one call (the fast path, for the
common case of clean lines); if that fails, each line is decoded on its own, and each failure
becomes a `LineIssue` naming file, line and reason. A line beyond what a log can plausibly say
(`plausible`: a token count that is no count, nesting too deep for the decoder) is skipped the
same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import msgspec
import orjson

from sniff.ingest.plausible import IMPLAUSIBLE_USAGE, TOO_DEEP, Implausible, UsageFields, too_deep
from sniff.model import LineIssue

BOM = b"\xef\xbb\xbf"
CUT_SHORT = "truncated last line (file still being written?)"
"""The reason of a last line with no newline that is no JSON: maybe still being written."""

Schema = TypeVar("Schema", bound=msgspec.Struct)


def decode_lines(
    path: str,
    data: bytes,
    schema: type[Schema],
    decoder: msgspec.json.Decoder[Schema],
    issues: list[LineIssue],
    first_line: int = 1,
    newlines: int | None = None,
) -> Iterator[tuple[int, Schema]]:
    """Yield (1-based line number, record) for every line holding a JSON object.

    `data` starts at line `first_line` of the file (a file read on from where it ended). Blank
    lines are ignored; any other line that is not a JSON object is appended to `issues`.
    A line whose fields have unexpected types is decoded leniently, field by field.
    """
    if first_line == 1 and data.startswith(BOM):  # only a file's first bytes can hold one
        data = data[len(BOM) :]
    cut = data.rfind(b"\n") + 1
    body, tail = data[:cut], data[cut:]  # `tail`: a last line with no newline, maybe cut short
    lines_in_body = body.count(b"\n") if newlines is None or tail else newlines
    try:
        records = decoder.decode_lines(body)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        records = None
    if records is not None and len(records) == lines_in_body:
        yield from enumerate(records, start=first_line)
    else:  # a bad or blank line somewhere: go line by line to find it
        for number, raw in enumerate(body.split(b"\n")[:lines_in_body], start=first_line):
            record = _decode_one(path, number, raw, schema, decoder, issues, last=False)
            if record is not None:
                yield number, record
    if tail.strip():
        number = first_line + lines_in_body
        record = _decode_one(path, number, tail, schema, decoder, issues, last=True)
        if record is not None:
            yield number, record


def handle_lines(
    path: str,
    data: bytes,
    schema: type[Schema],
    decoder: msgspec.json.Decoder[Schema],
    issues: list[LineIssue],
    handle: Callable[[int, Schema], None],
) -> None:
    """`decode_lines` into `decoder`'s schema, each record handed to `handle` with its line
    number; a record `handle` refuses (`Implausible`) is skipped and listed, as if it were not
    there."""
    for number, record in decode_lines(path, data, schema, decoder, issues):
        try:
            handle(number, record)
        except Implausible as error:
            issues.append(LineIssue(path, number, str(error)))


def decode_record(
    path: str,
    number: int,
    raw: bytes,
    schema: type[Schema],
    decoder: msgspec.json.Decoder[Schema],
    issues: list[LineIssue],
) -> Schema | None:
    """One record of a JSON document (a message of a session saved whole), decoded as a line
    is: leniently when its fields do not fit, and appended to `issues` at `number` (its place
    in the document) when it cannot be read. None when it is skipped."""
    return _decode_one(path, number, raw, schema, decoder, issues, last=False)


def _decode_one(
    path: str,
    number: int,
    raw: bytes,
    schema: type[Schema],
    decoder: msgspec.json.Decoder[Schema],
    issues: list[LineIssue],
    *,
    last: bool,
) -> Schema | None:
    if not raw.strip():
        return None
    try:
        return decoder.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        pass
    if too_deep(raw):  # before any decoding into values, which recurses as deep
        issues.append(LineIssue(path, number, TOO_DEEP))
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        value = _recover(raw)
        if value is None:
            issues.append(LineIssue(path, number, _reason(raw, error, last)))
            return None
        issues.append(LineIssue(path, number, "invalid UTF-8 bytes replaced; line kept", True))
    if not isinstance(value, dict):
        issues.append(LineIssue(path, number, f"a JSON {_json_type(value)}, not an object"))
        return None
    try:
        record: Schema = lenient(schema, value)
    except Implausible as error:
        issues.append(LineIssue(path, number, str(error)))
        return None
    return record


def lenient(schema: type[Schema], value: dict[str, Any]) -> Schema:
    """Build `schema` from a decoded JSON object, dropping fields of unexpected types.

    Raises:
        Implausible: a field of token counts (`UsageFields`) holds something else than counts.
    """
    usage = issubclass(schema, UsageFields)
    fields: dict[str, Any] = {}
    for field in msgspec.structs.fields(schema):
        if field.encode_name not in value:
            continue
        raw = value[field.encode_name]
        nested = _struct_in(field.type)
        if nested is not None:
            if isinstance(raw, dict):
                fields[field.name] = lenient(nested, raw)
            elif raw is not None and issubclass(nested, UsageFields):
                raise Implausible(IMPLAUSIBLE_USAGE)
            continue
        try:
            fields[field.name] = msgspec.convert(raw, field.type)
        except msgspec.ValidationError:
            if usage:
                raise Implausible(IMPLAUSIBLE_USAGE) from None
    return schema(**fields)


def _struct_in(annotation: Any) -> type[msgspec.Struct] | None:
    """The struct type inside `X | None`, if the field holds one."""
    for option in getattr(annotation, "__args__", (annotation,)):
        if isinstance(option, type) and issubclass(option, msgspec.Struct):
            return option
    return None


def _recover(raw: bytes) -> Any:
    """Parse a line whose only fault is invalid UTF-8, with the bad bytes replaced."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            return orjson.loads(raw.decode("utf-8", errors="replace"))
        except orjson.JSONDecodeError:
            return None
    return None


def _reason(raw: bytes, error: orjson.JSONDecodeError, last: bool) -> str:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        return f"not valid UTF-8 (byte {bad.start + 1}) and not valid JSON"
    if last:
        return CUT_SHORT
    return f"invalid JSON: {error.msg}"


def _json_type(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"
