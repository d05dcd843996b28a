"""`sniff export --team`: several machines export into one shared folder at once, and reading
the folder counts every request once, credited to the machine that exported it first."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from sniff.ingest import parquet_in
from tests.conftest import REPO, SAMPLE_LOGS, Lines

SECRET_USER = "alice-secret"
SECRET_PROJECT = "rocketproj"
SECRET_BRANCH = "feature-rocket"
CWD = f"/home/{SECRET_USER}/src/{SECRET_PROJECT}"
SESSION = "0a1b2c3d-0000-4000-8000-00000000a11c"
MONEY = ("cost_usd",)
TOKENS = ("requests", "input_tokens", "cache_read_tokens", "cache_write_5m_tokens",
          "cache_write_1h_tokens", "output_tokens", "reasoning_tokens")  # fmt: skip


@dataclass(frozen=True)
class Machine:
    """A machine's home (its logs), config and cache folders."""

    name: str
    root: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.root / "home"),
            "SNIFF_CONFIG_DIR": str(self.root / "config"),
            "SNIFF_CACHE_DIR": str(self.root / "cache"),
            "SNIFF_DATA_DIR": str(self.root / "data"),
        }

    @property
    def home(self) -> Path:
        return self.root / "home"


def alice_session(home: Path) -> None:
    """A Claude Code transcript of two requests, on a named branch in a named project."""
    folder = home / ".claude" / "projects" / CWD.replace("/", "-")
    extra = {"session": SESSION, "cwd": CWD, "gitBranch": SECRET_BRANCH}
    Lines.write(
        folder / f"{SESSION}.jsonl",
        [
            Lines.user("u1", None, "2026-03-01T10:00:00.000Z", **extra),
            Lines.assistant(
                "msg_a1", "a1", "u1", "2026-03-01T10:00:03.000Z",
                Lines.usage(10, 0, 2000, 50), **extra,
            ),
            Lines.user("u2", "a1", "2026-03-01T10:01:00.000Z", **extra),
            Lines.assistant(
                "msg_a2", "a2", "u2", "2026-03-01T10:01:04.000Z",
                Lines.usage(12, 2000, 300, 80), **extra,
            ),
        ],
    )  # fmt: skip


def machines(tmp_path: Path) -> list[Machine]:
    """a: a transcript written here; b: the sample Claude Code logs; c: the sample Codex ones."""
    a, b, c = (Machine(name, tmp_path / name) for name in "abc")
    alice_session(a.home)
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", b.home / ".claude" / "projects")
    shutil.copytree(SAMPLE_LOGS / "codex" / "sessions", c.home / ".codex" / "sessions")
    return [a, b, c]


def sniff(machine: Machine, *arguments: str) -> subprocess.Popen[str]:
    machine.root.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "sniff", *arguments, "--no-progress"],
        env=machine.env, cwd=machine.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def run(machine: Machine, *arguments: str) -> str:
    process = sniff(machine, *arguments)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return out


def export_all(team: Path, found: list[Machine], *extra: str) -> None:
    """Every machine exports to `team` at once."""
    started = [
        sniff(m, "export", "-o", str(team), "--team", "--machine", m.name, *extra) for m in found
    ]
    for process in started:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err


