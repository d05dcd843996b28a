"""Drift parts: the parts of units of logs joined give the drift of all their requests, and
`sniff drift` through the index (parts kept, only changed units analysed again) prints what it
prints without it."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sniff.analyses.cache.breaks import CacheRules, break_part
from sniff.analyses.drift.part import (
    decode_drift_part,
    drift_part,
    encode_drift_part,
    join_parts,
)
from sniff.analyses.drift.report import drift_of
from sniff.analyses.drift.series import break_key
from sniff.cli import app
from sniff.logs import load
from sniff.model import Request
from sniff.present.json.drift import drift_json
from sniff.pricing import PriceBook
from tests.conftest import SAMPLE_LOGS
from tests.drift_archive import plant
from tests.unit.test_scan_parts import independent

runner = CliRunner()


def alike(first: Any, second: Any, path: str = "") -> None:
    """Equal, floats to 12 significant digits (sums added in another order)."""
    if isinstance(first, float) and isinstance(second, float):
        assert math.isclose(first, second, rel_tol=1e-12, abs_tol=1e-15), path
    elif isinstance(first, dict) and isinstance(second, dict):
        assert first.keys() == second.keys(), path
        for key in first:
            alike(first[key], second[key], f"{path}.{key}")
    elif isinstance(first, list) and isinstance(second, list):
        assert len(first) == len(second), path
        for index, (one, other) in enumerate(zip(first, second, strict=True)):
            alike(one, other, f"{path}[{index}]")
    else:
        assert first == second, path


def causes_of(requests: list[Request], prices: PriceBook) -> dict[str, str]:
    found = break_part(requests, prices, CacheRules(), lambda _: True, advise_ttl=False).breaks
    return {break_key(each.request): each.cause for each in found if each.fault}


@pytest.mark.parametrize("by", ["day", "week"])
def test_parts_of_units_joined_equal_the_drift_of_everything(by: str) -> None:
    prices = PriceBook()
    dataset = load([SAMPLE_LOGS], prices, use_index=False, with_prompts="sized")
    requests = list(dataset.requests)
    calls = dataset.activity.calls
    whole = drift_part(requests, causes_of(requests, prices), calls, UTC, by)
    groups = independent(requests)
    assert len(groups) > 5
    parts = []
    for unit in groups:
        sessions = {request.session_id for request in unit}
        own = [call for call in calls if call.session_id in sessions]
        part = drift_part(unit, causes_of(unit, prices), own, UTC, by)
        parts.append(decode_drift_part(encode_drift_part(part)))  # as the index keeps it
    random.Random(3).shuffle(parts)  # parts come back in any order

    joined = join_parts([part for part in parts if part is not None], by)

    assert joined.requests == whole.requests > 100
    assert (joined.first_seen, joined.system) == (whole.first_seen, whole.system)
    assert joined.tools_first == whole.tools_first
    alike(drift_json(drift_of(joined, UTC), ()), drift_json(drift_of(whole, UTC), ()))


def test_a_part_by_weeks_is_not_joined_to_parts_by_days() -> None:
    with pytest.raises(ValueError, match="week"):
        join_parts([drift_part([], {}, (), UTC, "week")], "day")
    assert decode_drift_part(b"not a part") is None


@pytest.fixture
def analysed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many units each drift run analysed (rather than took from the index)."""
    from sniff.workspace import drift_units

    counts: list[int] = []
    real = drift_units.drift_part

    def counting(*args: Any, **kwargs: Any) -> Any:
        counts[-1] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(drift_units, "drift_part", counting)
    return counts


def planted(folder: Path) -> Path:
    """The planted archive, its files written long enough ago to be trusted (`RACY_NS`)."""
    plant(folder)
    moment = time.time_ns() - 86_400 * 10**9
    for path in folder.rglob("*.jsonl"):
        os.utime(path, ns=(moment, moment))
    return folder


def drift(folder: Path, *options: str) -> dict[str, Any]:
    result = runner.invoke(app, ["drift", "--json", str(folder), "--tz", "UTC", *options])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_drift_through_the_index_analyses_only_what_changed(
    tmp_path: Path, analysed: list[int]
) -> None:
    folder = planted(tmp_path / "planted")
    files = sorted(folder.rglob("*.jsonl"))
    without = drift(folder, "--no-index")
    runs = []
    for _ in range(2):
        analysed.append(0)
        runs.append(drift(folder))
    assert analysed[0] >= len(files) // 2 > 0  # (subagents' files share their session's unit)
    assert analysed[1] == 0
    alike(runs[0], without)
    assert runs[1] == runs[0]
    assert len(runs[0]["events"]) == 1

    files[0].unlink()  # one unit fewer: the others are taken from the index
    analysed.append(0)
    fewer = drift(folder)
    assert analysed[-1] == 0
    assert fewer["requests"] < runs[0]["requests"]
    alike(fewer, drift(folder, "--no-index"))
    analysed.append(0)
    assert drift(folder, "--by", "week")["by"] == "week"
    assert analysed[-1] > 0  # weeks are other parts


def test_a_copied_folder_keeps_its_own_parts(tmp_path: Path, analysed: list[int]) -> None:
    folder = planted(tmp_path / "planted")
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    for path in sorted(copy.rglob("*.jsonl"))[:3]:
        path.unlink()
    analysed.append(0)
    first = drift(folder)
    analysed.append(0)
    other = drift(copy)
    assert other["requests"] < first["requests"]
    analysed.append(0)
    assert drift(folder) == first
    assert analysed[-1] == 0
