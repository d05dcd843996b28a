"""Provides the dated data sniff ships (`sniff/data/*.toml`) and the file a user lays over it.

Why one reader: cache policies and plan prices are both bundled TOML that a user's file of the
same shape overrides, and both must fail on a bad file in one clear line. Every file a user
names for sniff to read settings or prices from is read through `read_given`: a FIFO would
wait for a writer for ever, and a link to `/dev/zero` would fill the memory.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from pathlib import Path
from typing import Any

from sniff.errors import UserError
from sniff.ingest.files.regular import OPTION_FILE_BYTES, read_regular


def bundled_and_given(
    name: str, given: Path | None, what: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The bundled data file `name`, and the TOML file `given` (empty when None).

    Raises:
        UserError: `given` cannot be read or is no TOML (named as the `what` file it is).
    """
    bundled = tomllib.loads(files("sniff.data").joinpath(name).read_text())
    if given is None:
        return bundled, {}
    raw = read_given(given, f"{what} file")
    try:
        return bundled, tomllib.loads(raw.decode())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read {what} file {given}: {error}") from error


def read_given(path: Path, what: str) -> bytes:
    """The bytes of the `what` (`pricing file`) at `path`, a user's file of settings or prices.

    Raises:
        UserError: it is missing, unreadable, no regular file, or larger than such files are
            (`OPTION_FILE_BYTES`).
    """
    try:
        return read_regular(path, OPTION_FILE_BYTES)
    except OSError as error:
        raise UserError(f"cannot read {what} {path}: {error.strerror or error}") from error
