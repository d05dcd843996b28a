"""Where sniff looks when given no path: every agent's folders, under every home the machine
has (its own, and the Windows homes WSL mounts), or where the agent's variable says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sniff.cli import app
from sniff.ingest.files import locations
from sniff.ingest.files.discover import default_roots

HOME_PLACES = {
    "claude-code": ".claude/projects",
    "codex": ".codex/sessions",
    "gemini-cli": ".gemini/tmp",
    "qwen-code": ".qwen/projects",
    "opencode": ".local/share/opencode",
    "kilo": ".local/share/kilo",
    "pi": ".pi/agent/sessions",
    "openclaw": ".openclaw/agents",
    "kimi": ".kimi/sessions",
    "cline": ".cline/data/sessions",
    "cline-tasks": "Library/Application Support/Code/User/globalStorage/"
    "saoudrizwan.claude-dev/tasks",
    "copilot": ".copilot/session-state",
    "amp": ".local/share/amp/threads",
    "droid": ".factory/sessions",
    "goose": ".local/share/goose/sessions",
}


def test_every_agent_has_a_place_and_each_is_found_under_the_home() -> None:
    home = Path.home()
    assert {place.agent for place in locations.PLACES} == set(HOME_PLACES)
    for relative in HOME_PLACES.values():
        (home / relative).mkdir(parents=True)
    assert default_roots() == [home / relative for relative in HOME_PLACES.values()]


def test_an_agents_variable_replaces_its_home_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (Path.home() / ".gemini" / "tmp").mkdir(parents=True)
    (tmp_path / "g1" / "tmp").mkdir(parents=True)
    (tmp_path / "g2").mkdir()  # named without the expected subfolder: itself the logs' folder
    monkeypatch.setenv("GEMINI_DATA_DIR", f"{tmp_path / 'g1'},{tmp_path / 'g2'}")
    assert default_roots() == [tmp_path / "g1" / "tmp", tmp_path / "g2"]
    (tmp_path / "pi" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("PI_AGENT_DIR", str(tmp_path / "pi"))
    assert tmp_path / "pi" / "sessions" in default_roots()


def test_under_wsl_the_windows_homes_are_read_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cc
) -> None:
    users = tmp_path / "Users"
    for name in ("dana", "Public", "Default"):
        (users / name).mkdir(parents=True)
    monkeypatch.setattr(locations, "WINDOWS_HOMES", str(users))
    assert locations.homes() == [Path.home()]  # not WSL: the Windows homes are not looked at
    monkeypatch.setenv("WSL_DISTRO_NAME", "Ubuntu")
    assert locations.homes() == [Path.home(), users / "dana"]
    # Claude Code on Windows keeps its transcripts under the Windows home, as on Linux
    cc.write(
        users / "dana" / ".claude" / "projects" / "C--src-shop" / "s.jsonl",
        [cc.assistant("msg_w", "a1", None, "2026-01-05T10:00:04Z", cc.usage())],
    )
    tasks = users / "dana" / "AppData/Roaming/Code/User/globalStorage/kilocode.kilo-code/tasks"
    tasks.mkdir(parents=True)
    assert default_roots() == [users / "dana" / ".claude" / "projects", tasks]
    report = json.loads(CliRunner().invoke(app, ["scan", "--json"]).stdout)
    assert (report["source"]["sample_logs"], report["totals"]["requests"]) == (False, 1)


def test_the_xdg_data_home_moves_the_agents_that_follow_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data" / "opencode").mkdir(parents=True)
    (tmp_path / "data" / "goose" / "sessions").mkdir(parents=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_roots() == [tmp_path / "data" / "opencode", tmp_path / "data/goose/sessions"]
