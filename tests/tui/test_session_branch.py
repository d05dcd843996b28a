"""The session screen names the git branches its requests were made on, in the order used."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from sniff.ingest.record import Prompts
from sniff.logs import load
from sniff.tui import make_app
from sniff.tui.screens.session import SessionScreen
from tests.conftest import Lines
from tests.tui.conftest import settle


async def test_a_session_that_changed_branch_names_both(tmp_path: Path) -> None:
    lines, parent = [], None
    for number, branch in enumerate(["main", "main", "fix/login", "main"]):
        when = f"2026-03-02T09:0{number}:00Z"
        lines.append(Lines.user(f"u{number}", parent, when, gitBranch=branch))
        usage = Lines.usage(input=100, read=1000, output=50)
        lines.append(Lines.assistant(f"msg_{number}", f"a{number}", f"u{number}", when, usage,
                                     gitBranch=branch))  # fmt: skip
        parent = f"a{number}"
    path = Lines.write(tmp_path / "-home-dana-src-webshop" / f"{Lines.SESSION}.jsonl", lines)
    app = make_app(load([path], with_prompts=Prompts.COUNTED), zone=UTC)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.push_screen(SessionScreen(Lines.SESSION))
        await settle(pilot)
        shown = [widget.render() for widget in app.screen.query(Static)]
        text = " ".join(part.plain if isinstance(part, Text) else str(part) for part in shown)
        assert "branches main, fix/login" in text
