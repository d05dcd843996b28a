"""sniff's change-point solver against its oracle, `ruptures` (KernelCPD, linear kernel, PELT):
the same cuts on hundreds of seeded signals, in batches of mixed lengths, and the edge cases.
And the reason it exists: a drift run imports neither ruptures nor scipy."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import ruptures

from sniff.analyses.drift.segmentation import segment

ROOT = Path(__file__).resolve().parents[2]


def oracle(values: list[float], penalty: float, min_size: int) -> list[int]:
    """What `sniff drift` computed before it had its own solver."""
    if len(values) < 2 * min_size:
        return []  # ruptures refuses a signal with no room for a cut
    solver = ruptures.KernelCPD(kernel="linear", min_size=min_size, jump=1)
    ends = solver.fit(np.asarray(values, dtype=float).reshape(-1, 1)).predict(pen=penalty)
    return [int(end) for end in ends if end < len(values)]


def random_signal(rng: random.Random, min_size: int) -> list[float]:
    """Steps of random sizes at random places, under one of several noise levels; or a
    constant; or a few repeated levels (ties between equally good cuts)."""
    length = rng.randint(2 * min_size - 1, 400 if rng.random() < 0.15 else 60)
    kind = rng.random()
    if kind < 0.1:
        return [rng.uniform(-2, 2)] * length
    if kind < 0.2:
        levels = [0.0, 0.5, 1.0, 0.1]
        return [rng.choice(levels) for _ in range(length)]
    noise = rng.choice([0.0, 0.01, 0.2, 1.0, 5.0])
    level, made = rng.uniform(-10, 10), []
    for _ in range(length):
        if rng.random() < 0.06:
            level += rng.choice([-1, 1]) * rng.uniform(0.1, 8)
        made.append(level + rng.gauss(0, noise))
    return made


@pytest.mark.parametrize("min_size", [1, 2, 3, 4, 5])
def test_the_same_cuts_as_ruptures_on_seeded_signals(min_size: int) -> None:
    rng = random.Random(22 + min_size)
    signals = [random_signal(rng, min_size) for _ in range(80)]
    penalties = [rng.choice([1e-4, 0.05, 1.0, 4.0, 30.0, 1e3, 1e6]) for _ in signals]
    got = segment(signals, penalties, min_size)
    want = [oracle(x, penalty, min_size) for x, penalty in zip(signals, penalties, strict=True)]
    assert got == want
    assert sum(map(len, want)) > 50  # the signals do have cuts to find


def test_the_same_cuts_as_ruptures_on_drift_like_rates() -> None:
    """Rates in [0, 1] with the drift penalty: `3 · σ² · ln n`, σ floored at 2.5 points."""
    rng = random.Random(7)
    signals, penalties = [], []
    for _ in range(60):
        length, level, values = rng.randint(6, 330), rng.uniform(0.5, 1.0), []
        for _ in range(length):
            level = min(max(level + (rng.uniform(-0.3, 0.3) if rng.random() < 0.03 else 0), 0), 1)
            values.append(min(max(level + rng.gauss(0, 0.03), 0.0), 1.0))
        signals.append(values)
        penalties.append(3 * max(rng.uniform(0, 0.05), 0.025) ** 2 * np.log(length))
    want = [oracle(x, p, 3) for x, p in zip(signals, penalties, strict=True)]
    assert segment(signals, penalties, 3) == want


def test_ties_fall_as_in_ruptures() -> None:
    """A bump in the middle: cutting before it or after it costs the same. Exactly, in whole
    numbers (the earliest start wins); or up to the rounding of the sums, in tenths (the
    rounding decides, and the same sums in the same order decide the same way)."""
    bump = [0.0, 0.0, 0.0, 5.0, 0.0, 0.0, 0.0]
    assert segment([bump], [1e-3], 3) == [oracle(bump, 1e-3, 3)] == [[3]]
    tenths = [0.1, 0.1, 0.1, 0.3, 0.1, 0.1, 0.1]
    assert segment([tenths], [1e-3], 3) == [oracle(tenths, 1e-3, 3)] == [[4]]


def test_a_signal_too_short_for_two_segments_is_not_cut() -> None:
    assert segment([[0.0, 0.0, 9.0, 9.0, 9.0]], [1e-6], 3) == [[]]  # 2·3 − 1 values
    assert segment([[0.0, 0.0, 0.0, 9.0, 9.0, 9.0]], [1e-6], 3) == [[3]]  # room for one
    assert segment([[], [5.0]], [1.0, 1.0], 1) == [[], []]


def test_a_constant_signal_is_not_cut() -> None:
    constant = [0.37] * 200
    assert segment([constant, constant], [1e-9, 1e3], 1) == [[], []]


def test_one_clean_step_is_found_where_it_is() -> None:
    values = [0.95] * 40 + [0.70] * 25
    assert segment([values], [0.01], 3) == [[40]]
    noisy = [v + 0.01 * ((i * 7919) % 13 - 6) / 6 for i, v in enumerate(values)]
    assert segment([noisy], [3 * 0.025**2 * np.log(len(noisy))], 3) == [[40]]


def test_no_segment_is_shorter_than_min_size() -> None:
    rng = random.Random(3)
    for min_size in (2, 4):
        signals = [[rng.gauss(0, 1) for _ in range(50)] for _ in range(30)]
        for values, cuts in zip(signals, segment(signals, [0.01] * 30, min_size), strict=True):
            bounds = [0, *cuts, len(values)]
            assert cuts and min(b - a for a, b in zip(bounds, bounds[1:], strict=False)) >= min_size


def test_a_batch_of_mixed_lengths_gives_what_each_alone_gives() -> None:
    rng = random.Random(11)
    signals = [random_signal(rng, 3) for _ in range(40)]
    rng.shuffle(signals)
    penalties = [rng.choice([0.1, 2.0, 50.0]) for _ in signals]
    alone = [segment([x], [p], 3)[0] for x, p in zip(signals, penalties, strict=True)]
    assert len({len(x) for x in signals}) > 20
    assert segment(signals, penalties, 3) == alone
    assert segment([], [], 3) == []


@pytest.mark.parametrize(
    ("signals", "penalties", "min_size"),
    [([[1.0] * 8], [1.0, 2.0], 2), ([[1.0] * 8], [0.0], 2), ([[1.0] * 8], [1.0], 0),
     ([[1.0, float("nan")] * 4], [1.0], 2)],
)  # fmt: skip
def test_bad_arguments_are_refused(
    signals: list[list[float]], penalties: list[float], min_size: int
) -> None:
    with pytest.raises(ValueError):
        segment(signals, penalties, min_size)


PROBE = """\
import json, sys
import sniff.analyses.drift.points
after_import = sorted(sys.modules)
from tests.drift_archive import plant
from pathlib import Path
import sniff.cli
folder = plant(Path(sys.argv[1]))
try:
    sniff.cli.main(["drift", "--json", "--tz", "UTC", str(folder)])
except SystemExit as exit:
    assert not exit.code, exit.code
print(json.dumps({"after_import": after_import, "after_run": sorted(sys.modules)}))
"""


def test_a_drift_run_imports_neither_ruptures_nor_scipy(tmp_path: Path) -> None:
    env = {**os.environ, "SNIFF_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    *output, last = result.stdout.splitlines()
    loaded = json.loads(last)
    report = json.loads("\n".join(output))
    assert len(report["events"]) == 1  # the run did find the planted change
    assert "sniff.analyses.drift.segmentation" in loaded["after_run"]
    for modules in (loaded["after_import"], loaded["after_run"]):
        assert {name.split(".")[0] for name in modules} & {"ruptures", "scipy"} == set()
