"""Where the shared samples are is decided in `tests/conftest.py` alone.

A user's clone has no `../shared` beside it, so every test that reads the shared material must
skip there; that holds only while each module takes the paths (and `needs_shared`) from the
conftest, which also honours `SNIFF_TESTS_WITHOUT_SHARED=1` to run the suite as such a clone.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

TESTS = REPO / "tests"
VARIABLES = ("SNIFF_SHARED", "SNIFF_SHARED_SAMPLES", "SNIFF_TESTS_WITHOUT_SHARED")


def _own_shared_paths(path: Path) -> list[str]:
    """The places in a module that compute the shared folder themselves: `… / "shared"` or a
    read of one of the variables that name it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Div)
            and isinstance(node.right, ast.Constant)
            and node.right.value == "shared"
        ):
            found.append(f"{path.relative_to(REPO)}:{node.lineno}: / 'shared'")
        elif isinstance(node, ast.Constant) and node.value in VARIABLES:
            found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value}")
    return found


def test_no_test_module_finds_the_shared_samples_on_its_own() -> None:
    here = Path(__file__).resolve()
    modules = [p for p in TESTS.rglob("*.py") if p.name != "conftest.py" and p != here]
    assert modules
    assert [place for module in modules for place in _own_shared_paths(module)] == []


def test_without_shared_every_shared_folder_is_absent() -> None:
    # a process of its own: the paths are decided when the conftest is first imported
    code = (
        "from tests.conftest import SHARED, SHARED_SAMPLES, AGENT_SAMPLES\n"
        "print(*(p.exists() for p in (SHARED, SHARED_SAMPLES, AGENT_SAMPLES)))"
    )
    env = {**os.environ, "SNIFF_TESTS_WITHOUT_SHARED": "1", "SNIFF_SHARED": str(REPO.parent)}
    env["SNIFF_SHARED_SAMPLES"] = str(REPO / "sample_logs")  # present, yet overridden
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "False", "False"]
