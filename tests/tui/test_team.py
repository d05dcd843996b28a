"""The browser over a team export: the machines' exports read as one bill, a copied session once."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app as cli
from sniff.logs import load
from sniff.tui import make_app
from sniff.tui.screens.overview import OverviewScreen
from sniff.workspace import Workspace
from tests.tui.conftest import SAMPLE_LOGS, settle

CLAUDE = SAMPLE_LOGS / "claude-code" / "projects"
CODEX = SAMPLE_LOGS / "codex" / "sessions"


@pytest.fixture
def team(tmp_path: Path) -> Path:
    """A team folder two machines exported to; the second also holds a copy of the first's
    logs (a synced folder), so every request of the first is in two machines' exports."""
    both = tmp_path / "both"
    shutil.copytree(CLAUDE, both / "claude")
    shutil.copytree(CODEX, both / "codex")
    dest = tmp_path / "team"
    for machine, logs in (("laptop", CLAUDE), ("desk", both)):
        done = CliRunner().invoke(
            cli, ["export", str(logs), "-o", str(dest), "--team", "--machine", machine]
        )
        assert done.exit_code == 0, done.output
    return dest


async def test_the_browser_reads_a_team_folder_as_one_bill(team: Path) -> None:
    app = make_app(Workspace(team, tz="UTC"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.archive is not None
        assert isinstance(app.screen, OverviewScreen)
        shown = {request.key for request in app.archive.dataset.requests}
        logs = load([CLAUDE, CODEX])
        assert len(app.archive.dataset.requests) == len(logs.requests)
        assert shown == {request.key for request in logs.requests}
        read = app.archive.dataset.requests
        cost = sum(request.cost.total_usd for request in read if request.cost)
        want = sum(request.cost.total_usd for request in logs.requests if request.cost)
        assert cost == pytest.approx(want, abs=1e-9)
        totals = str(app.screen.query_one("#totals").render())
        assert f"{len(logs.requests):,}" in totals, totals
