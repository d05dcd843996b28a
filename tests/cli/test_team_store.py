"""`sniff export --team` into a team folder kept in object storage (`s3://bucket/team`), served
by a real moto S3 server: machines export at once, every reading command and the Python API
read the URL, a request is counted once, and an export killed at any write leaves the earlier
one whole. The acceptance tests run on a plain folder too, as the same figures must come out."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

s3fs = pytest.importorskip("s3fs", reason="s3fs is not installed (pip install 'sniff[s3]')")
pytest.importorskip("moto.server", reason="moto's S3 server is not installed (moto[server])")

from sniff.ingest.export_folders import MANIFEST, listed_in  # noqa: E402
from sniff.ingest.files import locations  # noqa: E402
from tests.cli.test_team_export import (  # noqa: E402
    CWD,
    SECRET_BRANCH,
    SECRET_PROJECT,
    SECRET_USER,
    SESSION,
    TOKENS,
    Machine,
    alice_session,
    snapshot,
)
from tests.conftest import REPO, SAMPLE_LOGS, Lines  # noqa: E402

KEY, SECRET, REGION = "testing", "testing", "us-east-1"
KINDS = ("folder", "s3")


@dataclass(frozen=True)
class Store:
    """A moto S3 server running for the module, and what reaches it."""

    endpoint: str

    @property
    def variables(self) -> dict[str, str]:
        return {
            "FSSPEC_S3_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET,
            "AWS_DEFAULT_REGION": REGION,
        }

    def files(self) -> Any:
        """A client that remembers no listing: every question goes to the server."""
        return s3fs.S3FileSystem(
            endpoint_url=self.endpoint, key=KEY, secret=SECRET, skip_instance_cache=True,
            use_listings_cache=False,
        )  # fmt: skip

    def bucket(self, versioned: bool = False) -> str:
        """A new empty bucket's name (`versioned`: every put of an object is kept)."""
        name = f"t-{uuid.uuid4().hex[:20]}"
        self.files().mkdir(name)
        if versioned:
            import boto3

            client = boto3.client(
                "s3", endpoint_url=self.endpoint, aws_access_key_id=KEY,
                aws_secret_access_key=SECRET, region_name=REGION,
            )  # fmt: skip
            client.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})
        return name

    def objects(self, url: str) -> dict[str, tuple[str, int, str]]:
        """Every object under `url`: its ETag, size and time of last put."""
        found = self.files().find(url.removeprefix("s3://"), detail=True)
        return {
            name: (info["ETag"], info["size"], str(info["LastModified"]))
            for name, info in found.items()
        }

    def versions(self, bucket: str) -> list[tuple[str, str]]:
        """Every version of every object of a versioned bucket (each put adds one)."""
        import boto3

        client = boto3.client(
            "s3", endpoint_url=self.endpoint, aws_access_key_id=KEY,
            aws_secret_access_key=SECRET, region_name=REGION,
        )  # fmt: skip
        answer = client.list_object_versions(Bucket=bucket)
        return sorted(
            (each["Key"], each["VersionId"])
            for each in [*answer.get("Versions", []), *answer.get("DeleteMarkers", [])]
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def moto_command() -> list[str]:
    beside = Path(sys.executable).parent / "moto_server"
    script = str(beside) if beside.exists() else shutil.which("moto_server")
    if script is None:
        pytest.skip("moto_server (the console script of moto[server]) is not on the PATH")
    return [script]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    """A real S3 server (moto) on a free port of 127.0.0.1, killed after the module."""
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    port = free_port()
    with log.open("wb") as output:
        server = subprocess.Popen(
            [*moto_command(), "-H", "127.0.0.1", "-p", str(port)],
            stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    endpoint = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, f"moto_server ended: {log.read_text()}"
            try:
                with urllib.request.urlopen(endpoint, timeout=2):
                    break
            except urllib.error.HTTPError:
                break  # it answers, if only to refuse
            except OSError:
                assert time.monotonic() < deadline, f"moto_server never answered: {log.read_text()}"
                time.sleep(0.1)
        yield Store(endpoint)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


@pytest.fixture
def bucket(store: Store) -> str:
    """A fresh bucket for one test."""
    return store.bucket()


@pytest.fixture
def in_process(store: Store, monkeypatch: pytest.MonkeyPatch) -> Store:
    """This process reads the store: its variables set, and fsspec's configuration too (fsspec
    reads its `FSSPEC_*` variables once, when it is first imported)."""
    import fsspec.config

    for name, value in store.variables.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setitem(fsspec.config.conf, "s3", {"endpoint_url": store.endpoint})
    return store


def environment(machine: Machine, store: Store, **changed: str) -> dict[str, str]:
    """A machine's environment (`Machine.env`) reaching the store, and no other agent's logs or
    store settings than its own."""
    own = machine.env
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in locations.ENVIRONMENT and not name.startswith(("AWS_", "FSSPEC_"))
    }
    for name in ("HOME", "SNIFF_CONFIG_DIR", "SNIFF_CACHE_DIR", "SNIFF_DATA_DIR"):
        env[name] = own[name]
    return {**env, **store.variables, **changed}


def sniff(machine: Machine, store: Store, *arguments: str, **changed: str) -> subprocess.Popen[str]:
    machine.root.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "sniff", *arguments, "--no-progress"],
        env=environment(machine, store, **changed), cwd=machine.root, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def run(machine: Machine, store: Store, *arguments: str) -> str:
    process = sniff(machine, store, *arguments)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert "Traceback" not in err, err
    return out


