"""Provides the dated data sniff ships (`sniff/data/*.toml`) and the file a user lays over it.

Why one reader: cache policies and plan prices are both bundled TOML that a user's file of the
same shape overrides, and both must fail on a bad file in one clear line.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from pathlib import Path
from typing import Any

from sniff.errors import UserError


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
    try:
        return bundled, tomllib.loads(given.read_text())
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UserError(f"cannot read {what} file {given}: {error}") from error
