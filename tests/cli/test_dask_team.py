"""--dask on a team export: a real `dask scheduler` and two `dask worker` processes read each
machine's Parquet export and print, byte for byte, what a local run prints.

Three machines export into one team folder, and the same three into a bucket of a moto S3
server: m1 the sample Claude Code logs, m2 the sample Codex ones, m3 the sample Gemini CLI ones
and a copy of one of m1's Claude Code sessions (a session synced onto two machines, counted
once). Every command runs in its own process, as a user runs it: fsspec reads its
`FSSPEC_S3_ENDPOINT_URL` when it is imported, and the workers, started before any command, must
find the store's endpoint and keys in their own environment.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLE_LOGS

distributed = pytest.importorskip("distributed")

BIN = Path(sys.executable).parent
MACHINES = ("m1", "m2", "m3")
SHARED_SESSION = Path("-home-dana-src-webshop") / "515c8333-3a04-4486-ba63-376f81227b4f.jsonl"
"""The Claude Code session m1 and m3 both hold (its folder synced onto both machines)."""
COMMANDS = [
    ["scan", "--json", "--tz", "UTC"],
    ["sessions", "--json", "--tz", "UTC"],
    ["sessions", "--by", "machine", "--json"],
    ["daily", "--json", "--tz", "UTC"],
    ["monthly", "--json", "--tz", "UTC"],
    ["weekly", "--json", "--tz", "UTC"],
    ["cache", "--breaks", "--json", "--tz", "UTC"],
    ["report", "-f", "json", "--tz", "UTC"],
]
BUCKET = "team-bucket"
S3_KEYS = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
           "AWS_DEFAULT_REGION": "us-east-1"}  # fmt: skip
STARTUP_SECONDS = 60
RUN_SECONDS = 120


@dataclass(frozen=True)
class Team:
    """Where a team export is (a folder or a URL) and the environment that reads it."""

    dest: str
    env: dict[str, str]


def tool(name: str) -> str:
    """A console script of this environment (beside its Python), else one on PATH."""
    found = BIN / name
    if found.exists():
        return str(found)
    on_path = shutil.which(name)
    if on_path is None:
        pytest.skip(f"{name} is not installed")
    return on_path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def started(command: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A server process in a session of its own (so that it and its children end together),
    its output kept in `log` (never a pipe nobody reads)."""
    with log.open("wb") as out:
        return subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=log.parent,
            start_new_session=True,
        )  # fmt: skip


