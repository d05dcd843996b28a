"""`sniff export` under faults: a merge killed (kill -9) or interrupted at any moment, a full
disk, a read-only folder, a second export at once. Each time every earlier row reads back, by
sniff's own reader (which follows the manifest) and by a plain pyarrow glob of the folder, and
no partial or empty file is left where a reader can see it."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner, Result

from sniff.cli import app
from sniff.ingest import parquet_in
from tests.conftest import FIRST_SAMPLES, REPO, SAMPLE_LOGS
from tests.faults.failing_writes import fill_disk, refuse_writes, snapshot, writable_again

runner = CliRunner()
Rows = dict[str, tuple[int, ...]]
"""Requests by key: their six token counts."""

KILLER = """
import json, os, signal, sys
from pathlib import Path

kind, at, root = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]).resolve()
calls = {"fsync": 0, "replace": 0, "unlink": 0}


def inside(path):
    return Path(os.fsdecode(path)).resolve().is_relative_to(root)


def watched(name, real, counts):
    def call(*args, **kwargs):
        if counts(args):
            calls[name] += 1
            if name == kind and calls[name] == at:
                os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return call


os.fsync = watched("fsync", os.fsync, lambda args: True)
os.replace = watched("replace", os.replace, lambda args: inside(args[1]))
os.unlink = watched("unlink", os.unlink, lambda args: inside(args[0]))
sys.argv = ["sniff", *sys.argv[4:]]
from sniff.cli import main

try:
    main()
finally:
    print(json.dumps(calls), file=sys.stderr)
"""
"""Runs `sniff ARGS...` and kills itself with SIGKILL just before its AT-th call of a kind
(fsync, or a rename or removal inside ROOT); at the end, the calls of each kind it made."""


@dataclass(frozen=True)
class Merge:
    """An earlier export, and the merge into it that the faults interrupt."""

    before: Path
    """The earlier export: of the first half of every sample log."""
    old: Rows
    new: Rows
    """The rows after the merge of all the sample logs, done without a fault."""
    after: Path
    """That merge's folder."""
    calls: dict[str, int]
    """The calls of each kind the merge made (see `KILLER`)."""


def export(target: Path, logs: Path = SAMPLE_LOGS) -> None:
    result = runner.invoke(app, ["export", str(logs), "-o", str(target), "--no-progress"])
    assert result.exit_code == 0, result.output


def rows(target: Path) -> Rows:
    """The requests sniff reads from an export (through its manifest), none unreadable."""
    read = parquet_in.read_export(str(target))
    assert read.issues == []
    found = {response.key: tuple(response.usage) for response in read.responses}
    assert len(found) == len(read.responses)
    return found


def globbed(target: Path) -> list[tuple[str, tuple[int, ...]]]:
    """The requests a plain pyarrow dataset of the folder reads (hive partitions, no manifest)."""
    table = ds.dataset(target / "requests", format="parquet", partitioning="hive").to_table(
        columns=["key", *parquet_in.TOKENS]
    )
    tokens = parquet_in.TOKENS
    return [(row["key"], tuple(row[name] for name in tokens)) for row in table.to_pylist()]


def totals(found: Rows) -> list[int]:
    return [sum(usage[index] for usage in found.values()) for index in range(6)]


def scanned_totals(logs: Path) -> list[int]:
    result = runner.invoke(app, ["scan", str(logs), "--json", "--no-index"])
    assert result.exit_code == 0, result.output
    scanned = json.loads(result.stdout)["totals"]
    return [scanned[name] for name in parquet_in.TOKENS]


def assert_whole(target: Path, merge: Merge) -> None:
    """The earlier export's rows all read back, whole, by both kinds of reader."""
    assert rows(target) in (merge.old, merge.new)  # the manifest: the old export or the new one
    seen = globbed(target)
    assert {key for key, _ in seen} >= merge.old.keys()  # no earlier row lost
    assert all(merge.old.get(key) == usage or merge.new.get(key) == usage for key, usage in seen)
    for file in target.rglob("*.parquet"):  # every file a glob sees is whole
        assert pq.read_metadata(file).num_rows > 0


def assert_clean(target: Path, merge: Merge) -> None:
    """Only the files of the new export: no temporary file, nothing twice for a glob."""
    assert rows(target) == merge.new
    assert sorted(globbed(target)) == sorted(merge.new.items())
    assert not [path for path in target.rglob(".*") if path.is_file()]
    assert snapshot(target) == snapshot(merge.after)


def earlier(tmp_path: Path, merge: Merge) -> Path:
    """A copy of the earlier export, to merge into."""
    return Path(shutil.copytree(merge.before, tmp_path / "export"))


