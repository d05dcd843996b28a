"""User errors are one line on stderr and exit code 2, never "unexpected ... please report this".

Each fault is injected honestly: a read-only file or folder is made read-only for real where
the tests run as a user; as root (for whom modes do not bind) the system calls are made to
answer as they do for a user, or as on a read-only file system. The `--dask` faults use real
servers on the loopback interface, and "no network" is a real network namespace where the
system allows one. Each test also checks that nothing good was lost: the file, the index, the
totals of a valid run.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import socketserver
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff import atomic_write
from sniff.cli import app

REPO = Path(__file__).resolve().parents[2]
SAMPLE_LOGS = REPO / "sample_logs"
BAD_PROMPTS = SAMPLE_LOGS / "prompts" / "bad"
FIXABLE = ("SN001-volatile-system.json", "SN014-dynamic-before-static.md")
AS_ROOT = os.geteuid() == 0
DEADLINE = 10.0
"""Seconds within which a wrong `--dask` address must fail, start-up included."""


def invoke(*args: str | Path) -> Any:
    return CliRunner().invoke(app, [str(arg) for arg in args])


def one_line_error(result: Any) -> str:
    """The error's line, after checking it is all there is, with exit code 2."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sniff: error: "), result.stderr
    assert "unexpected" not in lines[0] and "please report" not in lines[0]
    line: str = lines[0]
    return line


def sniff(*args: str, timeout: float = 60, **options: Any) -> subprocess.CompletedProcess[str]:
    """The console script in a child process (its exit code and streams are the real ones)."""
    return subprocess.run(
        [sys.executable, "-m", "sniff", *args],
        capture_output=True, text=True, timeout=timeout, cwd=REPO, **options,
    )  # fmt: skip


# --- lint --fix -------------------------------------------------------------------------------


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    """Copies of two prompt files --fix rewrites."""
    folder = tmp_path / "prompts"
    folder.mkdir()
    for name in FIXABLE:
        shutil.copy(BAD_PROMPTS / name, folder / name)
    return folder


def answer_as_a_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """As root, `os.access` answers from the mode bits as it does for the file's owner."""
    if not AS_ROOT:
        return
    real = os.access

    def access(path: Any, mode: int, **kwargs: Any) -> bool:
        if mode & os.W_OK and not os.stat(path).st_mode & stat.S_IWUSR:
            return False
        return real(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of `folder`: its bytes and mode."""
    return {p.name: (p.read_bytes(), p.stat().st_mode) for p in sorted(folder.iterdir())}


def test_fix_refuses_a_read_only_file_and_touches_no_file(
    prompts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = prompts / FIXABLE[0]
    locked.chmod(0o444)
    answer_as_a_user(monkeypatch)
    before = snapshot(prompts)
    line = one_line_error(invoke("lint", "--fix", *(prompts / name for name in FIXABLE)))
    assert line == f"sniff: error: --fix cannot rewrite {locked}: it is read-only"
    assert snapshot(prompts) == before  # the writable one is not rewritten either


def test_fix_in_a_read_only_folder_is_one_line(
    prompts: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writable file in a folder that is not: the new file cannot be made beside it."""
    before = snapshot(prompts)
    prompts.chmod(0o555)
    answer_as_a_user(monkeypatch)
    try:
        line = one_line_error(invoke("lint", "--fix", prompts / FIXABLE[0]))
    finally:
        prompts.chmod(0o755)
    assert (
        line
        == f"sniff: error: --fix cannot rewrite {prompts / FIXABLE[0]}: its folder is read-only"
    )
    assert snapshot(prompts) == before


@pytest.mark.parametrize(
    ("module", "call", "code"),
    [
        (atomic_write, "open", errno.EROFS),  # the temporary file cannot be created
        (os, "fsync", errno.ENOSPC),
        (os, "replace", errno.ENOSPC),
    ],
    ids=["read-only-file-system", "full-disk-on-sync", "full-disk-on-rename"],
)
def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(
    prompts: Path, monkeypatch: pytest.MonkeyPatch, module: Any, call: str, code: int
) -> None:
    """The write itself fails (the checks passed): the old file stays whole."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError(code, os.strerror(code))

    before = snapshot(prompts)
    monkeypatch.setattr(module, call, refuse, raising=False)
    target = prompts / FIXABLE[0]
    line = one_line_error(invoke("lint", "--fix", target))
    assert line == f"sniff: error: --fix cannot rewrite {target}: {os.strerror(code)}"
    assert snapshot(prompts) == before  # no temporary file left beside it


def test_fix_keeps_the_mode_and_rewrites_through_a_link(prompts: Path, tmp_path: Path) -> None:
    target = prompts / FIXABLE[0]
    target.chmod(0o640)
    link = tmp_path / "linked.json"
    link.symlink_to(target)
    result = invoke("lint", "--fix", link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and link.resolve() == target
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_bytes() != (BAD_PROMPTS / FIXABLE[0]).read_bytes()
    assert sorted(p.name for p in prompts.iterdir()) == sorted(FIXABLE)


# --- --pricing --------------------------------------------------------------------------------

MODEL = "claude-sonnet-4-20250514"


def pricing_file(folder: Path, value: str) -> Path:
    path = folder / "prices.toml"
    path.write_text(f'[models."{MODEL}"]\ninput_mtok = 3.0\noutput_mtok = {value}\n')
    return path


@pytest.mark.parametrize(
    "value", ["nan", "inf", "-inf", "1e308", "10001", "-1", '"cheap"', "true", "[1]"]
)
def test_an_implausible_price_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, value: str
) -> None:
    path = pricing_file(tmp_path, value)
    line = one_line_error(invoke("scan", "--json", "--pricing", path, SAMPLE_LOGS))
    assert line.startswith(f"sniff: error: {path}: {MODEL}.output_mtok must be ")
    assert "at most 10,000" in line


def test_a_plausible_price_still_prices_and_counts_every_token(tmp_path: Path) -> None:
    plain = json.loads(invoke("scan", "--json", SAMPLE_LOGS).stdout)["totals"]
    result = invoke("scan", "--json", "--pricing", pricing_file(tmp_path, "10000"), SAMPLE_LOGS)
    assert result.exit_code == 0, result.output
    priced = json.loads(result.stdout)["totals"]
    assert {k: v for k, v in priced.items() if "token" in k} == {
        k: v for k, v in plain.items() if "token" in k
    }
    assert priced["cost_usd"] > plain["cost_usd"]  # output at $10,000 per million tokens


# --- --dask -----------------------------------------------------------------------------------


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


Serve = Callable[[Callable[[Any], None]], str]
"""Starts a TCP server on the loopback interface that answers with `handle(socket)`; its
address."""


@pytest.fixture
def serving() -> Iterator[Serve]:
    """Starts TCP servers on the loopback interface; each answers with `handle(socket)`."""
    servers: list[Server] = []

    def serve(handle: Callable[[Any], None]) -> str:
        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                handle(self.request)

        server = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"127.0.0.1:{server.server_address[1]}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


def http_server(connection: Any) -> None:
    """What a web server says to Dask's handshake: bytes Dask reads as an exabyte frame."""
    connection.recv(1024)
    connection.sendall(b"HTTP/1.0 426 Upgrade Required\r\nconnection: close\r\n\r\n")


def silent_server(connection: Any) -> None:
    """Accepts, then never answers."""
    connection.recv(1024)
    time.sleep(3 * DEADLINE)


def closed_port(serve: Serve) -> str:
    """A loopback port where nothing listens any more."""
    with socketserver.TCPServer(("127.0.0.1", 0), socketserver.BaseRequestHandler) as server:
        port = server.server_address[1]
    return f"127.0.0.1:{port}"


WRONG_ADDRESSES: list[tuple[str, Callable[[Serve], str], str]] = [
    ("bogus", lambda serve: "bogus://x", "unknown address scheme 'bogus'"),
    ("no-port", lambda serve: "127.0.0.1:port", "invalid literal"),
    ("web-server", lambda serve: serve(http_server), "answered, but not as a Dask scheduler"),
    ("silent-server", lambda serve: serve(silent_server), "no Dask scheduler answered at"),
    ("closed-port", closed_port, "Connection refused"),
    # no route here, a firewall, or a proxy that answers: each is one line, in time
    ("non-routable", lambda serve: "10.255.255.1:8786", ""),
]


@pytest.mark.parametrize(
    ("address_of", "said"),
    [case[1:] for case in WRONG_ADDRESSES],
    ids=[case[0] for case in WRONG_ADDRESSES],
)
def test_a_wrong_dask_address_fails_in_seconds_with_one_line(
    serving: Serve, address_of: Callable[[Serve], str], said: str
) -> None:
    pytest.importorskip("distributed")
    address = address_of(serving)
    started = time.monotonic()
    result = sniff("scan", "--dask", address, str(SAMPLE_LOGS), timeout=3 * DEADLINE)
    took = time.monotonic() - started
    assert result.returncode == 2, result.stderr
    assert took < DEADLINE, took
    [line] = result.stderr.splitlines()
    assert line.startswith("sniff: error: ") and said in line and "please report" not in line
    assert result.stdout == ""


def test_a_dask_worker_is_not_taken_for_a_scheduler() -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, processes=False, protocol="tcp://", dashboard_address=None
    ) as cluster:
        [worker] = cluster.scheduler_info["workers"]
        result = sniff("scan", "--dask", worker, str(SAMPLE_LOGS), timeout=3 * DEADLINE)
    assert result.returncode == 2, result.stderr
    said = f"sniff: error: {worker} is not a Dask scheduler: it answered as a Dask Worker\n"
    assert result.stderr == said


