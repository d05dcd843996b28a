"""The layers hold: pyproject.toml's import-linter contracts, checked on every test run.

Why in the suite: CI runs the suite, so an import that runs a layer backwards (ingest reaching
up into the analyses, lint into the front ends' way of reading logs, typer or textual outside
the front ends) fails there, with import-linter's account of the chain that breaks it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECK = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"


def test_the_import_contracts_are_kept() -> None:
    # a fresh interpreter in the checkout: the contracts are read from its pyproject.toml
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout
