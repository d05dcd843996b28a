"""The layers hold: pyproject.toml's import-linter contracts, checked on every test run.

Why in the suite: CI runs the suite, so an import that runs a layer backwards (ingest reaching
up into the analyses, lint into the front ends' way of reading logs, typer or textual outside
the front ends) fails there, with import-linter's account of the chain that breaks it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
CHECK = "from importlinter.cli import lint_imports; raise SystemExit(lint_imports(no_cache=True))"


def test_the_import_contracts_are_kept() -> None:
    # a fresh interpreter in the checkout: the contracts are read from its pyproject.toml
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_two_modules_import_each_other_even_through_others() -> None:
    """No import cycle between modules of sniff (imports made only for type checking aside): a
    strongly connected component of the import graph holds one module."""
    graph = grimp.build_graph("sniff", exclude_type_checking_imports=True)
    assert [sorted(found) for found in _cycles(graph)] == []


def _cycles(graph: grimp.ImportGraph) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's, iteratively)."""
    imported = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(imported):
        if root in index:
            continue
        work = [(root, iter(sorted(imported[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(imported[target]))))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == module:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_folder_of_sniff_holds_more_than_twenty_modules() -> None:
    """A room a newcomer can take in at a glance; new inputs and commands get room to land."""
    crowded = {
        str(folder.relative_to(ROOT)): count
        for folder in (ROOT / "sniff").rglob("*")
        if folder.is_dir() and (count := len(list(folder.glob("*.py")))) > 20
    }
    assert crowded == {}