def scanned(machine: Machine, store: Store, *paths: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(
        run(machine, store, "scan", "--json", "--tz", "UTC", *paths)
    )
    return answer


def export_all(store: Store, dest: str, found: list[Machine], *extra: str) -> None:
    """Every machine exports to `dest` at once."""
    started = [
        sniff(m, store, "export", "-o", dest, "--team", "--machine", m.name, *extra) for m in found
    ]
    errors = [(process.communicate(timeout=300)[1], process.returncode) for process in started]
    for err, code in errors:
        assert code == 0, err


def assert_same_totals(whole: dict[str, Any], own: list[dict[str, Any]]) -> None:
    """`whole` is the sum of `own`, to the token and the cent."""
    for name in TOKENS:
        assert whole[name] == sum(totals[name] for totals in own), name
    assert whole["cost_usd"] == pytest.approx(sum(t["cost_usd"] for t in own), abs=5e-6)


def destination(kind: str, store: Store, folder: Path) -> str:
    """A new team folder: a folder on disk, or a folder of a new bucket."""
    return str(folder / "DEST") if kind == "folder" else f"s3://{store.bucket()}/team"


def contents(kind: str, store: Store, dest: str) -> dict[str, Any]:
    """What a team folder holds, to tell whether anything was written."""
    if kind == "folder":
        return dict(snapshot(Path(dest)))
    return {"objects": store.objects(dest), "versions": store.versions(dest[5:].split("/")[0])}


@dataclass(frozen=True)
class Homes:
    """The module's machines and each one's own `scan --json` totals."""

    root: Path
    machines: list[Machine]
    own: dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory, store: Store) -> Homes:
    """a: a transcript of a named user, project and branch; b: the sample Claude Code logs;
    c: the sample Codex ones; d: a's transcript (copied onto it) and the Codex logs."""
    root = tmp_path_factory.mktemp("homes")
    a, b, c, d = (Machine(name, root / name) for name in "abcd")
    alice_session(a.home)
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", b.home / ".claude" / "projects")
    shutil.copytree(SAMPLE_LOGS / "codex" / "sessions", c.home / ".codex" / "sessions")
    alice_session(d.home)
    shutil.copytree(SAMPLE_LOGS / "codex" / "sessions", d.home / ".codex" / "sessions")
    found = [a, b, c, d]
    started = {m.name: sniff(m, store, "scan", "--json", "--tz", "UTC") for m in found}
    own = {}
    for name, process in started.items():
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        own[name] = json.loads(out)["totals"]
    assert all(totals["requests"] > 0 for totals in own.values()), own
    return Homes(root, found, own)


