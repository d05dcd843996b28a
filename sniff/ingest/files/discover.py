"""Provides the log files to read: the usual places agents write to, or the paths a user named.

Why: a user who types `sniff` should see their numbers without knowing where Claude Code keeps
its transcripts, and a user who names a path must hear at once, in one line, if it is wrong.
"""

from __future__ import annotations

import os
import stat
import zlib
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from sniff.errors import UserError
from sniff.ingest import export_folders
from sniff.ingest.files import remote
from sniff.ingest.files.regular import kind, open_regular, read_at, why_unread

LOG_SUFFIX = ".jsonl"
DATABASE_SUFFIX = ".db"
QUIET_SUFFIXES = (".json", DATABASE_SUFFIX)
"""The JSON documents and SQLite databases other agents keep: a file of these of no known
format is not reported (folders hold many JSON files that are no logs)."""
LOG_SUFFIXES = (LOG_SUFFIX, *QUIET_SUFFIXES)
"""What the logs found in folders end with."""
WAL_SIDECARS = ("-wal",)
CHECK_BYTES = 4096
"""How many bytes at a file's end its identity's checksum covers (see `SourceFile.tail_crc`)."""
RACY_NS = 2_000_000_000
"""A file modified this recently (ns) may change again within its timestamp's resolution, size
unchanged: nothing kept from it is trusted (its index row is stored as never matching, so the
next run checks it from its offset; no answer that depends on it is kept)."""
EXPORT, REGULAR = "export", "regular"
"""What a folder's listing says a log is (a `sniff export` folder, a regular file), if it says."""


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to parse, with the project its location suggests, and its identity as listed."""

    path: str
    project_hint: str
    size: int
    mtime_ns: int = 0
    inode: int = 0
    ctime_ns: int = 0
    """The inode's change time: moves on any write, even one whose mtime was set back."""
    tail_crc: int = 0
    """CRC-32 of its last `CHECK_BYTES` bytes (of all of it when smaller)."""
    problem: str = ""
    """Why it cannot be read, found while listing it (a FIFO, a folder that cannot be listed,
    a file that cannot be opened): such a file is never opened, only reported."""

    @property
    def identity(self) -> tuple[int, int, int, int, int]:
        """What tells the index and the kept answers whether the file changed."""
        return (self.size, self.mtime_ns, self.ctime_ns, self.inode, self.tail_crc)


def default_roots() -> list[Path]:
    """The existing folders where agents and tracers keep logs on this machine: every agent's
    places (`locations.PLACES`, under every home, or where its variable says), what `sniff
    otel` received and `sniff proxy` recorded (`paths.otel_folder`, `paths.proxy_folder`), and
    claude-trace logs in the current folder (`./.claude-trace`)."""
    from sniff.ingest.files import locations
    from sniff.paths import otel_folder, proxy_folder

    found = locations.candidates(os.environ, locations.homes())
    return _unique_dirs([*found, otel_folder(), proxy_folder(), Path.cwd() / ".claude-trace"])


def bundled_samples() -> Path:
    """The sample logs shipped with sniff (inside the package once installed)."""
    package = Path(__file__).resolve().parents[2]  # sniff/ingest/files/discover.py → sniff/
    installed = package / "sample_logs"
    return installed if installed.is_dir() else package.parent / "sample_logs"


