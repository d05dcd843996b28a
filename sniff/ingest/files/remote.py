"""Provides exports kept in object storage: telling a URL among paths, opening its store,
reading, listing and writing its objects.

Why fsspec: one interface to S3, Google Cloud Storage, Azure and the rest. Each store's client
is an optional extra (`sniff[s3]`, `sniff[gcs]`, `sniff[azure]`) imported only when a URL names
its store, so no network call happens unless a user names one. Credentials and endpoints come
from where each client looks (for S3: `AWS_*` variables, `~/.aws`), and fsspec's own
`FSSPEC_<PROTOCOL>_<OPTION>` variables (`FSSPEC_S3_ENDPOINT_URL` for an S3-compatible server).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from sniff.errors import UserError

if TYPE_CHECKING:
    from fsspec import AbstractFileSystem

URL = re.compile(r"([a-z][a-z0-9+.-]{1,15})://(.*)", re.DOTALL)
"""A URL as given. Two letters at least: `C:/...` is a Windows path, not a store."""
SQUASHED = re.compile(r"([a-z][a-z0-9+.-]{1,15}):/(?!/)(.*)", re.DOTALL)
"""A URL that went through `pathlib.Path`, which squashes `//` into `/`."""
LOCAL = frozenset({"file", "local"})
"""fsspec's names of the local disk: read as paths, with the guarantees of local writes."""
EXTRAS = {
    "s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "az": "azure", "abfs": "azure",
    "abfss": "azure", "adl": "azure",
}  # fmt: skip
"""The `sniff[extra]` that installs a store's client."""


def url_of(path: str | os.PathLike[str]) -> str | None:
    """The store URL `path` names (`s3://bucket/team`), or None for a local path.

    A `Path` made of a URL squashed its `//`; it is read as the URL again unless a local file
    of that name exists.
    """
    text = os.fspath(path)
    match = URL.fullmatch(text)
    if match is None and not isinstance(path, str):
        match = SQUASHED.fullmatch(text)
        if match is not None and os.path.lexists(text):
            return None
    if match is None or match.group(1) in LOCAL:
        return None
    return f"{match.group(1)}://{match.group(2)}".rstrip("/")


def joined(url: str, *names: str) -> str:
    """`url` with `names` appended, one `/` between each."""
    return "/".join([url.rstrip("/"), *names])


def store(url: str) -> tuple[AbstractFileSystem, str]:
    """The file system of `url` and the path in it.

    Raises:
        UserError: the URL names no store fsspec knows, or its client is not installed.
    """
    protocol = url.split("://", 1)[0]
    extra = EXTRAS.get(protocol)
    how = f"pip install 'sniff[{extra}]'" if extra else f"install fsspec's {protocol} client"
    try:
        from fsspec.core import url_to_fs

        filesystem, inside = url_to_fs(url)
    except ImportError:
        raise UserError(f"{protocol}:// needs its client: {how}") from None
    except ValueError as error:
        raise UserError(f"cannot use {url}: {error}") from None
    return filesystem, inside


@contextmanager
def _asking(what: str, url: str) -> Iterator[None]:
    """A store client's own errors (a refused request, a timeout) as the `OSError` they are."""
    try:
        yield
    except OSError:
        raise
    except Exception as error:  # each client raises its own kinds
        raise OSError(f"cannot {what} {url}: {error}") from error


def read(url: str) -> bytes:
    """The bytes of one object.

    Raises:
        FileNotFoundError: there is none.
        OSError: it cannot be read (the store refused, the network failed).
    """
    filesystem, inside = store(url)
    with _asking("read", url):
        data: bytes = filesystem.cat_file(inside)
    return data


def read_many(urls: list[str]) -> dict[str, bytes]:
    """The bytes of the objects `urls` name (all of one store), asked for together; an object
    that cannot be read is left out.

    Raises:
        OSError: the store cannot be reached.
    """
    filesystem, _ = store(urls[0])
    inside = {store(url)[1]: url for url in urls}
    with _asking("read", urls[0]):
        found = filesystem.cat(list(inside), on_error="return")
    if not isinstance(found, dict):  # one path: its bytes
        found = {next(iter(inside)): found}
    return {
        inside[path]: data
        for path, data in found.items()
        if path in inside and isinstance(data, bytes)
    }


def names_in(url: str) -> list[str]:
    """The names directly under `url` (folders and objects), sorted; none where it holds none.

    Raises:
        OSError: it cannot be listed.
    """
    filesystem, inside = store(url)
    try:
        with _asking("list", url):
            found = filesystem.ls(inside, detail=False, refresh=True)
    except FileNotFoundError:
        return []
    return sorted({str(name).rstrip("/").rsplit("/", 1)[-1] for name in found})


def files_under(url: str) -> list[str]:
    """Every object under `url`, named relative to it (`requests/day=.../part-....parquet`),
    sorted.

    Raises:
        OSError: it cannot be listed.
    """
    filesystem, inside = store(url)
    try:
        with _asking("list", url):
            filesystem.invalidate_cache(inside)  # another machine may have written since
            found = filesystem.find(inside)
    except FileNotFoundError:
        return []
    prefix = inside.rstrip("/") + "/"
    return sorted(str(name).removeprefix(prefix) for name in found if str(name).startswith(prefix))


def write(url: str, data: bytes) -> None:
    """Put one object whole: a reader sees the old bytes or the new, never a part (an object
    store's put is atomic; no store offers a rename that is).

    Raises:
        OSError: it cannot be written.
    """
    filesystem, inside = store(url)
    with _asking("write", url):
        filesystem.pipe_file(inside, data)


def remove(url: str, names: list[str]) -> None:
    """Delete the objects `names` (relative to `url`); one already gone is no error.

    Raises:
        OSError: they cannot be deleted.
    """
    if not names:
        return
    filesystem, inside = store(url)
    try:
        with _asking("delete under", url):
            filesystem.rm([f"{inside.rstrip('/')}/{name}" for name in names])
    except FileNotFoundError:
        pass