@pytest.fixture(scope="module", params=KINDS)
def team(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, store: Store,
    homes: Homes,
) -> tuple[str, str]:  # fmt: skip
    """(kind, team folder) into which machines a, b and c exported at once."""
    kind: str = request.param
    if kind == "folder":
        dest = str(tmp_path_factory.mktemp("team") / "DEST")
    else:
        dest = f"s3://{store.bucket(versioned=True)}/team"
    export_all(store, dest, homes.machines[:3])
    return kind, dest


def test_the_team_folder_sums_the_machines_to_the_token_and_the_cent(
    team: tuple[str, str], store: Store, homes: Homes
) -> None:
    kind, dest = team
    whole = scanned(homes.machines[0], store, dest)
    assert_same_totals(whole["totals"], [homes.own[name] for name in "abc"])
    assert whole["source"]["duplicates_dropped"] == 0
    assert whole["source"]["files"] == 3  # one source per machine's export
    assert whole["warnings"]["unreadable_files"] == []
    if kind == "s3":
        names = {key.split("/")[3] for key in store.objects(dest)}
        assert names == {"a", "b", "c"}
        bucket = dest[5:].split("/")[0]
        record = json.loads(store.files().cat_file(f"{bucket}/team/machines/a/machine.json"))
    else:
        assert sorted(p.name for p in (Path(dest) / "machines").iterdir()) == ["a", "b", "c"]
        record = json.loads((Path(dest) / "machines" / "a" / "machine.json").read_text())
    assert record["machine"] == "a" and record["first_export"] == record["last_export"]


def test_exporting_a_machine_again_changes_nothing(
    team: tuple[str, str], store: Store, homes: Homes
) -> None:
    kind, dest = team
    before = contents(kind, store, dest)
    assert before
    machine = homes.machines[1]
    run(machine, store, "export", "-o", dest, "--machine", machine.name)  # --team: implied
    assert contents(kind, store, dest) == before


def test_sessions_by_machine_gives_each_machines_totals(
    team: tuple[str, str], store: Store, homes: Homes
) -> None:
    _, dest = team
    answer = json.loads(run(homes.machines[0], store, "sessions", "--by", "machine", "--json",
                            "--tz", "UTC", dest))  # fmt: skip
    rows = {row["machine"]: row for row in answer["rows"]}
    assert set(rows) == {"a", "b", "c"}
    for name in "abc":
        own = homes.own[name]
        assert rows[name]["requests"] == own["requests"], name
        assert rows[name]["total_tokens"] == own["total_tokens"], name
        assert rows[name]["cost_usd"] == pytest.approx(own["cost_usd"], abs=5e-6), name


@pytest.mark.parametrize("kind", KINDS)
def test_a_session_on_two_machines_counts_once(
    kind: str, tmp_path: Path, store: Store, homes: Homes
) -> None:
    a, d = homes.machines[0], homes.machines[3]  # d holds a's transcript too
    dest = destination(kind, store, tmp_path)
    run(d, store, "export", "-o", dest, "--team", "--machine", "d")
    run(a, store, "export", "-o", dest, "--team", "--machine", "a")
    whole = scanned(a, store, dest)
    assert homes.own["a"]["requests"] == 2
    assert whole["source"]["duplicates_dropped"] == homes.own["a"]["requests"]
    assert_same_totals(whole["totals"], [homes.own["d"]])
    rows = json.loads(run(a, store, "sessions", "--by", "machine", "--json", dest))["rows"]
    assert [row["machine"] for row in rows] == ["d"]  # d exported first


def test_a_redacted_export_to_a_store_holds_no_name(
    tmp_path: Path, store: Store, bucket: str, homes: Homes
) -> None:
    salt = tmp_path / "salt"
    salt.write_text("team secret\n")
    dest = f"s3://{bucket}/team"
    export_all(store, dest, homes.machines[:3], "--redact", "--salt-file", str(salt), "--user",
               SECRET_USER)  # fmt: skip
    secrets = [SECRET_USER, SECRET_PROJECT, SECRET_BRANCH, "webshop", "agent-habits", "/home/",
               str(homes.root), str(tmp_path), "team secret"]  # fmt: skip
    files = store.files()
    names = sorted(files.find(bucket))
    assert any(name.endswith(".parquet") for name in names)
    assert {name.split("/")[3] for name in names} == {"a", "b", "c"}
    for name, data in files.cat(names).items():
        assert [s for s in secrets if s.encode() in data] == [], name
    a = json.loads(files.cat_file(f"{bucket}/team/machines/a/machine.json"))
    c = json.loads(files.cat_file(f"{bucket}/team/machines/c/machine.json"))
    assert a["user"] == c["user"] and a["user"].startswith("user-")  # one salt, one pseudonym
    whole = scanned(homes.machines[0], store, dest)
    assert_same_totals(whole["totals"], [homes.own[name] for name in "abc"])
    projects = {row["project"] for row in whole["by_project"]}
    assert projects and all(project.startswith("project-") for project in projects), projects


