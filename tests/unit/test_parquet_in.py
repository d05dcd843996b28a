"""Export folders as input: `sniff export` on each machine, `sniff scan` of the exports centrally
gives the numbers of a scan of the logs, and exports that overlap count nothing twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.export.writer import MANIFEST
from sniff.ingest import parquet_in
from sniff.ingest.files.discover import expand
from sniff.ingest.files.log_formats import parse_any
from tests.conftest import REPO, SAMPLE_LOGS

runner = CliRunner()
COMPARED = ("totals", "by_model", "by_project", "by_day", "sessions")
"""What a scan of an export must give as the scan of the logs did (warnings, the files read and
breaks may differ: an export holds no skipped lines and no prompts)."""


def export(target: Path, *paths: Path) -> Path:
    result = runner.invoke(app, ["export", *map(str, paths), "-o", str(target)])
    assert result.exit_code == 0, result.output
    return target


def scan(*paths: Path, no_index: bool = False) -> dict[str, Any]:
    args = ["scan", "--json", "--tz", "UTC", *map(str, paths)]
    result = runner.invoke(app, [*args, "--no-index"] if no_index else args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def numbers(report: dict[str, Any]) -> dict[str, Any]:
    return {name: report[name] for name in COMPARED}


@pytest.fixture(scope="module")
def logs_scan() -> dict[str, Any]:
    return numbers(scan(SAMPLE_LOGS, no_index=True))


def part_files(target: Path) -> list[Path]:
    return sorted((target / "requests").rglob("*.parquet"))


def backdate(target: Path, seconds: float) -> None:
    """Every file and folder of an export as modified `seconds` ago (settled, not racy)."""
    moment = os.path.getmtime(target / MANIFEST) - seconds
    for path in [target, *target.rglob("*")]:
        os.utime(path, (moment, moment))


@pytest.mark.parametrize("no_index", [True, False])
def test_an_export_scans_to_the_numbers_of_its_logs(
    tmp_path: Path, logs_scan: dict[str, Any], no_index: bool
) -> None:
    out = export(tmp_path / "out", SAMPLE_LOGS)
    report = scan(out, no_index=no_index)
    assert numbers(report) == logs_scan
    assert report["totals"]["requests"] > 0
    assert report["source"]["formats"] == {"sniff-export": 1}
    assert report["source"]["files"] == 1
    assert report["warnings"]["unreadable_files"] == []


def test_the_requests_table_or_the_export_folder_read_alike(tmp_path: Path) -> None:
    out = export(tmp_path / "out", SAMPLE_LOGS)
    assert numbers(scan(out / "requests", no_index=True)) == numbers(scan(out, no_index=True))


def test_overlapping_exports_count_nothing_twice(tmp_path: Path, logs_scan: dict[str, Any]) -> None:
    central = tmp_path / "central"
    claude = export(central / "machine-a", SAMPLE_LOGS / "claude-code")
    everything = export(central / "machine-b", SAMPLE_LOGS)
    one = scan(claude, no_index=True)["totals"]["requests"]
    assert 0 < one < logs_scan["totals"]["requests"]
    assert numbers(scan(claude, everything, no_index=True)) == logs_scan
    assert numbers(scan(central, no_index=True)) == logs_scan
    assert numbers(scan(central)) == logs_scan  # through the index too
    assert numbers(scan(central, SAMPLE_LOGS, no_index=True)) == logs_scan  # logs and exports


def test_a_parent_folder_lists_each_export_once_and_its_logs_as_before(tmp_path: Path) -> None:
    central = tmp_path / "central"
    first = export(central / "a", SAMPLE_LOGS / "request-logs")
    second = export(central / "nested" / "b", SAMPLE_LOGS / "codex")
    log = central / "loose.jsonl"
    log.write_bytes((SAMPLE_LOGS / "request-logs" / "openai-chat.jsonl").read_bytes())
    found = [file.path for file in expand([central])]
    assert found == [str(log), str(first), str(second)]  # top-down, as before
    assert all(file.size > 0 and file.mtime_ns > 0 for file in expand([central]))
    assert [file.path for file in expand([first / "requests"])] == [str(first / "requests")]


def test_is_export(tmp_path: Path) -> None:
    out = export(tmp_path / "out", SAMPLE_LOGS / "request-logs")
    assert parquet_in.is_export(out)
    assert parquet_in.is_export(out / "requests")
    assert not parquet_in.is_export(out / "sessions")
    assert not parquet_in.is_export(out / MANIFEST)
    assert not parquet_in.is_export(tmp_path)
    assert parquet_in.MANIFEST == MANIFEST  # the writer's name for it, without importing pyarrow


def test_the_columns_read_are_the_ones_export_writes() -> None:
    from sniff.export.tables import REQUESTS

    assert set(parquet_in.COLUMNS) <= set(REQUESTS.names)
    assert tuple(name for name in REQUESTS.names if name.endswith("_tokens")) == parquet_in.TOKENS


def test_parse_any_reads_an_export_whatever_format_is_forced(tmp_path: Path) -> None:
    out = export(tmp_path / "out", SAMPLE_LOGS / "request-logs")
    result = parse_any(str(out), "", forced="claude-code")
    assert result.log_format == "sniff-export"
    assert result.issues == []
    assert len(result.responses) == pq.read_table(out / "requests").num_rows
    assert all(response.blocks == () for response in result.responses)  # not restored


def test_a_corrupt_parquet_file_is_one_issue_and_the_rest_counts(tmp_path: Path) -> None:
    out = export(tmp_path / "out", SAMPLE_LOGS)
    files = part_files(out)
    assert len(files) > 1
    whole = scan(out, no_index=True)["totals"]["requests"]
    broken = files[0]
    lost = pq.read_table(broken).num_rows
    broken.write_bytes(b"PAR1 this is not a parquet file")
    for no_index in (True, False):
        report = scan(out, no_index=no_index)
        assert report["totals"]["requests"] == whole - lost
        assert report["warnings"]["unreadable_files"] == [str(broken)]
    plain = runner.invoke(app, ["scan", str(out), "--no-index"], env={"COLUMNS": "200"})
    assert plain.exit_code == 0, plain.output
    assert "Traceback" not in plain.output
    [line] = [line for line in plain.output.splitlines() if str(broken.name) in line]
    assert line.startswith(f"sniff: {broken}: cannot read Parquet file")


def test_a_table_without_request_columns_is_reported(tmp_path: Path) -> None:
    out = export(tmp_path / "out", SAMPLE_LOGS / "request-logs")
    [first, *_] = part_files(out)
    table = pq.read_table(first)
    pq.write_table(table.drop_columns(["model"]), first)
    responses, issues = parquet_in.read_table_file(first)
    assert responses == []
    assert [(issue.line, "no column model" in issue.reason) for issue in issues] == [(0, True)]


def test_a_row_that_is_not_a_request_is_skipped_alone(tmp_path: Path) -> None:
    out = export(tmp_path / "out", SAMPLE_LOGS / "request-logs")
    [first, *_] = part_files(out)
    rows = pq.read_table(first).to_pylist()
    rows[0]["agent"] = "robot"
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(first)), first)
    responses, issues = parquet_in.read_table_file(first)
    assert len(responses) == len(rows) - 1
    assert [(issue.line, issue.kept) for issue in issues] == [(1, False)]
    assert "unknown agent" in issues[0].reason


def test_times_and_fields_come_back_exactly(tmp_path: Path) -> None:
    from sniff.logs import load

    logs = load([SAMPLE_LOGS], use_index=False)
    out = export(tmp_path / "out", SAMPLE_LOGS)
    again = load([out], use_index=False)
    keep = ("blocks",)  # the prompt is not restored; everything else is
    by_key = {request.key: request for request in again.requests}
    assert len(by_key) == len(logs.requests)
    for request in logs.requests:
        for field in request.__struct_fields__:
            if field not in keep:
                assert getattr(by_key[request.key], field) == getattr(request, field), field


def test_a_rewritten_export_is_read_again_not_replayed(tmp_path: Path) -> None:
    """The index and kept answers key an export on all its tables: a re-export is seen."""
    out = export(tmp_path / "out", SAMPLE_LOGS / "claude-code")
    backdate(out, 3600)
    first = scan(out)
    assert numbers(scan(out)) == numbers(first)  # from the index (or a kept answer)
    export(out, SAMPLE_LOGS)  # merged into: more requests
    backdate(out, 1800)
    assert numbers(scan(out)) == numbers(scan(SAMPLE_LOGS, no_index=True))
    assert scan(out)["totals"]["requests"] > first["totals"]["requests"]


def test_finding_exports_does_not_import_pyarrow() -> None:
    probe = (
        "import sys; from pathlib import Path; from sniff.ingest.files.discover import expand; "
        f"expand([Path({str(SAMPLE_LOGS)!r})]); print('pyarrow' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_an_export_older_than_the_visible_token_reads_without_it(tmp_path: Path) -> None:
    from sniff.export.tables import read_requests

    out = export(tmp_path / "out", SAMPLE_LOGS / "claude-code")
    files = part_files(out)
    assert any(pq.read_table(file).column("visible_at").null_count < 1 for file in files)
    for file in files:
        pq.write_table(pq.read_table(file).drop_columns(["visible_at", "thinking_share"]), file)
        responses, issues = parquet_in.read_table_file(file)
        assert issues == [] and responses
        assert all(r.visible_at is None and r.thinking_share is None for r in responses)
        requests = read_requests(pq.read_table(file), None)
        assert requests and all(r.visible_at is None and r.thinking_share is None for r in requests)
