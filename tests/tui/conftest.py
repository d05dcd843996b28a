"""Fixtures of the browser's tests: the sample archive read once, and apps built over it.

The apps get their data from the factory (`make_app(dataset)`), so the tests of screens read no
file; waiting is on the app's workers, never on a clock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import Any

import msgspec
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from sniff.findings import Finding
from sniff.ingest.record import Prompts
from sniff.lint import LintConfig, lint
from sniff.logs import load
from sniff.model import Dataset
from sniff.tui import SniffApp, make_app
from tests.conftest import REPO, SAMPLE_LOGS

ARCHIVE = [SAMPLE_LOGS / name for name in ("claude-code", "claude-trace", "codex", "request-logs")]
"""The sample logs of every format (not the linter's prompt samples)."""


@pytest.fixture(scope="session")
def archive_dataset() -> Dataset:
    """The sample logs, with prompts counted by the tokenizer.

    Paths are made relative to the repository (claude-trace names its project by the absolute
    folder it traced), so screenshots do not depend on where the repository is checked out.
    """
    dataset = load(list(ARCHIVE), with_prompts=Prompts.COUNTED)
    return msgspec.structs.replace(
        dataset,
        requests=tuple(
            msgspec.structs.replace(
                request, project=_relative(request.project), file=_relative(request.file)
            )
            for request in dataset.requests
        ),
        files=tuple(_relative(file) for file in dataset.files),
        roots=tuple(_relative(root) for root in dataset.roots),
    )


def _relative(path: str) -> str:
    return path.removeprefix(str(REPO) + "/")


@pytest.fixture(scope="session")
def lint_findings() -> list[Finding]:
    """What `sniff lint` finds in the sample logs' logged prompts (gaps left to breaks)."""
    files = sorted(path for root in ARCHIVE for path in root.rglob("*.jsonl"))
    findings = lint(files, LintConfig(ignore=("SN012",)), load=load).findings
    return [dataclasses.replace(found, file=_relative(found.file)) for found in findings]


@pytest.fixture
def new_app(archive_dataset: Dataset, lint_findings: list[Finding]) -> Callable[[], SniffApp]:
    """A factory of apps over the sample archive, in UTC."""

    def build() -> SniffApp:
        return make_app(archive_dataset, zone=UTC, lint_findings=lint_findings)

    return build


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every worker has finished and the screen has caught up.

    A worker's result can start another worker (a screen refreshing after the data came in),
    and on a busy machine repaints lag: wait until two rounds in a row find nothing running,
    then a tenth of a second more.
    """
    quiet = 0
    for _ in range(20):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        quiet = quiet + 1 if not any(w.is_running for w in pilot.app.workers) else 0
        if quiet >= 2:
            break
    # a starved compositor can still be between a layout and its repaint: give it a moment
    await pilot.pause(0.1)


def sample(path: str) -> Path:
    """A file of the sample logs."""
    return SAMPLE_LOGS / path


GROWN_SESSION = "9e0f0a11-0000-4000-8000-00000000c0de"
"""A planted session that grew past the point a fresh one pays off, then was compacted."""
GROWN_PROMPTS = [10_000, 40_000, *[70_000] * 6, 12_000, 14_000]
"""Its main chain's prompt sizes: a compaction summary comes before the 12,000-token one."""


@pytest.fixture(scope="session")
def grown_dataset(tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """The planted session (5-minute cache writes), read as Claude Code's, paths as names."""
    from tests.conftest import Lines

    lines, parent = [], None
    for number, prompt in enumerate(GROWN_PROMPTS):
        when = f"2026-03-02T09:{number:02d}:00Z"
        if number == 8:  # the compaction: its summary opens the next turn
            lines.append(Lines.user(f"u{number}", parent, when, "summary", isCompactSummary=True,
                                    session=GROWN_SESSION))  # fmt: skip
        else:
            lines.append(Lines.user(f"u{number}", parent, when, session=GROWN_SESSION))
        usage = Lines.usage(input=100, read=prompt - 600, write=500, output=200)
        lines.append(Lines.assistant(f"msg_{number}", f"a{number}", f"u{number}", when, usage,
                                     session=GROWN_SESSION))  # fmt: skip
        parent = f"a{number}"
    folder = tmp_path_factory.mktemp("grown") / "-home-dana-src-webshop"
    path = Lines.write(folder / f"{GROWN_SESSION}.jsonl", lines)
    dataset = load([path], with_prompts=Prompts.COUNTED)
    return msgspec.structs.replace(
        dataset,
        requests=tuple(
            msgspec.structs.replace(request, file=Path(request.file).name)
            for request in dataset.requests
        ),
        files=tuple(Path(file).name for file in dataset.files),
        roots=(),
    )


@pytest.fixture
def grown_app(grown_dataset: Dataset) -> Callable[[], SniffApp]:
    """A factory of apps over the planted grown session, in UTC."""
    return lambda: make_app(grown_dataset, zone=UTC)


def screen_text(screen: Any) -> str:
    """Everything the screen shows: its texts and every cell of its tables."""
    parts = [str(widget.render()) for widget in screen.query(Static)]
    for table in screen.query(DataTable):
        for row in range(table.row_count):
            parts += [str(cell) for cell in table.get_row_at(row)]
    return "\n".join(parts)
