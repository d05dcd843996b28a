"""Provides `attribute_exporters`: requests, sessions, tokens and cost per machine or user that
exported them to a team folder (`sniff sessions --by machine|user`).

Why the owners come from the caller: a request does not know who exported it; the team folder
does (`parquet_in.owners`), and a request two machines exported is credited to the first. A
request read from logs, not from a team folder, goes to the row `(local)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from sniff.analyses.cost.branches import Attributed, attributed
from sniff.model import Request

LOCAL = "(local)"
"""The row of requests read from logs (or an export of one machine's): nobody exported them."""
NO_USER = "(no user)"
"""The row of a team folder's requests whose export names no user."""
EXPORTERS = ("machine", "user")
"""What `sniff sessions --by` attributes requests to, beside branches and repositories."""


def attribute_exporters(
    requests: Iterable[Request], owners: Mapping[str, tuple[str, str | None]], by: str
) -> list[Attributed]:
    """The requests summed per machine (`by="machine"`) or user (`"user"`) that exported them,
    `owners` giving each team request's (machine, user) by key; by cost, highest first.

    Raises:
        ValueError: `by` is not one of EXPORTERS.
    """
    if by not in EXPORTERS:
        raise ValueError(f"unknown attribution {by!r}")
    return attributed(requests, lambda request: _row(owners.get(request.key), by))


def exporter_label(
    owners: Mapping[str, tuple[str, str | None]], by: str
) -> Callable[[Request], str]:
    """The row each request is booked to `by` machine or user (as `attribute_exporters` books
    it), for splitting other tables the same way (`periods`)."""
    if by not in EXPORTERS:
        raise ValueError(f"unknown attribution {by!r}")
    return lambda request: _row(owners.get(request.key), by)


def _row(owner: tuple[str, str | None] | None, by: str) -> str:
    """The row a request exported by `owner` (None: read from logs) is booked to."""
    if owner is None:
        return LOCAL
    return owner[0] if by == "machine" else owner[1] or NO_USER