def expand(paths: list[Path]) -> list[SourceFile]:
    """Every log file under `paths`, each once, in a stable order.

    A `sniff export` folder counts as one file (its path the folder's), never walked for logs;
    its size and modification time are those of its tables as a whole (`export_folders.identity`).
    A team folder counts as one file per machine's export, the first exporter first, and so does
    a store's URL (`s3://bucket/team`, `stored_exports`).
    Special files (FIFOs, devices, sockets), folders that cannot be listed and files that cannot
    be opened are listed with their `problem`, never opened.

    Raises:
        UserError: a path does not exist, cannot be looked at, or is neither a regular file
            nor a folder.
    """
    seen: set[tuple[int, int] | str] = set()
    found: list[SourceFile] = []
    for root in paths:
        url = remote.url_of(root)
        if url is not None:
            for file in stored_exports(url):
                if file.path not in seen:
                    seen.add(file.path)
                    found.append(file)
            continue
        mode = _mode_of(root)
        if stat.S_ISDIR(mode) and not _is_export(root):
            logs, problems = _walk(str(root))
        elif stat.S_ISDIR(mode):
            logs, problems = [(str(root), project_hint(root), EXPORT)], []
        elif stat.S_ISREG(mode):
            logs, problems = [(str(root), project_hint(root), "")], []
        else:
            raise UserError(f"not a regular file or folder: {root} ({kind(mode)})")
        for path, hint, what in _machines_apart(logs):
            sidecars = WAL_SIDECARS if path.endswith(DATABASE_SUFFIX) else ()
            file, identity = (
                _export(path, hint)
                if what == EXPORT
                else listed(path, hint, what == REGULAR, sidecars)
            )
            if identity not in seen:  # the same file reached twice (links) counts once
                seen.add(identity)
                found.append(file)
        for folder, why in problems:
            found.append(_unread(folder, project_hint(Path(folder)), why)[0])
    return found


def listed(
    path: str, hint: str, regular: bool = False, sidecars: tuple[str, ...] = ()
) -> tuple[SourceFile, tuple[int, int] | str]:
    """The log at `path` as listed (its identity, or why it cannot be read), and what tells
    it apart from every other file (device and inode).

    `regular`: its folder's listing said it is a regular file (see `open_regular`).
    `sidecars`: suffixes of files beside it whose identity is folded into its own, such as a
    SQLite log's write-ahead log (`-wal`), which holds its newest rows while the database
    file itself is unchanged.
    """
    try:
        descriptor, status = open_regular(path, listed_regular=regular)
    except OSError as error:
        return _unread(path, hint, why_unread(error))
    try:
        length = min(status.st_size, CHECK_BYTES)
        tail = read_at(descriptor, length, status.st_size - length)
    except OSError as error:
        return _unread(path, hint, why_unread(error))
    finally:
        os.close(descriptor)
    size, mtime_ns, ctime_ns = status.st_size, status.st_mtime_ns, status.st_ctime_ns
    crc = zlib.crc32(tail)
    for suffix in sidecars:
        side, _ = listed(path + suffix, hint)
        if not side.problem:  # absent (or unreadable, as SQLite would find it): nothing to add
            size += side.size
            mtime_ns, ctime_ns = max(mtime_ns, side.mtime_ns), max(ctime_ns, side.ctime_ns)
            crc = zlib.crc32(side.tail_crc.to_bytes(4, "little"), crc)
    file = SourceFile(path, hint, size, mtime_ns, status.st_ino, ctime_ns, crc)
    return file, (status.st_dev, status.st_ino)


def _mode_of(root: Path) -> int:
    """The type and mode of a path the caller named (links followed).

    Raises:
        UserError: it does not exist, or cannot be looked at.
    """
    try:
        return os.stat(root).st_mode
    except (FileNotFoundError, NotADirectoryError):
        raise UserError(f"no such file or directory: {root}") from None
    except OSError as error:
        raise UserError(f"cannot read {root}: {error.strerror or error}") from None


def _is_export(folder: Path) -> bool:
    try:
        return export_folders.is_export(folder)
    except OSError:  # a folder that cannot be looked into: walking it says why
        return False


