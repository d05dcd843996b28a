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

Every command that reads logs keeps its answer so (`replayed`); a report written to a file
keeps the file's text with it, and writes it again, whole. Only output that goes to a pipe or
file is kept: a terminal's output depends on its size and colours.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import sys
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from sniff.ingest.files import locations
from sniff.ingest.files.regular import KEPT_FILE_BYTES, read_regular
from sniff.paths import cache_folder, file_identity, identity, price_data_identity

if TYPE_CHECKING:
    from sniff.ingest.files.discover import SourceFile

ENVIRONMENT = (
    *locations.ENVIRONMENT, "HOME", "USERPROFILE", "WSL_DISTRO_NAME", "TZ", "COLUMNS", "LINES",
    "NO_COLOR", "FORCE_COLOR", "TERM", "LANG", "LC_ALL", "SNIFF_SHARED_SAMPLES",
)  # fmt: skip
"""Environment variables that can change what a command prints."""
ANSWERS_FOLDER = "answers"
KEEP = 64
"""Answers kept at most; the least recently written go first."""


def answers_folder() -> Path | None:
    """Where answers are kept (in the user cache folder); None when caching is disabled."""
    folder = cache_folder()
    return None if folder is None else folder / ANSWERS_FOLDER


UNKEYED = frozenset({"no_progress"})
"""Options that change nothing a command writes (progress is drawn on the terminal only)."""


def replayed(command: str, *, writes: str | None = None) -> Callable[[Command], Command]:
    """Make the CLI command `command` replay its last answer (see `remembered`).

    `writes`: the name of its option giving the file it writes, if it can write one.
    A run on a Dask cluster is always run: the user asked for that cluster's work.
    """

    def decorate(body: Command) -> Command:
        @wraps(body)
        def run(**options: Any) -> None:
            if options.get("dask"):
                body(**options)
                return
            keyed = {name: value for name, value in options.items() if name not in UNKEYED}
            target = options.get(writes) if writes else None

            def listing(files: list[SourceFile] | None) -> None:
                token = _listed.set(files)
                try:
                    body(**options)
                finally:
                    _listed.reset(token)

            remembered(
                command, keyed, options.get("paths"), listing,
                writes=None if target is None or str(target) == "-" else Path(target),
            )  # fmt: skip

        return run

    return decorate


Command = Callable[..., None]
_listed: ContextVar[list[SourceFile] | None] = ContextVar("listed", default=None)


def listed() -> list[SourceFile] | None:
    """The log files under the running command's paths, as its answer's key listed them (so
    the command reads exactly those, listed once); None outside `replayed` or with no key."""
    return _listed.get()


def remembered(
    command: str,
    options: dict[str, Any],
    paths: list[Path] | None,
    run: Callable[[list[SourceFile] | None], None],
    *,
    writes: Path | None = None,
) -> None:
    """Run `run(files)` (which prints `command`'s output) or replay the answer it gave last
    time.

    `options` are all of the command's options; `paths` the logs it reads (None: the usual
    places); `writes` the file the command writes, if any. `run` gets the files the key was
    made from (so it reads exactly those, listed once), or None when no key was made: output
    to a terminal, `--no-index` or `--verbose` asking for a fresh read, or anything failing on
    the way to a key.
    """
    folder = answers_folder()
    to_terminal = sys.stdout.isatty() and writes is None
    if (
        folder is None or to_terminal or options.get("no_index") or options.get("verbose")
        or (writes is not None and not _regular_or_absent(writes))
    ):  # fmt: skip
        run(None)
        return
    try:
        key, settled, files = answer_key(command, options, paths)
    except Exception:  # an unreadable path or similar: the command itself will say so
        run(None)
        return
    stored = folder / f"{key}.json"
    answer = _kept(stored)
    if answer is not None and (writes is None) == (answer.file is None):
        if writes is not None and answer.file is not None:
            from sniff.atomic_write import write_whole

            write_whole(writes, answer.file.encode("utf-8"))
        sys.stdout.write(answer.stdout)
        sys.stderr.write(answer.stderr)
        return
    if not settled:
        run(files)
        return
    with _captured() as (out_copy, err_copy):
        run(files)  # an exception (a user error, an exit) leaves no answer behind
    try:  # only a regular file is read back: a FIFO put in its place would wait for ever
        written = None if writes is None else read_regular(writes, KEPT_FILE_BYTES).decode()
    except (OSError, ValueError):
        return
    _store(folder, stored, _Answer(out_copy.getvalue(), err_copy.getvalue(), written))


