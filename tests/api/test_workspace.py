"""`sniff.Workspace`: typed frames, options checked as the command line checks them, answers
read once and kept, and an `import sniff` that stays light."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import sniff
from sniff import Workspace
from sniff.errors import UserError
from tests.conftest import REPO, SAMPLE_LOGS

PROJECTS = SAMPLE_LOGS / "claude-code" / "projects"


def test_times_are_aware_in_the_workspaces_zone_and_labels_are_categories() -> None:
    workspace = Workspace(SAMPLE_LOGS, tz="Europe/Paris")
    frames = {
        "requests": workspace.requests(),
        "sessions": workspace.sessions(),
        "breaks": workspace.breaks(),
        "tools": workspace.tools(),
    }
    times = {
        "requests": ["started_at", "first_token_at", "ended_at", "visible_at"],
        "sessions": ["start", "end"],
        "breaks": [],
        "tools": ["at"],
    }
    labels = {
        "requests": ["source", "provider", "model", "project", "agent", "machine", "user"],
        "sessions": ["project"],
        "breaks": ["cause"],
        "tools": ["project", "tool", "server", "outcome", "error_class"],
    }
    for name, frame in frames.items():
        assert len(frame) > 0, name
        found = [c for c in frame.columns if isinstance(frame[c].dtype, pd.DatetimeTZDtype)]
        assert found == times[name]
        assert all(str(frame[c].dt.tz) == "Europe/Paris" for c in found)
        categorical = [c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype)]
        assert categorical == labels[name]
    requests = frames["requests"]
    assert requests["agent"].cat.categories.tolist() == sorted(set(requests["agent"]))
    for column in ["input_tokens", "cache_read_tokens", "output_tokens", "line"]:
        assert requests[column].dtype == "int64"
    assert requests["cost_usd"].dtype == "float64"
    in_utc = Workspace(SAMPLE_LOGS, tz="UTC").requests()
    assert str(in_utc["ended_at"].dt.tz) == "UTC"
    assert (in_utc["ended_at"] == requests["ended_at"]).all()  # the same instants


def test_the_usual_folders_and_a_tilde_path_are_read_as_the_command_line_reads_them() -> None:
    shutil.copytree(PROJECTS, Path.home() / ".claude" / "projects")
    named = Workspace("~/.claude/projects", tz="UTC")
    assert named.paths == [Path.home() / ".claude" / "projects"]
    usual = Workspace(tz="UTC")
    assert usual.summary()["totals"] == named.summary()["totals"]
    assert usual.summary()["totals"] == Workspace(PROJECTS, tz="UTC").summary()["totals"]
    assert not usual.summary()["source"]["sample_logs"]


def test_several_paths_read_as_one() -> None:
    folders = sorted(PROJECTS.iterdir())[:2]
    both = Workspace(folders, tz="UTC").requests()
    one_by_one = [Workspace(folder, tz="UTC").requests() for folder in folders]
    assert len(both) == sum(len(frame) for frame in one_by_one) > 0


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"agent": "robot"}, "--agent must be one of main, subagent, compaction, other"),
        ({"log_format": "csv"}, "--log-format must be one of"),
        ({"tz": "Mars/Olympus"}, "unknown time zone 'Mars/Olympus'"),
        ({"since": "yesterday"}, "not a date or ISO date-time: 'yesterday'"),
        ({"since": "2026-02-01", "until": "2026-01-01"}, "is not before --until"),
    ],
)
def test_a_bad_option_is_refused_before_any_log_is_read(
    options: dict[str, str], said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sniff.logs.load", _never)
    with pytest.raises(UserError, match=said.replace("(", r"\(")):
        Workspace(SAMPLE_LOGS, **options)  # type: ignore[arg-type]


def _never(*_: object, **__: object) -> None:
    raise AssertionError("logs were read")


def test_a_missing_path_is_an_error_when_an_answer_first_needs_it(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "nowhere")
    with pytest.raises(UserError, match="nowhere"):
        workspace.requests()


@pytest.mark.parametrize("use_index", [True, False])
def test_every_answer_reads_the_logs_once(use_index: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from sniff import logs

    reads: list[object] = []

    def counted(*arguments: object, **options: object) -> object:
        reads.append(options.get("with_prompts"))
        return load(*arguments, **options)

    load = logs.load
    monkeypatch.setattr(logs, "load", counted)
    workspace = Workspace(SAMPLE_LOGS, tz="UTC", use_index=use_index)
    first = [workspace.breaks(), workspace.requests(), workspace.tools(), workspace.sessions()]
    again = [workspace.breaks(), workspace.requests(), workspace.tools(), workspace.sessions()]
    for before, after in zip(first, again, strict=True):
        pd.testing.assert_frame_equal(before, after)
    assert workspace.summary() == workspace.summary()
    assert workspace.dataset() is workspace.dataset("sized")
    assert reads == ["sized"]  # with the index, the scan reads kept parts, not the dataset


def test_requests_read_without_prompts_are_those_read_with_them() -> None:
    plain = Workspace(SAMPLE_LOGS, tz="UTC")
    sized = Workspace(SAMPLE_LOGS, tz="UTC")
    sized.dataset("sized")
    pd.testing.assert_frame_equal(plain.requests(), sized.requests())
    pd.testing.assert_frame_equal(plain.tools(), sized.tools())


def test_the_index_changes_no_frame() -> None:
    for frame in ("requests", "sessions", "breaks", "tools"):
        indexed = getattr(Workspace(SAMPLE_LOGS, tz="UTC"), frame)()
        whole = getattr(Workspace(SAMPLE_LOGS, tz="UTC", use_index=False), frame)()
        pd.testing.assert_frame_equal(indexed, whole)


def test_empty_logs_give_empty_frames_with_their_columns(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "empty.jsonl").write_text("")
    workspace = Workspace(tmp_path / "logs", log_format="claude-code")
    frame = workspace.requests()
    assert len(frame) == 0
    assert "cost_usd" in frame.columns and isinstance(frame["ended_at"].dtype, pd.DatetimeTZDtype)


def test_import_sniff_stays_light_until_a_frame_is_asked_for() -> None:
    probe = f"""
