"""Reads the independent counts of the shared samples: `samples/EXPECTED.md` (Claude Code and
Codex tables) and `agent-samples/EXPECTED.md` (one row per agent, then one line per model).

Why parse the Markdown and not copy its numbers here: the benchmark's expected totals must be
those counts times the copies, and stay so if the counts are ever corrected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

NUMBER = re.compile(r"\d[\d,]*")


@dataclass(frozen=True)
class Figures:
    """One sample's (or a corpus's) requests and tokens in sniff's disjoint classes."""

    requests: int = 0
    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0

    def __add__(self, other: Figures) -> Figures:
        return Figures(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def times(self, copies: int) -> Figures:
        return Figures(*(getattr(self, f.name) * copies for f in fields(self)))

    def as_json(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass
class Expected:
    """Rows by name: `claude-code:<folder>`, `codex:<folder>`, and each agent's name as in
    agent-samples/EXPECTED.md (`pi-agent`, `gemini-cli`, ...)."""

    rows: dict[str, Figures] = field(default_factory=dict)
    by_model: dict[str, dict[str, Figures]] = field(default_factory=dict)

    def __getitem__(self, row: str) -> Figures:
        return self.rows[row]

    def models(self, row: str) -> dict[str, Figures]:
        """The row's per-model figures (none are given for Claude Code and Codex folders)."""
        return self.by_model.get(row, {})


def leading(cell: str) -> int:
    """A cell's first number (`206,624 (TTL not in log)` → 206624)."""
    found = NUMBER.search(cell)
    return int(found.group(0).replace(",", "")) if found else 0


def read_expected(shared: Path) -> Expected:
    """Both files' rows."""
    expected = Expected()
    _samples(expected, (shared / "samples" / "EXPECTED.md").read_text(encoding="utf-8"))
    _agents(expected, (shared / "agent-samples" / "EXPECTED.md").read_text(encoding="utf-8"))
    return expected


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _samples(expected: Expected, text: str) -> None:
    """Claude Code rows: responses, input, cache read, cache write, output. Codex rows:
    responses, input, cache read, output `(of which reasoning)`. Rows whose first cell is not
    a folder (a one-day subset) are left out."""
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = "claude-code" if "Claude Code" in line else "codex" if "Codex" in line else ""
        cells = _cells(line)
        if not section or not line.startswith("| `") or len(cells) < 5:
            continue
        folder = cells[0].strip("`").split("/", 1)[0]
        numbers = [leading(cell) for cell in cells[1:]]
        if section == "claude-code":
            figures = Figures(*numbers[:5])
        else:
            reasoning = re.search(r"\((\d[\d,]*)\)", cells[4])
            of_which = int(reasoning.group(1).replace(",", "")) if reasoning else 0
            figures = Figures(numbers[0], numbers[1], numbers[2], 0, numbers[3], of_which)
        expected.rows[f"{section}:{folder}"] = figures


def _agents(expected: Expected, text: str) -> None:
    """`| agent | requests | input | cache read | cache write | output | reasoning | sessions |`
    and `- agent / `model`: N requests, input N, cache read N, cache write N, output N,
    reasoning N`."""
    for line in text.splitlines():
        cells = _cells(line)
        if line.startswith("| ") and len(cells) == 8 and cells[1][:1].isdigit():
            expected.rows[cells[0]] = Figures(*(leading(cell) for cell in cells[1:7]))
        elif line.startswith("- ") and " / `" in line and "requests, input" in line:
            agent, rest = line[2:].split(" / `", 1)
            model, numbers = rest.split("`: ", 1)
            values = [int(n.replace(",", "")) for n in NUMBER.findall(numbers)]
            expected.by_model.setdefault(agent, {})[model] = Figures(*values[:6])


def as_json(figures: dict[str, Figures]) -> dict[str, Any]:
    return {name: value.as_json() for name, value in sorted(figures.items())}
