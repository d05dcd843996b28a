"""--dask: the same answers from a Dask cluster as from a local run, even when a worker dies.

A two-worker LocalCluster (separate processes, as on a real cluster) serves the module; each
command's JSON output with `--dask ADDRESS` must equal, byte for byte, its output without.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from tests.conftest import SHARED_SAMPLES as SHARED

distributed = pytest.importorskip("distributed")

REPO = Path(__file__).resolve().parents[2]
SAMPLE_LOGS = REPO / "sample_logs"
INPUTS = [SAMPLE_LOGS, *([SHARED] if SHARED.is_dir() else [])]
COMMANDS = [
    ["scan", "--json", "--tz", "UTC"],
    ["cache", "--breaks", "--json", "--tz", "UTC"],
    ["report", "-f", "json", "--tz", "UTC"],
]


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a two-worker local cluster."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize("logs", INPUTS, ids=lambda p: p.name)
def test_a_cluster_run_prints_what_a_local_run_prints(
    scheduler: str, command: list[str], logs: Path
) -> None:
    local = run(*command, "--no-index", str(logs))
    assert run(*command, "--dask", scheduler, str(logs)) == local


def test_the_cluster_can_be_named_in_the_environment(
    scheduler: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = run("scan", "--json", "--no-index", str(SAMPLE_LOGS))
    result = CliRunner().invoke(
        app, ["scan", "--json", str(SAMPLE_LOGS)], env={"SNIFF_DASK": scheduler}
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == local


def test_local_n_starts_a_cluster_of_its_own() -> None:
    local = run("scan", "--json", "--no-index", str(SAMPLE_LOGS))
    assert run("scan", "--json", "--dask", "local:2", str(SAMPLE_LOGS)) == local


def test_an_export_made_on_the_cluster_holds_the_same_rows(tmp_path: Path, scheduler: str) -> None:
    pandas = pytest.importorskip("pandas")
    run("export", "--no-index", str(SAMPLE_LOGS), "-o", str(tmp_path / "here"))
    run("export", "--dask", scheduler, str(SAMPLE_LOGS), "-o", str(tmp_path / "there"))
    here = pandas.read_parquet(tmp_path / "here" / "requests").sort_values("key")
    there = pandas.read_parquet(tmp_path / "there" / "requests").sort_values("key")
    assert here.reset_index(drop=True).equals(there.reset_index(drop=True))


def test_a_bad_local_worker_count_is_one_line_and_exit_2() -> None:
    result = CliRunner().invoke(app, ["scan", "--dask", "local:many", str(SAMPLE_LOGS)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "sniff: error: --dask local:N needs a number of workers, not 'many'"
    ]


class DieOnFirstTask(distributed.WorkerPlugin):  # type: ignore[misc]
    """Kills the worker process running the first sniff task it sees (once per cluster)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def setup(self, worker: Any) -> None:
        self.worker = worker

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish == "executing" and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(key))
            os.kill(os.getpid(), signal.SIGKILL)


def test_a_worker_killed_mid_run_does_not_change_the_answer(tmp_path: Path) -> None:
    local = run("cache", "--breaks", "--json", "--no-index", str(SAMPLE_LOGS))
    marker = tmp_path / "killed"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        with distributed.Client(cluster) as client:
            client.register_plugin(DieOnFirstTask(str(marker)))
        answer = run("cache", "--breaks", "--json", "--dask", cluster.scheduler_address,
                     str(SAMPLE_LOGS))  # fmt: skip
    assert marker.exists(), "no worker was killed: the test proved nothing"
    assert answer == local