def scanned(machine: Machine, *paths: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(run(machine, "scan", "--json", *paths))
    return answer


def snapshot(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    return {
        str(path.relative_to(folder)): (
            path.stat().st_ino,
            path.stat().st_mtime_ns,
            path.read_bytes(),
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Machine]]:
    root = tmp_path_factory.mktemp("team")
    found = machines(root)
    export_all(root / "DEST", found)
    return root / "DEST", found


def test_the_team_folder_sums_the_machines_to_the_token_and_the_cent(
    team: tuple[Path, list[Machine]],
) -> None:
    dest, found = team
    whole = scanned(found[0], str(dest))
    own = [scanned(m)["totals"] for m in found]
    for name in TOKENS:
        assert whole["totals"][name] == sum(totals[name] for totals in own), name
    assert whole["totals"]["cost_usd"] == pytest.approx(sum(t["cost_usd"] for t in own), abs=5e-6)
    assert whole["source"]["duplicates_dropped"] == 0
    assert whole["source"]["files"] == 3  # one source per machine's export
    assert sorted(p.name for p in (dest / "machines").iterdir()) == ["a", "b", "c"]
    record = json.loads((dest / "machines" / "a" / "machine.json").read_text())
    assert record["machine"] == "a" and record["first_export"] == record["last_export"]


def test_exporting_a_machine_again_changes_no_file(team: tuple[Path, list[Machine]]) -> None:
    dest, found = team
    before = snapshot(dest)
    run(found[1], "export", "-o", str(dest), "--machine", "b")  # a team folder: --team implied
    assert snapshot(dest) == before


def test_sessions_by_machine_gives_each_machines_totals(team: tuple[Path, list[Machine]]) -> None:
    dest, found = team
    answer = json.loads(run(found[0], "sessions", "--by", "machine", "--json", str(dest)))
    rows = {row["machine"]: row for row in answer["rows"]}
    assert set(rows) == {"a", "b", "c"}
    for machine in found:
        own = scanned(machine)["totals"]
        assert rows[machine.name]["requests"] == own["requests"]
        assert rows[machine.name]["total_tokens"] == own["total_tokens"]
        assert rows[machine.name]["cost_usd"] == pytest.approx(own["cost_usd"], abs=5e-6)
    mixed = json.loads(
        run(found[0], "sessions", "--by", "machine", "--json", str(dest), str(found[0].home))
    )
    assert "(local)" not in {row["machine"] for row in mixed["rows"]}  # the same keys: a's
    users = json.loads(run(found[0], "sessions", "--by", "user", "--json", str(dest)))
    assert sum(row["requests"] for row in users["rows"]) == sum(
        r["requests"] for r in rows.values()
    )


def test_a_session_on_two_machines_counts_once(tmp_path: Path) -> None:
    a, b = Machine("a", tmp_path / "a"), Machine("b", tmp_path / "b")
    alice_session(a.home)
    alice_session(b.home)  # the session folder synced to b
    shutil.copytree(SAMPLE_LOGS / "codex" / "sessions", b.home / ".codex" / "sessions")
    dest = tmp_path / "DEST"
    run(b, "export", "-o", str(dest), "--team", "--machine", "b")
    run(a, "export", "-o", str(dest), "--team", "--machine", "a")
    whole = scanned(a, str(dest))
    assert whole["source"]["duplicates_dropped"] == scanned(a)["totals"]["requests"] == 2
    assert whole["totals"]["requests"] == scanned(b)["totals"]["requests"]
    text = run(a, "scan", str(dest))
    assert "2 requests exported by two machines, counted once" in text
    rows = json.loads(run(a, "sessions", "--by", "machine", "--json", str(dest)))["rows"]
    assert [row["machine"] for row in rows] == ["b"]  # b exported first


def test_a_redacted_export_holds_no_name(tmp_path: Path) -> None:
    found = machines(tmp_path)
    salt = tmp_path / "salt"
    salt.write_text("team secret\n")
    dest = tmp_path / "DEST"
    export_all(dest, found, "--redact", "--salt-file", str(salt), "--user", SECRET_USER)
    secrets = [SECRET_USER, SECRET_PROJECT, SECRET_BRANCH, "webshop", "agent-habits", "/home/",
               str(tmp_path), "team secret"]  # fmt: skip
    files = [path for path in dest.rglob("*") if path.is_file()]
    assert any(path.suffix == ".parquet" for path in files)
    for path in files:
        data = path.read_bytes()
        assert [s for s in secrets if s.encode() in data] == [], path
    a = json.loads((dest / "machines" / "a" / "machine.json").read_text())
    c = json.loads((dest / "machines" / "c" / "machine.json").read_text())
    assert a["user"] == c["user"] and a["user"].startswith("user-")  # one salt, one pseudonym
    projects = {row["project"] for row in scanned(found[0], str(dest))["by_project"]}
    assert all(project.startswith("project-") for project in projects), projects


def test_redact_without_a_salt_or_a_bad_name_is_one_line(tmp_path: Path) -> None:
    machine = Machine("a", tmp_path / "a")
    for arguments in (["--redact"], ["--machine", "../x"], ["--user", "a b"]):
        process = sniff(machine, "export", "-o", str(tmp_path / "D"), "--team", *arguments)
        _, err = process.communicate(timeout=120)
        assert process.returncode == 2, err
        assert len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "D").exists()


def test_the_machine_id_persists_and_differs_between_config_folders(tmp_path: Path) -> None:
    a, b = Machine("a", tmp_path / "a"), Machine("b", tmp_path / "b")
    alice_session(a.home)
    alice_session(b.home)
    dest = tmp_path / "DEST"
    for machine in (a, a, b):
        run(machine, "export", "-o", str(dest), "--team")
    kept = [(m.root / "config" / "machine-id").read_text().strip() for m in (a, b)]
    assert kept[0] != kept[1]
    assert sorted(p.name for p in (dest / "machines").iterdir()) == sorted(kept)


KILLER = """
import os, signal, sys
from pathlib import Path

at, root, calls = int(sys.argv[1]), Path(sys.argv[2]).resolve(), [0]
real = os.replace


def replace(source, destination, **kwargs):
    if Path(os.fsdecode(destination)).resolve().is_relative_to(root):
        calls[0] += 1
        if calls[0] == at:
            os.kill(os.getpid(), signal.SIGKILL)
    return real(source, destination, **kwargs)


os.replace = replace
sys.argv = ["sniff", *sys.argv[3:]]
from sniff.cli import main

main()
"""
"""Runs `sniff ARGS...`, killed with SIGKILL just before its AT-th rename inside ROOT."""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL on this system")
@pytest.mark.parametrize("at", [1, 3, 6])
def test_an_export_killed_mid_write_leaves_the_earlier_export_whole(
    tmp_path: Path, at: int
) -> None:
    a, b = Machine("a", tmp_path / "a"), Machine("b", tmp_path / "b")
    alice_session(a.home)
    shutil.copytree(SAMPLE_LOGS / "codex" / "sessions", b.home / ".codex" / "sessions")
    dest = tmp_path / "DEST"
    run(b, "export", "-o", str(dest), "--team", "--machine", "b")
    run(a, "export", "-o", str(dest), "--team", "--machine", "a")
    earlier = {r.key for r in parquet_in.read_export(str(dest)).responses}
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", a.home / ".claude" / "projects",
                    dirs_exist_ok=True)  # fmt: skip
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(at), str(dest), "export", "-o", str(dest),
         "--machine", "a", "--no-progress"],
        env=a.env, cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    read = parquet_in.read_export(str(dest))
    assert read.issues == []
    assert earlier <= {r.key for r in read.responses}
    assert scanned(a, str(dest))["totals"]["requests"] >= len(earlier)
    run(a, "export", "-o", str(dest), "--machine", "a")  # the next export completes it
    whole = scanned(a, str(dest))["totals"]["requests"]
    assert whole == scanned(a)["totals"]["requests"] + scanned(b)["totals"]["requests"]