def stop(process: subprocess.Popen[bytes]) -> None:
    """End a process started by `started`, and its children, by its own process group."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
    with contextlib.suppress(ProcessLookupError):  # a nanny's worker left behind, if any
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=15)


def wait_until(ready: object, what: str, processes: list[subprocess.Popen[bytes]]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while not ready():  # type: ignore[operator]
        for process in processes:
            assert process.poll() is None, f"{what}: {process.args} exited {process.returncode}"
        assert time.monotonic() < deadline, f"{what}: not ready in {STARTUP_SECONDS} s"
        time.sleep(0.1)


def isolated(root: Path) -> dict[str, str]:
    """The environment of every process here: its own sniff config and cache, this checkout's
    sniff."""
    for name in ("config", "cache", "home"):
        (root / name).mkdir(parents=True, exist_ok=True)
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "SNIFF_CONFIG_DIR": str(root / "config"),
            "SNIFF_CACHE_DIR": str(root / "cache"), "HOME": str(root / "home"),
            "PYTHONPATH": path, "COLUMNS": "200"}  # fmt: skip


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("dask-team")


@pytest.fixture(scope="module")
def s3_env(root: Path) -> Iterator[dict[str, str] | None]:
    """The S3 variables of a moto S3 server holding an empty bucket, or None without moto or
    s3fs (the folder's cases still run)."""
    try:
        import moto.server  # noqa: F401
        import s3fs
    except ImportError:
        yield None
        return
    port = free_port()
    server = started(
        [tool("moto_server"), "-H", "127.0.0.1", "-p", str(port)], root / "moto.log",
        isolated(root),
    )  # fmt: skip

    def listening() -> bool:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return False
        return True

    try:
        wait_until(listening, "moto_server", [server])
        endpoint = f"http://127.0.0.1:{port}"
        s3fs.S3FileSystem(endpoint_url=endpoint, key="test", secret="test").mkdir(BUCKET)
        yield {"FSSPEC_S3_ENDPOINT_URL": endpoint, **S3_KEYS}
    finally:
        stop(server)


@pytest.fixture(scope="module")
def scheduler(root: Path, s3_env: dict[str, str] | None) -> Iterator[str]:
    """The address of a `dask scheduler` with two `dask worker` processes (one thread each),
    the workers knowing the S3 server."""
    folder = root / "cluster"
    folder.mkdir()
    env = isolated(folder)
    dask = tool("dask")
    address_file = folder / "scheduler.json"
    processes = [
        started(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(address_file)],
            folder / "scheduler.log", env,
        )
    ]  # fmt: skip
    try:
        wait_until(address_file.exists, "dask scheduler", processes)
        time.sleep(0.2)  # the file is written whole, but give it the moment
        address: str = json.loads(address_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:"), address
        for number in (1, 2):
            processes.append(
                started(
                    [dask, "worker", address, "--nworkers", "1", "--nthreads", "1",
                     "--no-dashboard", "--host", "127.0.0.1",
                     "--local-directory", str(folder / f"worker{number}")],
                    folder / f"worker{number}.log", {**env, **(s3_env or {})},
                )
            )  # fmt: skip
        with distributed.Client(address, timeout=STARTUP_SECONDS) as client:
            client.wait_for_workers(2, timeout=STARTUP_SECONDS)
        yield address
    finally:
        for process in reversed(processes):  # the workers, then their scheduler
            stop(process)


def sniff(env: dict[str, str], *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sniff", *arguments, "--no-progress"], env=env, cwd=REPO,
        capture_output=True, text=True, timeout=RUN_SECONDS,
    )  # fmt: skip


def succeeded(env: dict[str, str], *arguments: str) -> str:
    done = sniff(env, *arguments)
    assert done.returncode == 0, f"sniff {' '.join(arguments)}:\n{done.stderr}"
    assert done.stderr == "", f"sniff {' '.join(arguments)} warned:\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def logs(root: Path) -> dict[str, Path]:
    """Each machine's logs: different samples, and one session on both m1 and m3."""
    m3 = root / "logs" / "m3"
    shutil.copytree(SAMPLE_LOGS / "gemini-cli" / "tmp", m3 / "gemini" / "tmp")
    copy = m3 / "claude" / "projects" / SHARED_SESSION
    copy.parent.mkdir(parents=True)
    shutil.copyfile(SAMPLE_LOGS / "claude-code" / "projects" / SHARED_SESSION, copy)
    return {
        "m1": SAMPLE_LOGS / "claude-code" / "projects",
        "m2": SAMPLE_LOGS / "codex" / "sessions",
        "m3": m3,
    }


def exported(dest: str, logs: dict[str, Path], env: dict[str, str]) -> Team:
    for machine in MACHINES:  # one after the other: m1 exports the shared session first
        succeeded(env, "export", "--no-index", str(logs[machine]), "-o", dest, "--team",
                  "--machine", machine)  # fmt: skip
    return Team(dest, env)


@pytest.fixture(scope="module")
def folder_team(root: Path, logs: dict[str, Path]) -> Team:
    return exported(str(root / "team"), logs, isolated(root / "client"))


@pytest.fixture(scope="module")
def s3_team(root: Path, logs: dict[str, Path], s3_env: dict[str, str] | None) -> Team:
    if s3_env is None:
        pytest.skip("S3 needs s3fs and moto[server]")
    return exported(f"s3://{BUCKET}/team", logs, {**isolated(root / "client"), **s3_env})


@pytest.fixture(params=["folder", "s3"])
def team(request: pytest.FixtureRequest) -> Team:
    found: Team = request.getfixturevalue(f"{request.param}_team")
    return found


def parsed_on_cluster(address: str) -> int:
    """How many `parse_batch` tasks (sniff reading files) the scheduler has finished so far."""

    def finished(dask_scheduler: object) -> int:
        prefix = dask_scheduler.task_prefixes.get("parse_batch")  # type: ignore[attr-defined]
        return 0 if prefix is None else int(prefix.state_counts["memory"])

    with distributed.Client(address, timeout=STARTUP_SECONDS) as client:
        count: int = client.run_on_scheduler(finished)
        return count


def test_the_team_is_three_machines_sharing_one_session(team: Team) -> None:
    """The case the other tests compare is the one meant: three exports, one overlap."""
    answer = json.loads(succeeded(team.env, "scan", "--json", "--no-index", team.dest))
    assert answer["source"]["files"] == 3  # one source per machine's export
    assert answer["source"]["duplicates_dropped"] > 0
    rows = json.loads(
        succeeded(team.env, "sessions", "--by", "machine", "--json", "--no-index", team.dest)
    )["rows"]
    assert sorted(row["machine"] for row in rows) == list(MACHINES)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:3]).replace("-", ""))
def test_a_cluster_run_on_a_team_prints_what_a_local_run_prints(
    team: Team, scheduler: str, command: list[str]
) -> None:
    local = succeeded(team.env, *command, "--no-index", team.dest)
    before = parsed_on_cluster(scheduler)
    done = sniff(team.env, *command, "--dask", scheduler, team.dest)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # a worker that cannot read an export only warns
    assert parsed_on_cluster(scheduler) > before, "the cluster read nothing"
    assert done.stdout == local
