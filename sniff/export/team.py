"""Provides who exports to a team folder: this machine's stable id, the user, the names checked,
and the `machine.json` that records a machine's first and last export there.

Why a random id kept in the config folder and not the hostname or /etc/machine-id: a shared
folder should not learn a machine's network name, and a cloned disk image must not give two
machines one id. `--machine NAME` picks a readable name instead.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from sniff.atomic_write import cannot_write, replace
from sniff.errors import UserError
from sniff.ingest.export_folders import MACHINE_FILE, MACHINES, MANIFEST

if TYPE_CHECKING:
    from sniff.export.pseudonyms import Pseudonyms
    from sniff.export.writer import ExportResult
    from sniff.model import Request
    from sniff.pricing import PriceBook

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""A safe path component: a machine's name is its folder's."""
ID_FILE = "machine-id"


@dataclass(frozen=True, slots=True)
class Exporter:
    """The machine and user an export to a team folder is credited to."""

    machine: str
    user: str


def checked(name: str, what: str) -> str:
    """`name` when it is a safe path component (letters, digits, `-_.`, at most 64 characters).

    Raises:
        UserError: it is not (`what` says which option gave it).
    """
    if not NAME.fullmatch(name) or name in (".", ".."):
        raise UserError(f"{what} must be 1 to 64 letters, digits, '-', '_' or '.', not {name!r}")
    return name


def exporter(machine: str | None, user: str | None) -> Exporter:
    """The given names, checked, else this machine's id and the login name.

    Raises:
        UserError: a name is not safe, or the machine id cannot be kept.
    """
    return Exporter(
        checked(machine, "--machine") if machine is not None else machine_id(),
        checked(user, "--user") if user is not None else login(),
    )


def login() -> str:
    """The OS login name, or "unknown" where there is none (a container without a passwd
    entry) or it would not be a safe name."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError, ImportError):
        return "unknown"
    return name if NAME.fullmatch(name) and name not in (".", "..") else "unknown"


def machine_id() -> str:
    """This machine's id, made once (random) and kept in sniff's config folder.

    Raises:
        UserError: the config folder cannot be written.
    """
    from sniff.paths import config_folder

    path = config_folder() / ID_FILE
    kept = _kept_id(path)
    if kept is not None:
        return kept
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):  # another run made it first: theirs holds
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            with os.fdopen(descriptor, "w") as file:
                file.write(uuid.uuid4().hex[:12] + "\n")
    except OSError as error:
        raise cannot_write(path, error) from error
    made = _kept_id(path)
    if made is None:
        raise UserError(f"{path} holds no machine id: remove it, or give --machine NAME")
    return made


def _kept_id(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if NAME.fullmatch(text) else None


def machine_folder(team: Path, machine: str) -> Path:
    """Where a machine's export lives in a team folder."""
    return team / MACHINES / machine


def record_export(folder: Path, who: Exporter, changed: bool) -> None:
    """Write `machine.json` in a machine's folder (`machine_record`).

    Raises:
        UserError: it cannot be written.
    """
    path = folder / MACHINE_FILE
    old: bytes | None = None
    with contextlib.suppress(OSError):
        old = path.read_bytes()
    record = machine_record(old, who, changed)
    if record is None:
        return
    try:
        replace(path, record)
    except OSError as error:
        raise cannot_write(path, error) from error


def machine_record(old: bytes | None, who: Exporter, changed: bool) -> bytes | None:
    """A machine's `machine.json` after an export: its names, first and last export times (None:
    the `old` one holds).

    The last export time moves only when the export `changed`, so exporting logs that did not
    change leaves every file of the team folder as it was.
    """
    kept: dict[str, object] = {}
    with contextlib.suppress(ValueError, TypeError):
        loaded = json.loads(old or b"")
        kept = loaded if isinstance(loaded, dict) else {}
    now = datetime.now(UTC).isoformat(timespec="microseconds")  # orders first exports
    first = kept.get("first_export") if isinstance(kept.get("first_export"), str) else None
    last = kept.get("last_export") if isinstance(kept.get("last_export"), str) else None
    record = {
        "machine": who.machine,
        "user": who.user,
        "first_export": first or now,
        "last_export": now if changed or last is None else last,
    }
    return None if record == kept else (json.dumps(record, indent=2) + "\n").encode()


def last_export(team: Path, machine: str) -> datetime | None:
    """When `machine` last exported into `team` with a change (None: never, or unreadable)."""
    try:
        return last_export_in((machine_folder(team, machine) / MACHINE_FILE).read_bytes())
    except OSError:
        return None


def last_export_in(record: bytes) -> datetime | None:
    """The last export time a `machine.json` holds (None: none, or not a record)."""
    with contextlib.suppress(ValueError, TypeError, KeyError):
        return datetime.fromisoformat(json.loads(record)["last_export"])
    return None


def export_team(
    team: Path | str,
    requests: list[Request],
    prices: PriceBook,
    who: Exporter,
    pseudonyms: Pseudonyms | None = None,
) -> ExportResult:
    """Export `requests` as `who`'s share of the team folder `team` (a folder, or a store's URL,
    `stored`): an ordinary export in `team/machines/<machine>/` (merged by key, locked per
    machine, so machines exporting at once never touch each other's files), its requests
    stamped with the machine and user, and its `machine.json`. `pseudonyms`: `--redact`'s,
    applied to the user and the requests' names.

    Raises:
        UserError: `team` is neither empty nor a team folder, or cannot be written.
    """
    from sniff.export.writer import export

    if pseudonyms is not None:
        who = Exporter(who.machine, pseudonyms.of("user", who.user))
        requests = [pseudonyms.request(request) for request in requests]
    stamp = {"machine": who.machine, "user": who.user}
    if isinstance(team, str):
        from sniff.export.stored import export_stored

        return export_stored(
            team, requests, prices, who.machine, stamp,
            lambda old, changed: machine_record(old, who, changed),
        )  # fmt: skip
    if not is_team_target(team):
        raise UserError(f"{team} is not empty and holds no team export: choose another")
    folder = machine_folder(team, who.machine)
    before = _manifest(folder)
    result = export(folder, requests, prices, stamp)
    record_export(folder, who, changed=_manifest(folder) != before)
    return result


def is_team_target(path: Path) -> bool:
    """Whether a team export may be written to `path`: absent, empty, or a team folder."""
    if not path.exists():
        return True
    if not path.is_dir():
        return False
    return (path / MACHINES).is_dir() or not any(path.iterdir())


def _manifest(folder: Path) -> bytes | None:
    """The bytes of an export's manifest (None: none yet): what tells an export changed it."""
    try:
        return (folder / MANIFEST).read_bytes()
    except OSError:
        return None