@pytest.mark.parametrize("where", ["folder", "store"])
def test_since_last_reads_only_what_came_after_this_machines_last_export(
    tmp_path: Path, cc: type[Lines], where: str
) -> None:
    """A daily run reads a day of logs: the old calls are left unread (their rows stay), a
    call made since is added. In a folder, and in a store (fsspec's in-memory one)."""
    from datetime import UTC, datetime, timedelta

    from typer.testing import CliRunner

    from sniff.cli import app

    logs = tmp_path / "logs"
    dest = tmp_path / "dest" if where == "folder" else f"memory://since-last-{tmp_path.name}"
    old = cc.usage(input=10, read=0, write=2000, output=50)
    path = cc.write(logs / "p" / "s.jsonl", [
        cc.user("u1", None, "2026-01-05T09:00:00Z"),
        cc.assistant("msg_old", "a1", "u1", "2026-01-05T09:00:04Z", old),
    ])  # fmt: skip
    run = CliRunner().invoke
    command = ["export", str(logs), "-o", str(dest), "--team", "--machine", "m1", "--json"]
    done = run(app, command)
    assert done.exit_code == 0, done.output
    first = json.loads(done.stdout)
    assert (first["added"], first["kept"]) == (1, 0)
    again = json.loads(run(app, [*command, "--since", "last"]).stdout)
    assert (again["added"], again["kept"], again["rows"]["requests"]) == (0, 0, 1)
    now = datetime.now(UTC)
    stamp = (now + timedelta(seconds=1)).isoformat().replace("+00:00", "Z")
    with path.open("a") as handle:
        for line in (cc.user("u2", "a1", now.isoformat().replace("+00:00", "Z")),
                     cc.assistant("msg_new", "a2", "u2", stamp, old)):  # fmt: skip
            handle.write(json.dumps(line) + "\n")
    later = json.loads(run(app, [*command, "--since", "last"]).stdout)
    assert (later["added"], later["kept"], later["rows"]["requests"]) == (1, 0, 2)


