"""Gives a copy of a sample its own identities and times: one map from each of the sample's
ids to a fresh one (so the links inside the copy hold), and one shift of every time.

Why the ids keep their shape (a prefix, hex for hex, an epoch where Cline puts one): parsers
and peers may read meaning into an id's form, and a copy should look like what the agent
writes. Short ids get a random tail, so that no two copies ever meet.
"""

from __future__ import annotations

import json
import random
import re
import sys
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from agent_units import Unit  # bench/ is on the path when a script runs

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ISO_RE = re.compile(r"""(?<=["'])(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?=[.Z+"'-])""")
MS_RE = re.compile(r"([:,\[(]\s*)(1[5-9]\d{11})(?=\s*[,}\])])")
"""Epoch milliseconds as numbers (JSON values, SQL columns), not inside ids or text."""
STAMPED_RE = re.compile(r"(1[5-9]\d{11})_([a-z0-9]+)")
NAMED_RE = re.compile(r'"[A-Za-z_]*(?:model|Model|provider|Provider)[A-Za-z_]*"\s*:\s*"([^"]*)"')
ID_CHARS = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*")
SHORT = 8
"""An id with fewer random characters than this gets a random tail (so no two copies meet)."""


@dataclass(frozen=True)
class Ids:
    """Where a unit's identities are, found once in the sample and replaced in every copy."""

    prefixed: re.Pattern[str] | None = None
    inside: re.Pattern[str] | None = None
    """Long identities, wherever they occur (a session id inside a path, too)."""
    quoted: re.Pattern[str] | None = None
    """Short identities, only where they are a whole string (`"e1"`, not inside a word)."""
    as_uuid: frozenset[str] = frozenset()
    """Identities the agent writes as UUIDs that a fixture's author renamed (they get one)."""

    @classmethod
    def of(cls, unit: Unit, texts: list[str]) -> Ids:
        if not unit.keys:
            return cls(unit.prefixed)
        keys = "|".join(map(re.escape, unit.keys))
        found = {
            m.group(1) for t in texts for m in re.finditer(rf'"(?:{keys})"\s*:\s*"([^"]*)"', t)
        }
        # a model's or provider's name is never an identity to change (Kilo names its model `id`)
        names = {m.group(1) for t in texts for m in NAMED_RE.finditer(t)}
        values = {
            value for value in found - names
            if ID_CHARS.fullmatch(value) and not UUID_RE.search(value)
            and not (value.isdigit() and len(value) < 4)
        }  # fmt: skip
        long = sorted((v for v in values if len(v) >= 10), key=len, reverse=True)
        short = sorted(v for v in values if len(v) < 10)
        inside = "|".join(map(re.escape, long))
        uuid_keys = "|".join(map(re.escape, unit.uuid_keys)) or "(?!)"
        renamed = {
            m.group(1) for t in texts for m in re.finditer(rf'"(?:{uuid_keys})"\s*:\s*"([^"]*)"', t)
        }
        return cls(
            unit.prefixed,
            re.compile(rf"(?<![A-Za-z0-9])(?:{inside})(?![A-Za-z0-9])") if long else None,
            re.compile(rf'"({"|".join(map(re.escape, short))})"') if short else None,
            frozenset(renamed & values),
        )


@dataclass
class Fresh:
    """New identities and times for one copy: one map, so references inside the copy hold."""

    rng: random.Random
    shift: timedelta
    used: set[str]
    """Every fresh id given so far (all copies), so that no two copies share one."""
    as_uuid: frozenset[str] = frozenset()
    ids: dict[str, str] = field(default_factory=dict)

    def of(self, old: str) -> str:
        new = self.ids.get(old)
        if new is None:
            new = self.ids[old] = self._new(old)
        return new

    def _new(self, old: str) -> str:
        if old in self.as_uuid or UUID_RE.fullmatch(old):
            return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        stamped = STAMPED_RE.fullmatch(old)
        if stamped:  # Cline's `<ms epoch>_<random>`: the epoch moves with the copy's times
            head = str(int(stamped.group(1)) + int(self.shift.total_seconds() * 1000))
            rest, tail = "_" + stamped.group(2), False
        else:
            prefix = re.match(r"[A-Za-z]+(?=[_-])", old)
            head = prefix.group(0) if prefix else ""
            rest = old[len(head) :]
            tail = sum(c.isalnum() for c in rest) < SHORT
        hexadecimal = re.fullmatch(r"[0-9a-f_\-]+", rest) is not None
        for _ in range(20):
            new = head + "".join(self._like(c, hexadecimal) for c in rest)
            if tail:  # in the id's own alphabet, so that it still reads as one
                new += "".join(self._like("a", hexadecimal) for _ in range(10))
            if new not in self.used:
                self.used.add(new)
                return new
        sys.exit(f"no fresh id found for {old!r}")

    def _like(self, char: str, hexadecimal: bool) -> str:
        if char.isdigit() or (hexadecimal and char.isalnum()):
            return self.rng.choice("0123456789abcdef" if hexadecimal else "0123456789")
        if char.islower():
            return self.rng.choice("abcdefghijklmnopqrstuvwxyz")
        if char.isupper():
            return self.rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return char

    def text(self, text: str, ids: Ids, uuids: bool = True, times: bool = True) -> str:
        """The copy of one file's text: its ids, then its times."""
        if uuids:
            text = UUID_RE.sub(lambda m: self.of(m.group(0)), text)
        for pattern in (ids.prefixed, ids.inside):
            if pattern is not None:
                text = pattern.sub(lambda m: self.of(m.group(0)), text)
        if ids.quoted is not None:
            text = ids.quoted.sub(lambda m: f'"{self.of(m.group(1))}"', text)
        if not times:
            return text
        text = ISO_RE.sub(lambda m: self.iso(m.group(1)), text)
        shift_ms = int(self.shift.total_seconds() * 1000)
        return MS_RE.sub(lambda m: m.group(1) + str(int(m.group(2)) + shift_ms), text)

    def iso(self, stamp: str) -> str:
        """A `YYYY-MM-DDTHH:MM:SS` shifted (its fraction and zone stay beside it, whole seconds
        being shifted)."""
        return (datetime.fromisoformat(stamp) + self.shift).strftime("%Y-%m-%dT%H:%M:%S")


def shift_of(number: int) -> timedelta:
    """The shift of copy `number`: into the past, spread over a year, never the same twice."""
    return -timedelta(days=number % 365, seconds=(number // 365) * 37)


def fresh_response(line: dict[str, Any], ids: Fresh, parent: str | None) -> dict[str, Any]:
    """A copy of a Claude Code response line with new identities (uuid, message id, requestId),
    linked to `parent`, stamped now: a response appended as Claude Code would write it."""
    copy = json.loads(json.dumps(line))
    copy["uuid"] = ids.of(copy["uuid"])
    copy["parentUuid"] = parent
    copy["message"]["id"] = ids.of(copy["message"]["id"])
    if copy.get("requestId"):
        copy["requestId"] = ids.of(copy["requestId"])
    copy["timestamp"] = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return copy
