"""Provides where sniff keeps its files and finds its data, and the stamps that tell they changed.

`cache_folder` is the one folder for what sniff can always make again: the index, the kept
answers, the price tables resolved from genai-prices and the tokenizer's verified encoding.
`SNIFF_CACHE_DIR` names another folder (set empty: keep nothing); else it is the user's cache
folder, where the platform puts those (platformdirs). `data_folder` holds what cannot be made
again: what `sniff otel` received. What is kept there is kept under the
identity of what it was made from (`identity`): sniff's version and own code
(`code_identity`), and the parts it names: the price data (`price_data_identity`), a file the
user gave (`file_identity`), the options, the logs' files.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from sniff.version import __version__


def cache_folder() -> Path | None:
    """The user's cache folder for sniff (`SNIFF_CACHE_DIR` overrides; empty disables)."""
    configured = os.environ.get("SNIFF_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sniff", appauthor=False))


def data_folder() -> Path:
    """The user's data folder for sniff: what sniff wrote that cannot be made again (what
    `sniff otel` received). `SNIFF_DATA_DIR` overrides; else where the platform puts data."""
    configured = os.environ.get("SNIFF_DATA_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_data_dir

    return Path(user_data_dir("sniff", appauthor=False))


def config_folder() -> Path:
    """The user's config folder for sniff: what identifies this machine to a team export
    (`machine-id`). `SNIFF_CONFIG_DIR` overrides; else where the platform puts settings."""
    configured = os.environ.get("SNIFF_CONFIG_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_config_dir

    return Path(user_config_dir("sniff", appauthor=False))


def otel_folder() -> Path:
    """Where `sniff otel` writes what it receives by default, and every command reads it."""
    return data_folder() / "otel"


def proxy_folder() -> Path:
    """Where `sniff proxy` records the calls it passes by default, and every command reads them."""
    return data_folder() / "proxy"


def identity(*parts: object) -> str:
    """The one identity of everything sniff keeps (index rows, scan parts, answers): sniff's
    version and code, and `parts`, what the kept thing was made from. A kept thing is used
    only under the identity it was made under: an edited sniff never reads old records."""
    digest = hashlib.sha256(json.dumps([__version__, parts], default=str).encode())
    digest.update(json.dumps(code_identity()).encode())
    return digest.hexdigest()[:32]


def file_identity(path: Path | None) -> tuple[str, int, int] | None:
    """A file's resolved path, size and modification time (None for no file)."""
    if path is None:
        return None
    try:
        status = path.stat()
    except OSError:
        return (str(path), -1, -1)
    return (str(path.resolve()), status.st_size, status.st_mtime_ns)


def price_data_identity() -> tuple[str, int, int] | None:
    """The price data's file identity: nothing made with other prices may be used with these."""
    return file_identity(price_data())


def price_data() -> Path | None:
    """genai-prices' data file (None: the library is not installed)."""
    from importlib.util import find_spec

    spec = find_spec("genai_prices")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "data.py"


@functools.cache
def code_identity() -> tuple[tuple[str, int, int], ...]:
    """sniff's own sources: an upgraded or edited sniff must not replay an old answer."""
    package = Path(__file__).parent  # read once per process: a scan keys its answer and parts
    found: list[tuple[str, int, int]] = []
    for directory, _, files in os.walk(package):
        for name in sorted(files):
            if name.endswith((".py", ".toml", ".json")):
                status = os.stat(os.path.join(directory, name))
                found.append((name, status.st_size, status.st_mtime_ns))
    return tuple(found)