def _machines_apart(logs: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """`logs` with each team folder replaced by its machines' exports, the first exporter first
    (`export_folders.machine_exports`): each is read, kept and analysed apart."""
    apart: list[tuple[str, str, str]] = []
    for path, hint, what in logs:
        folder = Path(path)
        machines = (
            export_folders.machine_exports(folder)
            if what == EXPORT and not (folder / export_folders.MANIFEST).is_file()
            else []
        )
        apart.extend((str(machine), hint, EXPORT) for machine in machines)
        if not machines:
            apart.append((path, hint, what))
    return apart


def stored_exports(url: str) -> list[SourceFile]:
    """The exports a store's URL holds, one file each (a team's: one per machine, the first
    exporter first), identified by their manifests' bytes: an export changes its manifest.

    Raises:
        UserError: the URL holds no sniff export.
    """
    from hashlib import blake2b

    from sniff.ingest import remote_exports

    try:
        exports = remote_exports.exports_at(url)
    except OSError as error:
        return [SourceFile(url, "", 0, -1, -1, -1, problem=why_unread(error, "store"))]
    if not exports:
        raise UserError(f"{url} holds no sniff export")
    files = []
    for export in exports:
        digest = int.from_bytes(blake2b(export.manifest, digest_size=7).digest(), "big")
        crc = zlib.crc32(export.manifest)
        files.append(SourceFile(export.url, "", len(export.manifest), digest, 0, 0, crc))
    return files


def _export(path: str, hint: str) -> tuple[SourceFile, tuple[int, int] | str]:
    """A `sniff export` folder as listed: the identity of its tables as a whole."""
    try:
        size, mtime_ns = export_folders.identity(Path(path))
        status = os.stat(path)
    except OSError as error:  # vanished or locked since it was named
        return _unread(path, hint, why_unread(error, "folder"))
    return SourceFile(path, hint, size, mtime_ns, status.st_ino), (status.st_dev, status.st_ino)


def _unread(path: str, hint: str, why: str) -> tuple[SourceFile, tuple[int, int] | str]:
    """A path listed but not to be read; its identity from `stat` where it gives one, so a
    kept answer is not replayed once the path is fixed (`chmod` moves its change time)."""
    try:
        status = os.stat(path)
    except OSError:
        return SourceFile(path, hint, 0, -1, -1, -1, problem=why), path
    file = SourceFile(
        path, hint, 0, status.st_mtime_ns, status.st_ino, status.st_ctime_ns, problem=why
    )
    return file, (status.st_dev, status.st_ino)


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


def _walk(root: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """(path, project hint, what it is: `EXPORT`, `REGULAR` or unknown) of every log under
    `root`, the hint worked out per folder; and (folder, why) of every folder that could not
    be listed (no permission, a path too long).

    In the order of a top-down walk of sorted names. Links to folders are not followed (a loop
    of links never ends), and a deep tree is walked without recursion.
    """
    found: list[tuple[str, str, str]] = []
    problems: list[tuple[str, str]] = []
    pending = [root]
    while pending:
        directory = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=attrgetter("name"))
        except OSError as error:
            problems.append((directory, why_unread(error, "folder")))
            continue
        names = {entry.name for entry in entries}
        if names & {export_folders.MANIFEST, export_folders.MACHINES} and (
            export_folders.is_export(Path(directory))
        ):  # a `sniff export` or a team folder of them: read whole, never walked for logs
            found.append((directory, project_hint(Path(directory)), EXPORT))
            continue
        logs: list[tuple[str, str]] = []
        folders: list[str] = []
        for entry in entries:
            if entry.is_file(follow_symlinks=False):  # the listing's type: no system call
                if entry.name.endswith(LOG_SUFFIXES):
                    logs.append((entry.path, REGULAR))
            elif _is_folder(entry):
                if not entry.is_symlink():
                    folders.append(entry.path)
            elif entry.name.endswith(LOG_SUFFIXES):
                logs.append((entry.path, ""))
        if logs:
            hint = project_hint(Path(logs[0][0]))
            found.extend((path, hint, what) for path, what in logs)
        pending.extend(reversed(folders))
    return found, problems


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # a link that cannot be followed: listed, and reading it says why
        return False


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


def root_name(root: Path) -> str:
    """A root as the user named it: a store's URL whole again (a `Path` squashes its `//`)."""
    return remote.url_of(root) or str(root)


def roots_for(paths: list[Path] | None) -> tuple[list[Path], bool]:
    """The folders to read: the given paths, else the usual ones, else the bundled samples.

    Returns the roots and whether they are the samples.
    """
    if paths:
        return list(paths), False
    roots = default_roots()
    return (roots, False) if roots else ([bundled_samples()], True)