def merging(target: Path) -> Result:
    """The merge of all the sample logs into `target`, in this process."""
    return runner.invoke(app, ["export", str(SAMPLE_LOGS), "-o", str(target), "--no-progress"])


def halves(source: Path, target: Path) -> Path:
    """Every log under `source` cut to its first half of lines, at the same place in `target`
    (of the first formats' folders: a Copilot log cut before a segment's shutdown counts that
    segment's output message by message, and the merge would then hold both readings)."""
    for log in (log for folder in FIRST_SAMPLES for log in Path(folder).rglob("*.jsonl")):
        lines = log.read_bytes().splitlines(keepends=True)
        copy = target / log.relative_to(source)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(b"".join(lines[: len(lines) // 2]))
    return target


def killed(target: Path, kind: str, at: int) -> subprocess.CompletedProcess[str]:
    """`sniff export` of the sample logs into `target`, killed just before call `at` of `kind`."""
    arguments = [str(SAMPLE_LOGS), "-o", str(target), "--no-progress"]
    return subprocess.run(
        [sys.executable, "-c", KILLER, kind, str(at), str(target), "export", *arguments],
        capture_output=True, text=True, timeout=300, cwd=REPO,
    )  # fmt: skip


@pytest.fixture(scope="module")
def merge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Merge]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SNIFF_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        work = tmp_path_factory.mktemp("merge")
        first = halves(SAMPLE_LOGS, work / "first")
        before = work / "before"
        export(before, first)
        old = rows(before)
        assert old and totals(old) == scanned_totals(first)
        after = work / "after"
        shutil.copytree(before, after)
        counted = killed(after, "none", 0)
        assert counted.returncode == 0, counted.stderr
        calls = json.loads(counted.stderr.strip().splitlines()[-1])
        new = rows(after)
        assert totals(new) == scanned_totals(SAMPLE_LOGS)
        assert set(new) > set(old)
        yield Merge(before, old, new, after, calls)


MOMENTS = [
    *((kind, moment) for kind in ("fsync", "replace") for moment in ("first", "middle", "last")),
    *(("unlink", moment) for moment in ("first", "second", "middle", "last")),
]
"""fsync: while new files are staged; replace: while they (and last the manifest) are renamed
into place; unlink: after the manifest switched, while the files it no longer lists go."""


KILLS = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL on this system")


@KILLS
@pytest.mark.parametrize(("kind", "moment"), MOMENTS)
def test_a_merge_killed_at_any_moment_loses_no_earlier_row(
    tmp_path: Path, merge: Merge, kind: str, moment: str
) -> None:
    target = earlier(tmp_path, merge)
    count = merge.calls[kind]
    assert count > 2, merge.calls  # the merge writes, renames and removes files
    at = {"first": 1, "second": 2, "middle": (count + 1) // 2, "last": count}[moment]
    result = killed(target, kind, at)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert_whole(target, merge)
    export(target)  # the next export completes the merge and removes what the kill left
    assert_clean(target, merge)


@KILLS
def test_a_first_export_killed_leaves_a_folder_the_next_one_writes(tmp_path: Path) -> None:
    target = tmp_path / "export"
    result = killed(target, "replace", 2)
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert rows(target) == {}  # an empty export, not a folder sniff refuses
    export(target)
    assert totals(rows(target)) == scanned_totals(SAMPLE_LOGS)
    assert not [path for path in target.rglob(".*") if path.is_file()]


@pytest.mark.parametrize("replace_at", ["first", "last"])
def test_an_interrupted_merge_leaves_the_earlier_export_as_it_was(
    tmp_path: Path, merge: Merge, monkeypatch: pytest.MonkeyPatch, replace_at: str
) -> None:
    """Ctrl-C: the merge removes what it wrote, so not even a hidden file is left."""
    target = earlier(tmp_path, merge)
    before = snapshot(target)
    real, calls = os.replace, []
    last = merge.calls["replace"]

    def replace(source: str, destination: str) -> None:
        if Path(destination).is_relative_to(target):
            calls.append(destination)
            if len(calls) == (1 if replace_at == "first" else last):
                raise KeyboardInterrupt
        real(source, destination)

    monkeypatch.setattr(os, "replace", replace)
    result = merging(target)
    assert result.exit_code != 0
    assert snapshot(target) == before


def one_line_error(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("sniff: error: ") and "please report" not in lines[0]
    return lines[0]


def new_bytes(merge: Merge) -> int:
    """What the merge writes: the bytes of the files it adds to the earlier export."""
    old = snapshot(merge.before)
    return sum(len(data) for name, data in snapshot(merge.after).items() if name not in old)


@pytest.mark.parametrize("room", ["none", "some", "all but the manifest"])
def test_a_full_disk_is_one_line_and_the_earlier_export_stays_whole(
    tmp_path: Path, merge: Merge, monkeypatch: pytest.MonkeyPatch, room: str
) -> None:
    target = earlier(tmp_path, merge)
    before = snapshot(target)
    parts = new_bytes(merge) - len((merge.after / "sniff-export.json").read_bytes())
    free = {"none": 0, "some": parts // 3, "all but the manifest": parts + 100}[room]
    fill_disk(monkeypatch, target, free)
    result = merging(target)
    assert result.exit_code == 2, result.output
    line = one_line_error(result.stderr)
    assert f"cannot write {target}: No space left on device" in line
    monkeypatch.undo()
    assert snapshot(target) == before  # no partial, empty or hidden file; nothing changed
    assert rows(target) == merge.old


def test_a_full_disk_on_a_first_export_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "new" / "export"
    fill_disk(monkeypatch, tmp_path, 2000)
    result = merging(target)
    assert result.exit_code == 2, result.output
    assert "No space left on device" in one_line_error(result.stderr)
    assert not target.exists()


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS, errno.EDQUOT])
def test_export_into_a_read_only_folder_is_one_line(
    tmp_path: Path, merge: Merge, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    existing, parent = tmp_path / "existing", tmp_path / "parent"
    shutil.copytree(merge.before, existing)
    parent.mkdir()
    before = snapshot(existing)
    for folder in (existing, parent):
        refuse_writes(monkeypatch, folder, code)
    try:
        for target in (existing, parent / "export"):
            arguments = ["export", str(SAMPLE_LOGS), "-o", str(target), "--no-progress"]
            result = runner.invoke(app, arguments)
            assert result.exit_code == 2, result.output
            assert f"cannot write {target}: " in one_line_error(result.stderr)
    finally:
        monkeypatch.undo()
        writable_again(tmp_path)
    assert snapshot(existing) == before
    assert rows(existing) == merge.old
    assert list(parent.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="folder locks are POSIX's")
def test_a_second_export_into_the_same_folder_at_once_is_refused(
    tmp_path: Path, merge: Merge
) -> None:
    import fcntl

    target = earlier(tmp_path, merge)
    before = snapshot(target)
    held = os.open(target, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a running export holds it
        result = runner.invoke(app, ["export", str(SAMPLE_LOGS), "-o", str(target)])
    finally:
        os.close(held)
    assert result.exit_code == 2, result.output
    assert "another sniff export is writing to" in one_line_error(result.stderr)
    assert snapshot(target) == before


def test_sniff_reads_the_files_the_manifest_lists_not_what_a_kill_left(
    tmp_path: Path, merge: Merge
) -> None:
    """A file left by a killed merge (renamed in, never listed) is not counted."""
    target = earlier(tmp_path, merge)
    [listed, *_] = parquet_in.table_files(target)
    stray = pq.read_table(listed)
    keys = stray.column("key").to_pylist()
    stray = stray.set_column(0, "key", pa.array([f"{key}-left-by-a-kill" for key in keys]))
    pq.write_table(stray, listed.with_name("part-0123456789abcdef.parquet"))
    assert rows(target) == merge.old
    export(target)  # and the next export removes it
    assert_clean(target, merge)


def test_a_merge_while_an_export_is_read_gives_the_new_rows(
    tmp_path: Path, merge: Merge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader's files vanish under it (the merge removed them): it reads the new export."""
    target = earlier(tmp_path, merge)
    real = parquet_in.read_table_file
    merged: list[bool] = []

    def read_while_merging(file: Path, data: bytes | None = None) -> object:
        if not merged:
            merged.append(True)
            export(target)
        return real(file, data)

    monkeypatch.setattr(parquet_in, "read_table_file", read_while_merging)
    assert rows(target) == merge.new


def test_an_export_written_before_manifests_listed_files_is_read_and_merged(
    tmp_path: Path, merge: Merge
) -> None:
    """Older exports (`part-0.parquet`, a manifest without `files`) still read and merge."""
    target = earlier(tmp_path, merge)
    manifest = json.loads((target / "sniff-export.json").read_text())
    del manifest["files"]
    manifest["version"] = 1
    (target / "sniff-export.json").write_text(json.dumps(manifest))
    for file in target.rglob("*.parquet"):
        file.rename(file.with_name("part-0.parquet"))
    assert rows(target) == merge.old
    export(target)
    assert_clean(target, merge)
