"""Provides where each agent keeps its logs: the folders `sniff` reads when given no path.

Why a table of places, tried everywhere, and not one path per operating system: agents put
their data under the home folder in ways that hardly depend on the system (`~/.claude`,
`~/.local/share/opencode` even on macOS), a few under the system's application-data folder
(VS Code's extension storage, Goose's), and a Windows home seen from WSL (`/mnt/c/Users/<u>`)
holds the Windows layout. So every place is tried under every home this machine has (its
own, and the Windows homes WSL mounts), and the folders that exist are read. An agent's own
environment variable, where it has one, names its data folder instead of the default.

The places come from each agent's field guide (docs/agent-formats in the design notes).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

VSCODE_APPS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
"""Editors whose extension storage holds Cline's, Roo Code's and Kilo Code's task folders."""
TASK_EXTENSIONS = ("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline", "kilocode.kilo-code")
APP_DATA = (".config", "Library/Application Support", "AppData/Roaming")
"""Where Linux, macOS and Windows keep application data, under a home."""
XDG_DATA = ".local/share/"
"""The data folder of agents that follow the XDG convention (`$XDG_DATA_HOME` moves it)."""
WINDOWS_HOMES = "/mnt/c/Users"
"""Where WSL mounts the Windows users' homes."""
NOT_USERS = frozenset({"All Users", "Default", "Default User", "Public", "desktop.ini"})


@dataclass(frozen=True, slots=True)
class Place:
    """Where one agent keeps its logs."""

    agent: str
    home: tuple[str, ...]
    """Folders under a home folder (`/`-separated)."""
    env: str | None = None
    """The variable naming the agent's data folder (several, separated by commas or the
    path separator, where the agent allows it); when set, it replaces `home`."""
    under_env: tuple[str, ...] = ("",)
    """The folders under each folder `env` names."""


def _vscode_tasks() -> tuple[str, ...]:
    return tuple(
        f"{base}/{app}/User/globalStorage/{extension}/tasks"
        for base in APP_DATA
        for app in VSCODE_APPS
        for extension in TASK_EXTENSIONS
    )


PLACES = (
    Place("claude-code", (".claude/projects", ".config/claude/projects"), "CLAUDE_CONFIG_DIR",
          ("projects",)),
    Place("codex", (".codex/sessions", ".codex/archived_sessions"), "CODEX_HOME",
          ("sessions", "archived_sessions")),
    Place("gemini-cli", (".gemini/tmp",), "GEMINI_DATA_DIR", ("tmp",)),
    Place("qwen-code", (".qwen/projects", ".qwen/tmp"), "QWEN_DATA_DIR", ("projects", "tmp")),
    Place("opencode", (".local/share/opencode",), "OPENCODE_DATA_DIR"),
    Place("kilo", (".local/share/kilo",), "KILO_DATA_DIR"),
    Place("pi", (".pi/agent/sessions",), "PI_AGENT_DIR", ("sessions",)),
    Place("openclaw", (".openclaw/agents", ".clawdbot/agents", ".moltbot/agents",
                       ".moldbot/agents"), "OPENCLAW_DIR", ("agents",)),
    Place("kimi", (".kimi/sessions", ".kimi-code/sessions"), "KIMI_DATA_DIR", ("sessions",)),
    Place("cline", (".cline/data/sessions",)),
    Place("cline-tasks", _vscode_tasks()),
    Place("copilot", (".copilot/session-state", ".copilot/history-session-state")),
    Place("amp", (".local/share/amp/threads",), "AMP_DATA_DIR", ("threads",)),
    Place("droid", (".factory/sessions",), "DROID_SESSIONS_DIR"),
    Place("goose", (".local/share/goose/sessions", "Library/Application Support/goose/sessions",
                    ".local/share/Block/goose/sessions",
                    "AppData/Roaming/Block/goose/data/sessions"),
          "GOOSE_PATH_ROOT", ("data/sessions",)),
)  # fmt: skip
"""Every agent's places, in the order `sniff` lists what it found."""

ENVIRONMENT = (*(place.env for place in PLACES if place.env), "XDG_DATA_HOME", "SNIFF_DATA_DIR")
"""The variables that move an agent's logs (what `sniff`'s output depends on)."""


def homes(own: Path | None = None, windows: Path | None = None) -> list[Path]:
    """This machine's home folders: its user's own, then, under WSL, the Windows users'
    (those under `windows`, by default `WINDOWS_HOMES`)."""
    found = [own or Path.home()]
    windows = Path(WINDOWS_HOMES) if windows is None else windows
    if windows.is_dir() and _in_wsl():
        # a mount that cannot be listed: the user's own home still counts
        with contextlib.suppress(OSError):
            found += sorted(
                entry for entry in windows.iterdir()
                if entry.name not in NOT_USERS and entry.is_dir()
            )  # fmt: skip
    return found


def _in_wsl() -> bool:
    if os.environ.get("WSL_DISTRO_NAME"):
        return True
    try:
        return "microsoft" in Path("/proc/version").read_text().lower()
    except OSError:
        return False


def candidates(environ: dict[str, str] | os._Environ[str], home_folders: list[Path]) -> list[Path]:
    """Every folder where some agent may keep logs (existing or not), in `PLACES` order."""
    found: list[Path] = []
    for place in PLACES:
        named = _named(environ.get(place.env, "")) if place.env else []
        if named:
            for folder in named:
                inner = [folder / sub if sub else folder for sub in place.under_env]
                # a folder named that is itself the logs' folder (no expected subfolder in it)
                found += inner if any(path.is_dir() for path in inner) else [folder]
            continue
        found += [home / relative for home in home_folders for relative in place.home]
        data_home = environ.get("XDG_DATA_HOME", "")  # OpenCode, Kilo, Amp, Goose follow it
        found += [
            Path(data_home).expanduser() / relative.removeprefix(XDG_DATA)
            for relative in place.home
            if data_home and relative.startswith(XDG_DATA)
        ]
    return found


def _named(value: str) -> list[Path]:
    """The folders a variable names: one, or several separated by commas or `os.pathsep`."""
    parts = value.replace(os.pathsep, ",").split(",") if value else []
    return [Path(part.strip()).expanduser() for part in parts if part.strip()]
