"""Start-up stays light: the CLI and its help never import the heavy optional libraries.

pandas, textual, scipy and tiktoken belong to features that load them on demand, and the price
library only loads when prices are needed. Checked in a fresh interpreter, since this test
process may have imported anything. (That only the TUI imports Textual, and only the CLI typer,
is an import contract: tests/test_layers.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pandas", "textual", "scipy", "tiktoken", "genai_prices")

PROBE = """\
import json, sys
import sniff.cli
after_import = sorted(sys.modules)
try:
    sniff.cli.main({args!r})
except SystemExit as exit:
    code = exit.code
print(json.dumps({{"code": code, "after_import": after_import, "after_run": sorted(sys.modules)}}))
"""


def _modules_loaded(args: list[str]) -> dict[str, object]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    data: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return data


def _heavy(modules: object) -> list[str]:
    assert isinstance(modules, list)
    return sorted({name.split(".")[0] for name in modules} & set(HEAVY))


@pytest.mark.parametrize(
    "args", [["--help"], ["scan", "--help"], ["sessions", "--help"], ["tui", "--help"]]
)
def test_cli_and_help_import_nothing_heavy(args):
    loaded = _modules_loaded(args)
    assert loaded["code"] == 0
    assert "sniff.cli" in loaded["after_import"]  # the probe saw the real import
    assert _heavy(loaded["after_import"]) == []
    assert _heavy(loaded["after_run"]) == []


@pytest.mark.parametrize("command", ["scan", "sessions", "drift", "daily"])
def test_json_output_never_imports_the_terminal_renderer(command: str) -> None:
    loaded = _modules_loaded([command, "--json", str(ROOT / "sample_logs"), "--no-index"])
    assert loaded["code"] == 0
    modules = loaded["after_run"]
    assert isinstance(modules, list)
    assert {name.split(".")[0] for name in modules} & {"rich", "ruptures", "scipy"} == set()


@pytest.mark.parametrize("output_format", ["csv", "json", "md", "html"])
def test_a_report_imports_neither_matplotlib_nor_scipy(output_format: str, tmp_path: Path) -> None:
    """A report waits for no plotting or peak-finding library: its charts are SVG it draws
    itself, and its latency is percentiles per model (the peaks are `sniff latency`'s)."""
    target = tmp_path / f"report.{output_format}"
    args = ["report", "sample_logs", "--no-index", "-f", output_format, "-o", str(target)]
    loaded = _modules_loaded(args)
    assert loaded["code"] in (0, None) and target.stat().st_size > 1000
    roots = {name.split(".")[0] for name in loaded["after_run"]}  # type: ignore[union-attr]
    assert roots & {"matplotlib", "scipy"} == set()
    assert "sniff.analyses.report" in loaded["after_run"]  # type: ignore[operator]