import json, sys
import sniff
light = sorted(sys.modules)
workspace = sniff.Workspace({str(PROJECTS)!r}, tz="UTC")
workspace.summary()
answered = sorted(sys.modules)
workspace.requests()
print(json.dumps([light, answered, sorted(sys.modules)]))
"""
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert result.returncode == 0, result.stderr
    light, answered, framed = (
        {name.split(".")[0] for name in names}
        for names in json.loads(result.stdout.splitlines()[-1])
    )
    heavy = {"pandas", "pyarrow", "textual", "scipy", "typer", "rich"}
    assert light & (heavy | {"msgspec", "orjson"}) == set()
    assert answered & heavy == set()
    assert {"pandas", "pyarrow"} <= framed


def test_sniff_load_is_the_dataset_the_workspace_reads() -> None:
    dataset = sniff.load([SAMPLE_LOGS])
    assert dataset.requests == Workspace(SAMPLE_LOGS).dataset().requests


def test_the_readmes_notebook_example_runs_and_agrees_with_the_scan() -> None:
    """The example of the Python API page (docs/python-api.md), run on the sample logs."""
    section = (REPO / "docs" / "python-api.md").read_text()
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```\n")].replace('"~/.claude/projects"', repr(str(SAMPLE_LOGS)))
    names: dict[str, object] = {}
    exec(compile(code, "docs/python-api.md", "exec"), names)
    per_day, hit_rate, dearest = names["per_day"], names["hit_rate"], names["dearest"]
    assert isinstance(per_day, pd.DataFrame)
    assert isinstance(hit_rate, pd.Series)
    assert isinstance(dearest, pd.DataFrame)
    by_day = Workspace(SAMPLE_LOGS, tz="Europe/Paris").summary()["by_day"]
    days = per_day.sum(axis=1, min_count=1).dropna()
    scanned = {row["day"]: row["cost_usd"] for row in by_day if row["cost_usd"] is not None}
    assert {str(day): cost for day, cost in days.items()} == pytest.approx(scanned, abs=1e-6)
    assert len(hit_rate) > 0 and hit_rate.between(0, 1).all()
    assert len(dearest) == 5 and dearest["cost_usd"].is_monotonic_decreasing
    assert set(dearest.columns) == {"ended_at", "project", "model", "cause", "cost_usd", "detail"}


def test_the_cache_report_is_what_sniff_cache_prints_and_refuses_what_it_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from sniff.cli import app
    from sniff.present.terminal.cache import cache_json

    monkeypatch.setenv("SNIFF_CACHE_DIR", str(tmp_path))
    workspace = Workspace(SAMPLE_LOGS, tz="UTC")
    for options, flags in [
        ({}, []),
        ({"policy": "anthropic", "ttl": "1h"}, ["--policy", "anthropic", "--ttl", "1h"]),
        ({"min_tokens": 2048}, ["--min-tokens", "2048"]),
    ]:
        printed = CliRunner().invoke(
            app, ["cache", "--json", "--tz", "UTC", *flags, str(SAMPLE_LOGS)]
        )
        assert printed.exit_code == 0, printed.output
        report = workspace.cache_report(**options)  # type: ignore[arg-type]
        assert json.loads(printed.stdout) == json.loads(json.dumps(cache_json(report)))
        assert workspace.cache_report(**options) is report  # type: ignore[arg-type]
    for options, message in [
        ({"policy": "nope"}, "--policy must be one of anthropic, openai, ideal, engine"),
        ({"ttl": "2h"}, "--ttl must be 5m or 1h"),
        ({"policy": "openai", "ttl": "1h"}, "cannot apply to the openai policy"),
    ]:
        with pytest.raises(UserError, match=message):
            Workspace(tmp_path / "nothing here").cache_report(**options)  # type: ignore[arg-type]


def test_the_agents_report_is_what_sniff_agents_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from sniff.cli import app
    from sniff.present.terminal.agents import agents_json

    monkeypatch.setenv("SNIFF_CACHE_DIR", str(tmp_path))
    printed = CliRunner().invoke(
        app, ["agents", "--json", "--tz", "UTC", "--since", "2025-01-01", str(SAMPLE_LOGS)]
    )
    assert printed.exit_code == 0, printed.output
    report = Workspace(SAMPLE_LOGS, tz="UTC", since="2025-01-01").agents_report()
    assert json.loads(printed.stdout) == json.loads(json.dumps(agents_json(report, None)))
    assert report.tools  # the sample logs call tools


def test_the_report_is_what_sniff_report_writes_and_refuses_what_it_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from sniff.cli import app
    from sniff.present.report.data import report_json

    monkeypatch.setenv("SNIFF_CACHE_DIR", str(tmp_path))
    workspace = Workspace(SAMPLE_LOGS, tz="UTC")
    for by, redact in [("project", False), ("week", True)]:
        flags = ["--by", by, *(["--redact"] if redact else [])]
        printed = CliRunner().invoke(
            app, ["report", "-f", "json", "--tz", "UTC", *flags, str(SAMPLE_LOGS)]
        )
        assert printed.exit_code == 0, printed.output
        report = workspace.report(by, redact=redact)
        assert json.loads(printed.stdout) == json.loads(json.dumps(report_json(report)))
    assert report.lint  # what lint finds in the logs' prompts
    with pytest.raises(UserError, match="--by must be one of"):
        Workspace(tmp_path / "nothing here").report("year")


@pytest.mark.parametrize("use_index", [True, False])
def test_batches_grow_to_the_dataset_parsing_only_what_the_index_lacks(
    use_index: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sniff.workspace import batches as module

    monkeypatch.setattr(module, "FIRST_BATCH_BYTES", 1)  # one file, then the rest in parts
    monkeypatch.setattr(module, "BATCH_BYTES", 20_000)
    keys = sorted(r.key for r in Workspace(SAMPLE_LOGS, use_index=False).dataset("sized").requests)
    workspace = Workspace(SAMPLE_LOGS, use_index=use_index)
    parts = list(workspace.batches())
    files = parts[-1].files_total  # the JSON prompt files beside the logs are looked at too
    assert len(parts) > 2 if use_index else len(parts) == 1  # without it: one part, no rereads
    assert [part.files_read for part in parts] == sorted({part.files_read for part in parts})
    assert parts[-1].done and parts[-1].changed == files
    assert sorted(r.key for r in parts[-1].dataset.requests) == keys
    [*_, again] = workspace.batches()
    assert again.changed == (0 if use_index else files)
    index = list(Path(os.environ["SNIFF_CACHE_DIR"]).glob("index.*"))
    assert bool(index) == use_index
