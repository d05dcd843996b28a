"""Provides the log files to read: the usual places agents write to, or the paths a user named.

Why: a user who types `sniff` should see their numbers without knowing where Claude Code keeps
its transcripts, and a user who names a path must hear at once, in one line, if it is wrong.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from sniff.errors import UserError
from sniff.ingest import export_folders

LOG_SUFFIX = ".jsonl"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to parse, with the project its location suggests."""

    path: str
    project_hint: str
    size: int
    mtime_ns: int = 0
    inode: int = 0
    """Size, modification time and inode tell the index whether the file changed."""


def default_roots() -> list[Path]:
    """The existing folders where agents and tracers keep logs on this machine.

    Claude Code transcripts (`$CLAUDE_CONFIG_DIR`, `~/.claude`, `~/.config/claude`), Codex
    rollouts (`$CODEX_HOME` or `~/.codex`: `sessions/` and `archived_sessions/`), and
    claude-trace logs in the current folder (`./.claude-trace`).
    """
    candidates: list[Path] = []
    config_dirs = os.environ.get("CLAUDE_CONFIG_DIR", "")
    for entry in config_dirs.split(","):
        if entry.strip():
            base = Path(entry.strip()).expanduser()
            candidates.append(base / "projects" if (base / "projects").is_dir() else base)
    home = Path.home()
    candidates += [home / ".claude" / "projects", home / ".config" / "claude" / "projects"]
    codex_home = Path(os.environ["CODEX_HOME"]).expanduser() if "CODEX_HOME" in os.environ else None
    codex = codex_home or home / ".codex"
    candidates += [codex / "sessions", codex / "archived_sessions"]
    candidates.append(Path.cwd() / ".claude-trace")
    return _unique_dirs(candidates)


def bundled_samples() -> Path:
    """The sample logs shipped with sniff (inside the package once installed)."""
    package = Path(__file__).resolve().parent.parent
    installed = package / "sample_logs"
    return installed if installed.is_dir() else package.parent / "sample_logs"


def expand(paths: list[Path]) -> list[SourceFile]:
    """Every log file under `paths`, each once, in a stable order.

    A `sniff export` folder counts as one file (its path the folder's), never walked for logs;
    its size and modification time are those of its tables as a whole (`export_folders.identity`).

    Raises:
        UserError: a path does not exist.
    """
    seen: set[tuple[int, int]] = set()
    found: list[SourceFile] = []
    for root in paths:
        if not root.exists():
            raise UserError(f"no such file or directory: {root}")
        if root.is_file() or export_folders.is_export(root):
            files = [(str(root), project_hint(root))]
        else:
            files = _walk(root)
        for path, hint in files:
            try:
                status = os.stat(path)
                size, mtime_ns = (
                    export_folders.identity(Path(path))
                    if stat.S_ISDIR(status.st_mode)
                    else (status.st_size, status.st_mtime_ns)
                )
            except OSError:  # vanished since it was listed: reading it reports why
                found.append(SourceFile(path, hint, 0, -1, -1))
                continue
            identity = (status.st_dev, status.st_ino)  # the same file reached twice (links)
            if identity in seen:
                continue
            seen.add(identity)
            found.append(SourceFile(path, hint, size, mtime_ns, status.st_ino))
    return found


def project_hint(file: Path) -> str:
    """The project a transcript's location names, for files whose lines do not say.

    Claude Code keeps `projects/<escaped cwd>/<session>.jsonl`, with subagents under
    `<session>/subagents/`; claude-trace writes `<project>/.claude-trace/`; elsewhere the
    containing folder is the best guess.
    """
    parts = file.parts
    for index in range(len(parts) - 2, -1, -1):
        if parts[index] == "projects":
            return parts[index + 1]
    parent = file.parent
    if parent.name == ".claude-trace":  # claude-trace writes into the project it traced
        return str(parent.parent.resolve())
    if parent.name == "subagents":
        parent = parent.parent.parent
    return parent.name or str(parent)


def _walk(root: Path) -> list[tuple[str, str]]:
    """(path, project hint) of every log under `root`; the hint is worked out per folder."""
    found: list[tuple[str, str]] = []
    for directory, subdirs, files in os.walk(root, onerror=None):
        if export_folders.MANIFEST in files and export_folders.is_export(Path(directory)):
            # a `sniff export`: read whole, never walked for logs
            found.append((directory, project_hint(Path(directory))))
            subdirs.clear()
            continue
        subdirs.sort()
        logs = sorted(name for name in files if name.endswith(LOG_SUFFIX))
        if logs:
            hint = project_hint(Path(directory, logs[0]))
            found.extend((os.path.join(directory, name), hint) for name in logs)
    return found


def _unique_dirs(candidates: list[Path]) -> list[Path]:
    seen: set[str] = set()
    result: list[Path] = []
    for candidate in candidates:
        if candidate.is_dir():
            identity = os.path.realpath(candidate)
            if identity not in seen:
                seen.add(identity)
                result.append(candidate)
    return result


def roots_for(paths: list[Path] | None) -> tuple[list[Path], bool]:
    """The folders to read: the given paths, else the usual ones, else the bundled samples.

    Returns the roots and whether they are the samples.
    """
    if paths:
        return list(paths), False
    roots = default_roots()
    return (roots, False) if roots else ([bundled_samples()], True)
