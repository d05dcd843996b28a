"""Provides the prefix tree: every distinct prompt prefix seen, one node per block.

Why a tree: requests of a conversation share their history, and requests of a project share
their system prompt and tools. In a tree each shared prefix is one node, identified by the
chained hash `H_i = h(H_{i-1}, block_i)`; a request's prompt is a path from a root to its last
block, "longest cached prefix" and "first block that differs" are walks along that path, and
building a request costs only its new blocks. One root per cache namespace (provider, model):
caches are never shared across them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator


class Node:
    """One prefix: the blocks from a root down to here."""

    __slots__ = ("key", "block", "parent", "end", "tokens", "kind", "children", "depth", "serial")

    def __init__(
        self,
        key: bytes,
        parent: Node | None,
        end: int,
        kind: str,
        depth: int,
        serial: int,
        block: str = "",
    ) -> None:
        self.key = key
        self.block = block
        """The block's own identity: its content hash, or a label for an inferred block."""
        """The chained hash of the prefix."""
        self.parent = parent
        self.end = end
        """Prompt tokens from the start of the prompt to the end of this block."""
        self.tokens = end - (parent.end if parent is not None else 0)
        """The tokens of this block alone."""
        self.kind = kind
        """What the block is: `tool`, `system`, `text`, `hidden`, `turn`, ..."""
        self.children: dict[str, Node] = {}
        self.depth = depth
        self.serial = serial
        """Creation order: parents always come before their children."""

    def path(self) -> Iterator[Node]:
        """This node and its ancestors, up to (not including) the root."""
        node: Node | None = self
        while node is not None and node.parent is not None:
            yield node
            node = node.parent


class PrefixTree:
    """All prefixes seen, per namespace."""

    def __init__(self) -> None:
        self.roots: dict[str, Node] = {}
        self.nodes: list[Node] = []

    def root(self, namespace: str) -> Node:
        """The empty prefix of a namespace."""
        found = self.roots.get(namespace)
        if found is None:
            key = hashlib.blake2b(namespace.encode(), digest_size=16).digest()
            found = self.roots[namespace] = Node(key, None, 0, "root", 0, -1)
        return found

    def child(self, parent: Node, block: str, tokens: int, kind: str) -> Node:
        """The prefix `parent` + `block` (a block's content hash), created on first sight.

        A prefix keeps the size it was first seen with: token counts of identical content can
        differ slightly between requests once calibrated to each request's reported size.
        """
        found = parent.children.get(block)
        if found is None:
            key = hashlib.blake2b(parent.key + block.encode(), digest_size=16).digest()
            found = Node(
                key,
                parent,
                parent.end + max(tokens, 0),
                kind,
                parent.depth + 1,
                len(self.nodes),
                block,
            )
            parent.children[block] = found
            self.nodes.append(found)
        return found
