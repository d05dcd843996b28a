"""sniff: what AI coding agents cost, whether prompt caching works, and what breaks it.

The Python API is `sniff.Workspace` (see `sniff.workspace`); `sniff.load` reads the logs into
records, as `sniff.api.load` did. Both are imported on first use: `import sniff` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sniff.logs import load
    from sniff.workspace import Workspace

from sniff.version import __version__

__all__ = ["Workspace", "__version__", "load"]


def __getattr__(name: str) -> Any:
    if name == "Workspace":
        from sniff.workspace import Workspace

        return Workspace
    if name == "load":
        from sniff.logs import load

        return load
    raise AttributeError(f"module 'sniff' has no attribute {name!r}")