def _regular_or_absent(path: Path) -> bool:
    """Whether `path` is a regular file or nothing: a pipe or a device is written, never kept
    nor read back (reading a pipe would wait for a writer that never comes)."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False


class _Answer(NamedTuple):
    stdout: str
    stderr: str
    file: str | None = None
    """The text of the file the command wrote, if it wrote one."""


def _kept(stored: Path) -> _Answer | None:
    """The answer kept at `stored`; None when there is none, or what is there is no answer
    (damaged, or written by other code): the command then runs, and keeps its answer anew.

    Why the standard library's json: this is the whole of a replayed run's reading, and a
    decoding library's import would cost more than the answer's few kilobytes.
    """
    try:
        data = json.loads(read_regular(stored, KEPT_FILE_BYTES))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    out, err, file = data.get("stdout"), data.get("stderr"), data.get("file")
    if not (isinstance(out, str) and isinstance(err, str) and isinstance(file, str | None)):
        return None
    return _Answer(out, err, file)


def answer_key(
    command: str, options: dict[str, Any], paths: list[Path] | None
) -> tuple[str, bool, list[SourceFile]]:
    """The digest of everything `command`'s output depends on (see the module docstring),
    whether every log file has settled (none was modified in the last `discover.RACY_NS`), and the
    log files listed for it."""
    from sniff.ingest.files.discover import RACY_NS, expand, root_name, roots_for

    roots, sample = roots_for(paths)
    recent = time.time_ns() - RACY_NS
    files = expand(roots)
    settled = all(file.mtime_ns < recent for file in files)
    pricing = options.get("pricing")
    key = identity(
        "answer", command, sorted((name, str(value)) for name, value in options.items()),
        os.getcwd(), [(name, os.environ.get(name)) for name in ENVIRONMENT],
        # the zone file a link names (realpath never raises: a missing file is its own name)
        time.strftime("%Y-%m-%d %z"), os.path.realpath("/etc/localtime"),
        [root_name(root) for root in roots], sample,
        [(file.path, file.identity, file.problem) for file in files],
        None if pricing is None else file_identity(Path(pricing)), price_data_identity(),
    )  # fmt: skip
    return key, settled, files


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Copy what is written to stdout and stderr while still writing it through."""
    out, err = io.StringIO(), io.StringIO()
    real_out, real_err = sys.stdout, sys.stderr
    # stderr stays what it is to `cli.progress`, which draws on the terminal, never into it
    sys.stdout, sys.stderr = _Tee(real_out, out), _Tee(real_err, err, terminal=real_err.isatty())
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = real_out, real_err


class _Tee(io.TextIOBase):
    def __init__(self, real: Any, copy: io.StringIO, *, terminal: bool = False) -> None:
        self.real, self.copy, self.terminal = real, copy, terminal

    def write(self, text: str) -> int:
        self.copy.write(text)
        return int(self.real.write(text))

    def flush(self) -> None:
        self.real.flush()

    def isatty(self) -> bool:
        return self.terminal

    def fileno(self) -> int:
        return int(self.real.fileno())


def _store(folder: Path, path: Path, answer: _Answer) -> None:
    from sniff.atomic_write import replace

    data = json.dumps(answer._asdict()).encode("utf-8")
    if len(data) > KEPT_FILE_BYTES:
        return  # it would never be read back (`_kept`)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # whole or not at all, even with runs side by side
        replace(path, data)
        kept = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in kept[KEEP:]:
            old.unlink(missing_ok=True)
    except OSError:
        pass
