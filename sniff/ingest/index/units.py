"""Provides `units`: files grouped so that no call, session or chain spans two groups."""

from __future__ import annotations

from collections.abc import Sequence


def units(links: Sequence[Sequence[str]]) -> list[list[int]]:
    """Groups of file indexes: two files are in one group when they share any link token.

    `links[i]` are file i's tokens (its sessions, call keys, continued calls). A file with no
    tokens is a group of its own. Groups come in order of their first file, files in order.
    """
    parent = list(range(len(links)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    owner: dict[str, int] = {}
    for index, tokens in enumerate(links):
        for token in tokens:
            other = owner.setdefault(token, index)
            if other != index:
                a, b = root(index), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for index in range(len(links)):
        groups.setdefault(root(index), []).append(index)
    return list(groups.values())
