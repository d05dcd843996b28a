#!/usr/bin/env python3
"""Benchmark `sniff scan` of a team export, local against `--dask`, as the team grows.

Builds simulated team folders of 1, 4 and 16 machines (`sniff export --team --machine NAME`),
each machine exporting its own share of one generated Claude Code corpus: the shared
`gen_corpus.py` clones real seed sessions with fresh uuids, message and request ids, and this
script deals its sessions out to the largest team's machines (the largest first, each to the
machine holding the fewest bytes), so every machine holds about --mb MB of logs and no request
is on two machines; a smaller team is that team's first machines. Then it times
`sniff scan --json TEAM` without the index (`--no-index`: every export read whole),
alternately locally and with `--dask`, several times, and prints per team the machines, the
requests counted (rows), each side's median wall time and whether both printed the same JSON.

`--dask` names a scheduler (tcp://HOST:PORT) or `local:N` (sniff then starts a LocalCluster in
every run, and its time counts); by default the script starts one LocalCluster of --workers
single-threaded processes before timing, so the runs pay for the work, not for the start.

Usage:
    python bench/bench_team_dask.py [--machines 1 4 16] [--mb 4] [--runs 3]
        [--dask ADDRESS | --workers 2] [--seeds DIR] [--gen PATH] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from measure import compile_sniff, run  # bench/ is on the path when a script runs

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
GEN_CORPUS = SHARED / "bench" / "gen_corpus.py"
SEEDS = SHARED / "samples" if (SHARED / "samples").is_dir() else REPO / "sample_logs"
SCAN = ["scan", "--json"]


def sniff(arguments: list[str], env: dict[str, str]) -> tuple[float, str]:
    done = run([sys.executable, "-m", "sniff", *arguments, "--no-progress"], env)
    return done.seconds, done.stdout


def generated(gen: Path, seeds: Path, out: Path, megabytes: float) -> list[Path]:
    """The session files of a new corpus of about `megabytes` MB."""
    subprocess.run(
        [sys.executable, str(gen), str(seeds), str(out), f"{megabytes:g}", "--projects", "64"],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return sorted(out.rglob("*.jsonl"))


def dealt(sessions: list[Path], corpus: Path, machines: int, out: Path) -> list[Path]:
    """Each machine's log folder: the sessions dealt out, largest first, to the machine that
    holds the fewest bytes so far (hard links where the disk allows, else copies)."""
    folders = [out / f"m{number:02d}" for number in range(machines)]
    held = [0] * machines
    for session in sorted(sessions, key=lambda path: (-path.stat().st_size, path)):
        least = held.index(min(held))
        target = folders[least] / session.relative_to(corpus)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(session, target)
        except OSError:
            shutil.copyfile(session, target)
        held[least] += session.stat().st_size
    return folders


def team_of(folders: list[Path], dest: Path, env: dict[str, str]) -> Path:
    """A team folder into which each machine of `folders` exported its logs."""
    for folder in folders:
        done = subprocess.run(
            [sys.executable, "-m", "sniff", "export", "--no-index", "--no-progress", str(folder),
             "-o", str(dest), "--team", "--machine", folder.name],
            env=env, capture_output=True, text=True,
        )  # fmt: skip
        if done.returncode != 0:
            sys.exit(f"export of {folder.name} failed:\n{done.stderr.strip()[-2000:]}")
    return dest


@contextmanager
def cluster(address: str | None, workers: int) -> Iterator[str]:
    """The address to pass to --dask: the one given, else a LocalCluster's, started here."""
    if address is not None:
        yield address
        return
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as local:
        yield local.scheduler_address


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--mb", type=float, default=4.0, help="MB of logs per machine")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dask", metavar="ADDRESS", help="a scheduler, or local:N")
    parser.add_argument("--workers", type=int, default=2, help="of the LocalCluster started")
    parser.add_argument("--seeds", type=Path, default=SEEDS)
    parser.add_argument("--gen", type=Path, default=GEN_CORPUS, help="gen_corpus.py")
    parser.add_argument("--keep", type=Path, help="build here and keep it (default: a temp dir)")
    options = parser.parse_args()
    if not options.gen.is_file():
        sys.exit(f"no corpus generator at {options.gen} (--gen PATH)")
    compile_sniff()
    scratch = options.keep or Path(tempfile.mkdtemp(prefix="bench-team-dask-"))
    scratch.mkdir(parents=True, exist_ok=True)
    for name in ("config", "home"):
        (scratch / name).mkdir(exist_ok=True)
    env = {**os.environ, "SNIFF_CACHE_DIR": "", "SNIFF_CONFIG_DIR": str(scratch / "config"),
           "HOME": str(scratch / "home")}  # fmt: skip  # no index, no kept answers
    os.environ.update(env)  # the LocalCluster's workers too
    most = max(options.machines)
    corpus = scratch / "corpus"
    if not corpus.is_dir():
        generated(options.gen, options.seeds, corpus, options.mb * most)
    sessions = sorted(corpus.rglob("*.jsonl"))
    megabytes = sum(path.stat().st_size for path in sessions) / 1e6
    print(f"corpus: {len(sessions)} sessions, {megabytes:.1f} MB, from {options.seeds}")
    logs = scratch / "logs"
    folders = dealt(sessions, corpus, most, logs) if not logs.is_dir() else sorted(logs.iterdir())
    if len(folders) < most:
        sys.exit(f"{logs} was dealt to {len(folders)} machines: --keep another folder")
    teams = []
    for machines in options.machines:  # the first machines of the largest team
        dest = scratch / f"team-{machines}"
        if not dest.is_dir():
            team_of(folders[:machines], dest, env)
        teams.append((machines, dest))
    rows = []
    with cluster(options.dask, options.workers) as address:
        print(f"--dask {address}, {options.runs} runs each\n")
        for machines, dest in teams:
            local_times: list[float] = []
            dask_times: list[float] = []
            outputs: set[str] = set()
            for _ in range(options.runs):
                seconds, out = sniff([*SCAN, "--no-index", str(dest)], env)
                local_times.append(seconds)
                outputs.add(out)
                seconds, out = sniff([*SCAN, "--dask", address, str(dest)], env)
                dask_times.append(seconds)
                outputs.add(out)
            requests = json.loads(next(iter(outputs)))["totals"]["requests"]
            local, dask = statistics.median(local_times), statistics.median(dask_times)
            rows.append((machines, requests, local, dask, len(outputs) == 1))
    print(f"{'machines':>8} {'rows':>8} {'local s':>9} {'dask s':>9} {'dask/local':>10}  same JSON")
    for machines, requests, local, dask, same in rows:
        print(f"{machines:>8} {requests:>8,} {local:>9.2f} {dask:>9.2f} {dask / local:>9.2f}x  "
              f"{'yes' if same else 'NO'}")  # fmt: skip
    if options.keep is None:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