def test_the_python_api_reads_a_store_as_the_command_line_does(
    team: tuple[str, str], store: Store, homes: Homes, in_process: Store, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from sniff import Workspace

    _, dest = team
    monkeypatch.setenv("SNIFF_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SNIFF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    totals = Workspace(dest, tz="UTC").summary()["totals"]
    assert totals == scanned(homes.machines[0], store, dest)["totals"]
    assert totals["requests"] == sum(homes.own[name]["requests"] for name in "abc")


KILLER = """
import os, signal, sys

import sniff.ingest.files.remote as remote

when, calls = sys.argv[1], [0]
real_write, real_remove = remote.write, remote.remove


def write(url, *rest, **named):
    calls[0] += 1
    if when == f"write:{calls[0]}" or (when == "manifest" and url.endswith("/sniff-export.json")) \
            or (when == "record" and url.endswith("/machine.json")):
        os.kill(os.getpid(), signal.SIGKILL)
    return real_write(url, *rest, **named)


def remove(*given, **named):
    if when == "remove":
        os.kill(os.getpid(), signal.SIGKILL)
    return real_remove(*given, **named)


remote.write, remote.remove = write, remove
sys.argv = ["sniff", *sys.argv[2:]]
from sniff.cli import main

main()
"""
"""Runs `sniff ARGS...` killed with SIGKILL just before: its N-th write of an object
(`write:N`), its write of a manifest (`manifest`) or of `machine.json` (`record`, after the
manifest), or its deletion of the objects no manifest lists (`remove`)."""


@dataclass(frozen=True)
class Earlier:
    """A store where b (the Codex logs) then a (a's transcript) exported; a's logs, to copy."""

    url: str
    a: Machine
    b: Machine
    grown: dict[str, Any]
    """The own totals of a once the sample Claude Code logs were added to it."""


def grow(home: Path) -> None:
    """More logs in a's home: a third request in a's session (so its day's files change) and
    the sample Claude Code logs."""
    extra = {"session": SESSION, "cwd": CWD, "gitBranch": SECRET_BRANCH}
    transcript = home / ".claude" / "projects" / CWD.replace("/", "-") / f"{SESSION}.jsonl"
    with transcript.open("a") as handle:
        for line in (
            Lines.user("u3", "a2", "2026-03-01T11:00:00.000Z", **extra),
            Lines.assistant("msg_a3", "a3", "u3", "2026-03-01T11:00:05.000Z",
                            Lines.usage(14, 2300, 100, 60), **extra),
        ):  # fmt: skip
            handle.write(json.dumps(line) + "\n")
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", home / ".claude" / "projects",
                    dirs_exist_ok=True)  # fmt: skip


@pytest.fixture(scope="module")
def earlier(tmp_path_factory: pytest.TempPathFactory, store: Store, homes: Homes) -> Earlier:
    root = tmp_path_factory.mktemp("earlier")
    a, b = Machine("a", root / "a"), Machine("b", root / "b")
    alice_session(a.home)
    shutil.copytree(SAMPLE_LOGS / "codex" / "sessions", b.home / ".codex" / "sessions")
    url = f"s3://{store.bucket()}/team"
    run(b, store, "export", "-o", url, "--team", "--machine", "b")
    run(a, store, "export", "-o", url, "--team", "--machine", "a")
    grown = Machine("grown", root / "grown")
    alice_session(grown.home)
    grow(grown.home)
    return Earlier(url, a, b, scanned(grown, store)["totals"])


def request_keys(url: str) -> set[str]:
    """The request keys of each machine's export in the team folder at `url`."""
    from sniff.ingest import parquet_in

    keys: set[str] = set()
    for machine in ("a", "b"):
        read = parquet_in.read_export(f"{url}/machines/{machine}")
        assert read.issues == [], read.issues
        keys |= {response.key for response in read.responses}
    return keys


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL on this system")
@pytest.mark.parametrize("when", ["write:1", "write:2", "manifest", "record", "remove"])
def test_an_export_killed_mid_write_leaves_the_earlier_export_whole(
    when: str, tmp_path: Path, store: Store, bucket: str, earlier: Earlier, homes: Homes,
    in_process: Store,
) -> None:  # fmt: skip
    dest = f"s3://{bucket}/team"
    files = store.files()
    files.copy(earlier.url.removeprefix("s3://"), f"{bucket}/team", recursive=True)
    before = request_keys(dest)
    assert len(before) == homes.own["a"]["requests"] + homes.own["c"]["requests"]
    a = Machine("a", tmp_path / "a")
    shutil.copytree(earlier.a.root, a.root)  # its logs, config and cache as they were
    grow(a.home)
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, when, "export", "-o", dest, "--machine", "a",
         "--no-progress"],
        env=environment(a, store), cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    after = request_keys(dest)
    assert before <= after
    whole = scanned(a, store, dest)
    assert whole["warnings"]["unreadable_files"] == []
    assert whole["source"]["duplicates_dropped"] == 0
    assert whole["totals"]["requests"] == len(after)
    complete = [earlier.grown, homes.own["c"]]
    if when.startswith("write:") or when == "manifest":  # the manifest was not switched yet
        assert after == before
    else:  # it was: the new export is whole already
        assert_same_totals(whole["totals"], complete)
    folder = f"{bucket}/team/machines/a"
    if when == "remove":  # the objects of the earlier export a's new one replaced are left
        assert unlisted(files, folder)
    run(a, store, "export", "-o", dest, "--machine", "a")  # the next export completes it
    assert_same_totals(scanned(a, store, dest)["totals"], complete)
    assert request_keys(dest) >= after
    assert unlisted(files, folder) == set()  # it deleted what the killed export left