def test_the_team_view_judges_cache_breaks_as_the_logs_do(tmp_path: Path) -> None:
    """The prompt blocks come back from the export (without text), so every break, its cause
    and its cost are those a scan of the logs finds."""
    from typer.testing import CliRunner

    from sniff.cli import app

    logs = SAMPLE_LOGS  # the request logs and claude-trace hold whole prompts
    dest = tmp_path / "team"
    run = CliRunner().invoke
    assert (
        run(app, ["export", str(logs), "-o", str(dest), "--machine", "m1", "--team"]).exit_code == 0
    )

    def breaks(path: Path) -> dict[str, Any]:
        done = run(app, ["cache", "--breaks", "--json", "--tz", "UTC", "--no-index", str(path)])
        assert done.exit_code == 0, done.output
        found: dict[str, Any] = json.loads(done.stdout)
        return found

    from_logs, from_team = breaks(logs), breaks(dest)
    assert from_logs["totals"]["breaks"] > 0
    assert from_team["totals"] == from_logs["totals"]
    assert any(b["cause"] == "prefix_changed" for b in from_logs["breaks"])
    causes = [(b["request"], b["cause"], b["cost_usd"]) for b in from_logs["breaks"]]
    assert [(b["request"], b["cause"], b["cost_usd"]) for b in from_team["breaks"]] == causes


@pytest.mark.parametrize("by", ["machine", "user"])
def test_a_months_bill_splits_by_machine_and_user_to_the_cent(tmp_path: Path, by: str) -> None:
    """`monthly -b machine|user` on a team folder: each machine's rows are its own logs'
    months, and a month's rows add up to it."""
    from typer.testing import CliRunner

    from sniff.cli import app

    run = CliRunner().invoke
    shares = {
        "laptop": ("ana", SAMPLE_LOGS / "claude-code"),
        "ci": ("build", SAMPLE_LOGS / "codex"),
    }
    dest = tmp_path / "team"
    for machine, (user, logs) in shares.items():
        done = run(app, ["export", str(logs), "-o", str(dest), "--machine", machine,
                         "--user", user, "--team"])  # fmt: skip
        assert done.exit_code == 0, done.output

    def months(*arguments: str) -> dict[str, Any]:
        done = run(app, ["monthly", "--json", "--tz", "UTC", "--no-index", *arguments])
        assert done.exit_code == 0, done.output
        return {row["month"]: row for row in json.loads(done.stdout)["monthly"]}

    team = months("--breakdown", by, str(dest))
    assert len(team) > 1
    own = {
        (machine if by == "machine" else user): months(str(logs))
        for machine, (user, logs) in shares.items()
    }
    for month, row in team.items():
        parts = {part[by]: part for part in row[f"by_{by}"]}
        assert set(parts) == {name for name, rows in own.items() if month in rows}
        for name, part in parts.items():
            assert part["requests"] == own[name][month]["requests"]
            assert part["cost_usd"] == pytest.approx(own[name][month]["cost_usd"], abs=5e-6)
        assert sum(p["cost_usd"] for p in parts.values()) == pytest.approx(
            row["cost_usd"], abs=5e-6
        )