NO_ROUTE = '''\
"""Loaded at interpreter start-up: a machine with {what}."""
import errno, os, socket

def _unreachable(*args, **kwargs):
    raise OSError(errno.ENETUNREACH, os.strerror(errno.ENETUNREACH))

def _loopback_only(self, address, *rest):
    if {loopback} and isinstance(address, tuple) and address[0] in ("127.0.0.1", "localhost"):
        return _connect(self, address, *rest)
    _unreachable()

_connect = socket.socket.connect
socket.socket.connect = _loopback_only
socket.socket.connect_ex = _loopback_only
'''


@pytest.mark.parametrize("loopback", [True, False], ids=["loopback-only", "no-loopback"])
def test_a_local_cluster_needs_no_network(tmp_path: Path, loopback: bool) -> None:
    """Every connection beyond 127.0.0.1 fails (and, without loopback, that one too)."""
    pytest.importorskip("distributed")
    (tmp_path / "sitecustomize.py").write_text(
        NO_ROUTE.format(what="loopback only" if loopback else "no network", loopback=loopback)
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)])}
    local = sniff("scan", "--json", "--no-index", str(SAMPLE_LOGS))
    started = time.monotonic()
    clustered = sniff("scan", "--json", "--dask", "local:2", str(SAMPLE_LOGS), env=env,
                      timeout=3 * DEADLINE)  # fmt: skip
    took = time.monotonic() - started
    assert clustered.returncode == 0, clustered.stderr
    assert clustered.stdout == local.stdout
    note = "" if loopback else "sniff: note: the loopback interface carries no TCP"
    # sniff's own lines only: on a loaded machine Dask logs its event loop's pauses there too
    said = [line for line in clustered.stderr.splitlines() if line.startswith("sniff:")]
    assert clustered.stderr.startswith(note) and len(said) == int(not loopback), clustered.stderr
    assert took < DEADLINE, took


