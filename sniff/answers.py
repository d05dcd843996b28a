"""Provides `remembered`: a command's output replayed when nothing it depends on has changed.

Why: status lines and scripts run `sniff scan` every few seconds over logs that mostly did not
change. The on-disk index spares the parsing, but pricing and analysing every request again
still takes most of a second. An answer is therefore kept under a key made of everything the
output depends on: the command and its options, the working folder, the environment variables
sniff reads, the local date and time zone, the identity of every log file read (path, size,
modification and inode change times, inode and a checksum of its last 4 KiB, taken afresh on
every run, or why it cannot be read: `discover.SourceFile`), of a `--pricing` file and of the
price data, and sniff's own code. When the key matches, the kept output is written again, byte
for byte, without reading anything.

Only output that goes to a pipe or file is kept: a terminal's output depends on its size and
colours, and is for a person, who can wait a second.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sniff.paths import cache_folder, code_identity, file_identity, price_data_identity

if TYPE_CHECKING:
    from sniff.ingest.discover import SourceFile

ENVIRONMENT = (
    "CLAUDE_CONFIG_DIR", "CODEX_HOME", "HOME", "TZ", "COLUMNS", "LINES", "NO_COLOR",
    "FORCE_COLOR", "TERM", "LANG", "LC_ALL", "SNIFF_SHARED_SAMPLES",
)  # fmt: skip
"""Environment variables that can change what a command prints."""
ANSWERS_FOLDER = "answers"
KEEP = 64
"""Answers kept at most; the least recently written go first."""
RACY_SECONDS = 2.0
"""A file modified this recently may change again within its timestamp's resolution: an answer
that depends on it is not kept."""


def answers_folder() -> Path | None:
    """Where answers are kept (in the user cache folder); None when caching is disabled."""
    folder = cache_folder()
    return None if folder is None else folder / ANSWERS_FOLDER


def remembered(
    command: str,
    options: dict[str, Any],
    paths: list[Path] | None,
    run: Callable[[list[SourceFile] | None], None],
) -> None:
    """Run `run(files)` (which prints `command`'s output) or replay the answer it gave last
    time.

    `options` are all of the command's options; `paths` the logs it reads (None: the usual
    places). `run` gets the files the key was made from (so it reads exactly those, listed
    once), or None when no key was made: output to a terminal, `--no-index` or `--verbose`
    asking for a fresh read, or anything failing on the way to a key.
    """
    folder = answers_folder()
    if folder is None or sys.stdout.isatty() or options.get("no_index") or options.get("verbose"):
        run(None)
        return
    try:
        key, settled, files = answer_key(command, options, paths)
    except Exception:  # an unreadable path or similar: the command itself will say so
        run(None)
        return
    stored = folder / f"{key}.json"
    answer = _kept(stored)
    if answer is not None:
        sys.stdout.write(answer.stdout)
        sys.stderr.write(answer.stderr)
        return
    if not settled:
        run(files)
        return
    with _captured() as (out_copy, err_copy):
        run(files)  # an exception (a user error, an exit) leaves no answer behind
    _store(folder, stored, out_copy.getvalue(), err_copy.getvalue())


class _Answer(NamedTuple):
    stdout: str
    stderr: str


def _kept(stored: Path) -> _Answer | None:
    """The answer kept at `stored`; None when there is none, or what is there is no answer
    (damaged, or written by other code): the command then runs, and keeps its answer anew.

    Why the standard library's json: this is the whole of a replayed run's reading, and a
    decoding library's import would cost more than the answer's few kilobytes.
    """
    try:
        data = json.loads(stored.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    out, err = data.get("stdout"), data.get("stderr")
    return _Answer(out, err) if isinstance(out, str) and isinstance(err, str) else None


def answer_key(
    command: str, options: dict[str, Any], paths: list[Path] | None
) -> tuple[str, bool, list[SourceFile]]:
    """The digest of everything `command`'s output depends on (see the module docstring),
    whether every log file has settled (none was modified in the last `RACY_SECONDS`), and the
    log files listed for it."""
    from sniff import __version__
    from sniff.ingest.discover import expand, roots_for

    digest = hashlib.sha256()

    def add(*parts: object) -> None:
        digest.update(json.dumps(parts, default=str).encode())
        digest.update(b"\0")

    add(__version__, command, sorted((name, str(value)) for name, value in options.items()))
    add(os.getcwd(), [(name, os.environ.get(name)) for name in ENVIRONMENT])
    add(time.strftime("%Y-%m-%d %z"), _zone_identity())
    roots, sample = roots_for(paths)
    add([str(root) for root in roots], sample)
    recent = time.time_ns() - int(RACY_SECONDS * 1e9)
    files = expand(roots)
    add([(file.path, file.identity, file.problem) for file in files])  # one call: ~1k files
    settled = all(file.mtime_ns < recent for file in files)
    pricing = options.get("pricing")
    if pricing is not None:
        add(file_identity(Path(pricing)))
    add(price_data_identity(), code_identity())
    return digest.hexdigest()[:32], settled, files


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Copy what is written to stdout and stderr while still writing it through."""
    out, err = io.StringIO(), io.StringIO()
    real_out, real_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Tee(real_out, out), _Tee(real_err, err)
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = real_out, real_err


class _Tee(io.TextIOBase):
    def __init__(self, real: Any, copy: io.StringIO) -> None:
        self.real, self.copy = real, copy

    def write(self, text: str) -> int:
        self.copy.write(text)
        return int(self.real.write(text))

    def flush(self) -> None:
        self.real.flush()

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return int(self.real.fileno())


def _store(folder: Path, path: Path, out: str, err: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"stdout": out, "stderr": err}), encoding="utf-8")
        os.replace(temporary, path)  # whole or not at all, even with runs side by side
        kept = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in kept[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass


def _zone_identity() -> str:
    try:
        return os.path.realpath("/etc/localtime")
    except OSError:
        return ""
