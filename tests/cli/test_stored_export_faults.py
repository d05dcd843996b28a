"""An export to a store that fails part way (the store refuses a put, a second export of the
machine runs at once) leaves the earlier export whole and readable, says so in one line, and
the next export completes it. In fsspec's in-memory store, in this process: the same code path
as S3 (`tests/cli/test_team_store.py` runs it against a real S3 server)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.export_folders import MACHINE_FILE, MANIFEST
from sniff.ingest.files import remote
from tests.conftest import SAMPLE_LOGS

pytest.importorskip("fsspec")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


def totals(where: str) -> dict[str, Any]:
    done = invoke("scan", "--json", "--tz", "UTC", where)
    assert done.exit_code == 0, done.output
    found: dict[str, Any] = json.loads(done.stdout)["totals"]
    return found


@pytest.fixture
def team(tmp_path: Path) -> tuple[str, Path]:
    """A store's team URL machine m1 exported the Codex samples to, and m1's logs, to which the
    Claude Code samples are then added."""
    url = f"memory://faults-{tmp_path.name}"
    logs = tmp_path / "logs"
    shutil.copytree(SAMPLE_LOGS / "codex" / "sessions", logs / "codex")
    done = invoke("export", str(logs), "-o", url, "--machine", "m1")
    assert done.exit_code == 0, done.output
    shutil.copytree(SAMPLE_LOGS / "claude-code" / "projects", logs / "claude")
    return url, logs


@pytest.mark.parametrize("refused", [1, 5, MANIFEST, MACHINE_FILE])
def test_a_refused_put_leaves_the_earlier_export_whole(
    team: tuple[str, Path], monkeypatch: pytest.MonkeyPatch, refused: int | str
) -> None:
    url, logs = team
    before = totals(url)
    real, calls = remote.write, [0]

    def refusing(target: str, data: bytes) -> None:
        calls[0] += 1
        if calls[0] == refused or (isinstance(refused, str) and target.endswith(refused)):
            raise OSError(f"the store refused {target}")
        real(target, data)

    monkeypatch.setattr(remote, "write", refusing)
    done = invoke("export", str(logs), "-o", url, "--machine", "m1")
    assert done.exit_code == 2
    assert done.stderr.startswith("sniff: error: cannot export to ") and "as it was" in done.stderr
    monkeypatch.setattr(remote, "write", real)
    if refused == MACHINE_FILE:  # the manifest had switched: the new export is in
        assert totals(url)["requests"] > before["requests"]
    else:
        assert totals(url) == before
    assert invoke("export", str(logs), "-o", url, "--machine", "m1").exit_code == 0
    assert totals(url) == totals(str(logs))


def test_a_second_export_of_the_machine_at_once_is_refused(
    team: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, logs = team
    from sniff.export.stored import _locked

    with _locked(remote.joined(url, "machines", "m1")):
        done = invoke("export", str(logs), "-o", url, "--machine", "m1")
        other = invoke("export", str(logs), "-o", url, "--machine", "m2")
    assert done.exit_code == 2
    assert "another sniff export is writing to" in done.stderr and "/machines/m1" in done.stderr
    assert other.exit_code == 0, other.output  # another machine is not held


def test_objects_a_killed_export_left_are_deleted_by_the_next(team: tuple[str, Path]) -> None:
    url, logs = team
    machine = remote.joined(url, "machines", "m1")
    left = remote.joined(machine, "requests", "day=2026-01-01", "part-0123456789abcdef.parquet")
    remote.write(left, b"a part no manifest lists")
    remote.write(remote.joined(machine, "notes.txt"), b"not sniff's")
    before = totals(url)
    assert invoke("export", str(logs), "-o", url, "--machine", "m1").exit_code == 0
    names = remote.files_under(machine)
    assert "requests/day=2026-01-01/part-0123456789abcdef.parquet" not in names
    assert "notes.txt" in names
    assert totals(url)["requests"] > before["requests"]