def network_namespace(up: bool) -> list[str]:
    """The command prefix running a child in a network namespace of its own, or a skip."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare here")
    setup = "ip link set lo up && " if up else ""
    if up and shutil.which("ip") is None:
        pytest.skip("no ip command here")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("this system gives no network namespace to this user")
    return ["unshare", "-n", "sh", "-c", f'{setup}exec "$@"', "sh"]


@pytest.mark.parametrize("up", [True, False], ids=["loopback-up", "loopback-down"])
def test_a_local_cluster_runs_in_a_network_namespace_of_its_own(up: bool) -> None:
    """A real machine with no network: a namespace holding only a loopback interface."""
    pytest.importorskip("distributed")
    prefix = network_namespace(up)
    local = sniff("scan", "--json", "--no-index", str(SAMPLE_LOGS))
    started = time.monotonic()
    command = [*prefix, sys.executable, "-m", "sniff", "scan", "--json", "--dask", "local:2",
               str(SAMPLE_LOGS)]  # fmt: skip
    clustered = subprocess.run(command, capture_output=True, text=True, cwd=REPO,
                               timeout=3 * DEADLINE)  # fmt: skip
    assert clustered.returncode == 0, clustered.stderr
    assert clustered.stdout == local.stdout
    assert time.monotonic() - started < DEADLINE


# --- index --clear ----------------------------------------------------------------------------


@pytest.fixture
def indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder holding an index and a kept answer."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("SNIFF_CACHE_DIR", str(cache))
    assert invoke("scan", SAMPLE_LOGS).exit_code == 0
    assert (cache / "index.sqlite3").exists()
    return cache


def test_clear_on_a_read_only_cache_says_it_failed(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = indexed / "index.sqlite3"
    kept, listing = index.read_bytes(), invoke("index").stdout
    if AS_ROOT:
        real = Path.unlink

        def unlink(self: Path, missing_ok: bool = False) -> None:
            if self.parent == indexed:
                raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
            real(self, missing_ok)

        monkeypatch.setattr(Path, "unlink", unlink)
    indexed.chmod(0o555)
    try:
        line = one_line_error(invoke("index", "--clear"))
    finally:
        indexed.chmod(0o755)
    assert line.startswith(f"sniff: error: --clear failed: cannot delete {index}: ")
    assert index.read_bytes() == kept
    assert invoke("index").stdout == listing  # still whole and usable


def test_clear_reports_kept_answers_it_cannot_delete(
    indexed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = indexed / "answers"
    assert any(answers.iterdir())

    def refuse(path: Any, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(shutil, "rmtree", refuse)
    line = one_line_error(invoke("index", "--clear"))
    assert line == f"sniff: error: --clear failed: cannot delete {answers}: Permission denied"


def test_clear_on_a_writable_cache_empties_it(indexed: Path) -> None:
    result = invoke("index", "--clear")
    assert result.exit_code == 0, result.output
    assert not (indexed / "index.sqlite3").exists() and not (indexed / "answers").exists()


# --- a closed pipe ----------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["scan"], ["scan", "--json"], ["cache", "--breaks"]])
def test_a_reader_that_leaves_early_is_no_error(args: list[str]) -> None:
    """`sniff scan | head -1`: exit 0 and nothing on stderr.

    The pipe holds one page, less than the output, so sniff is still writing when the reader
    closes it: the case is certain, not a race."""
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
    child = subprocess.Popen(
        [sys.executable, "-m", "sniff", *args, str(SAMPLE_LOGS)],
        stdout=write, stderr=subprocess.PIPE, cwd=REPO,
    )  # fmt: skip
    os.close(write)
    with os.fdopen(read, "rb") as output:
        first = output.readline()
    assert child.wait(timeout=60) == 0
    assert child.stderr is not None and child.stderr.read() == b""
    assert first.strip()


def test_a_store_without_its_client_or_an_export_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SNIFF_CONFIG_DIR", str(tmp_path / "config"))
    line = one_line_error(invoke("scan", "unknownstore://bucket/team"))
    assert "unknownstore://" in line
    line = one_line_error(invoke("watch", "s3://bucket/team"))
    assert "watch follows logs on this machine, not s3://bucket/team" in line
    memory = "memory://sniff-empty-team"  # fsspec's store in this process: no network
    assert "holds no sniff export" in one_line_error(invoke("scan", memory))
