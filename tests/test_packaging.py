"""A non-editable install carries the sample logs, so a first run always has something to show."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {result.stderr.strip()[-300:]}")
    return next(out.glob("sniff-*.whl"))


def test_wheel_holds_every_sample_log(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    samples = [p for p in (ROOT / "sample_logs").rglob("*") if p.is_file()]
    assert samples
    for sample in samples:
        assert f"sniff/sample_logs/{sample.relative_to(ROOT / 'sample_logs').as_posix()}" in names


def test_wheel_has_the_console_script(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    entry_points = next(n for n in archive.namelist() if n.endswith("entry_points.txt"))
    assert "sniff = sniff.cli:main" in archive.read(entry_points).decode()


def test_installed_package_finds_its_bundled_samples(wheel: Path, tmp_path: Path) -> None:
    """Unpacked like site-packages, `bundled_samples()` points inside the package."""
    zipfile.ZipFile(wheel).extractall(tmp_path)
    code = (
        "from sniff.ingest.files.discover import bundled_samples; "
        "p = bundled_samples(); print(p); assert p.is_dir(), p; "
        "assert any(p.rglob('*.jsonl'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert str(tmp_path) in result.stdout