def unlisted(files: Any, folder: str) -> set[str]:
    """The `part-*` objects under a machine's folder its manifest does not list."""
    listed = listed_in(files.cat_file(f"{folder}/{MANIFEST}")) or {}
    assert listed.get("requests"), listed
    parts = {
        name.removeprefix(f"{folder}/")
        for name in files.find(folder)
        if name.rsplit("/", 1)[-1].startswith("part-")
    }
    return parts - {f"{table}/{name}" for table, names in listed.items() for name in names}


def test_a_missing_bucket_or_an_unreachable_store_is_one_line(
    tmp_path: Path, store: Store, bucket: str
) -> None:
    machine = Machine("a", tmp_path / "a")
    alice_session(machine.home)
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    missing = f"s3://nosuchbucket-{uuid.uuid4().hex[:12]}/x"
    started = {
        "scan a missing bucket": sniff(machine, store, "scan", missing),
        "scan --json a missing bucket": sniff(machine, store, "scan", "--json", missing),
        "sessions of a missing bucket": sniff(machine, store, "sessions", "--json", missing),
        "export to a missing bucket": sniff(machine, store, "export", "-o", missing),
        "scan an empty folder of a bucket": sniff(machine, store, "scan", f"s3://{bucket}/x"),
        "scan an unreachable store": sniff(
            machine, store, "scan", f"s3://{bucket}/x", FSSPEC_S3_ENDPOINT_URL=nowhere
        ),
        "export to an unreachable store": sniff(
            machine, store, "export", "-o", f"s3://{bucket}/x", FSSPEC_S3_ENDPOINT_URL=nowhere
        ),
    }
    for what, process in started.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 2, (what, out, err)
        assert "Traceback" not in err, (what, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("sniff: error: "), (what, err)
        assert ("/x" in lines[0]) and ("nosuchbucket" in lines[0] or bucket in lines[0]), (
            what,
            err,
        )
        if "unreachable" in what:
            assert "connect" in lines[0].lower(), (what, err)
        if what == "export to a missing bucket":
            assert "does not exist" in lines[0], err
    assert store.files().find(bucket) == []  # nothing was written