def test_the_report_of_a_team_has_its_machines_and_users(tmp_path: Path) -> None:
    """`report` on a team folder: cost by machine and by user, as `sessions --by` gives them;
    `--redact` names them by pseudonyms; a report of logs has neither section."""
    from typer.testing import CliRunner

    from sniff.cli import app

    run = CliRunner().invoke
    dest = tmp_path / "team"
    for machine, logs in (("laptop-ana", "claude-code"), ("ci-runner-07", "codex")):
        done = run(app, ["export", str(SAMPLE_LOGS / logs), "-o", str(dest), "--team",
                         "--machine", machine, "--user", machine.split("-")[0]])  # fmt: skip
        assert done.exit_code == 0, done.output

    def output(*arguments: str) -> str:
        done = run(app, [*arguments, "--no-index", "--tz", "UTC"])
        assert done.exit_code == 0, done.output
        return done.stdout

    report = json.loads(output("report", "-f", "json", str(dest)))
    for by in ("machine", "user"):
        rows = json.loads(output("sessions", "--by", by, "--json", str(dest)))["rows"]
        assert report[f"by_{by}"] == rows
    assert {row["machine"] for row in report["by_machine"]} == {"laptop-ana", "ci-runner-07"}
    page = output("report", "-f", "md", str(dest))
    assert "## Cost by machine" in page and "| laptop-ana |" in page
    redacted = output("report", "-f", "md", "--redact", str(dest))
    assert "## Cost by machine" in redacted
    assert not [
        name for name in ("laptop-ana", "ci-runner", "| laptop", "| ci |") if name in redacted
    ]
    alone = json.loads(output("report", "-f", "json", str(SAMPLE_LOGS / "codex")))
    assert "by_machine" not in alone and "by_user" not in alone


def test_the_python_api_credits_each_request_to_its_machine(tmp_path: Path) -> None:
    """`Workspace(team).requests()` has each request's machine and user: grouped by machine,
    the costs are `sessions --by machine`'s."""
    pytest.importorskip("pandas")
    from typer.testing import CliRunner

    from sniff import Workspace
    from sniff.cli import app

    run = CliRunner().invoke
    dest = tmp_path / "team"
    for machine, logs in (("laptop", "claude-code"), ("ci", "codex")):
        done = run(app, ["export", str(SAMPLE_LOGS / logs), "-o", str(dest), "--team",
                         "--machine", machine, "--user", f"{machine}-user"])  # fmt: skip
        assert done.exit_code == 0, done.output
    frame = Workspace(dest, tz="UTC", use_index=False).requests()
    by_machine = frame.groupby("machine", observed=True)["cost_usd"].sum()
    done = run(app, ["sessions", "--by", "machine", "--json", "--no-index", str(dest)])
    rows = {row["machine"]: row for row in json.loads(done.stdout)["rows"]}
    assert set(by_machine.index) == set(rows) == {"laptop", "ci"}
    for machine, cost in by_machine.items():
        assert cost == pytest.approx(rows[machine]["cost_usd"], abs=5e-6)
    assert set(frame["user"]) == {"laptop-user", "ci-user"}
    alone = Workspace(SAMPLE_LOGS / "codex", tz="UTC", use_index=False).requests()
    assert alone["machine"].isna().all()
