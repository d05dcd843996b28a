#!/usr/bin/env python3
"""Build a mixed-agent corpus (a home folder of every agent's logs) and its exact totals.

Every copy of a sample is laid out where its agent writes it under a home folder
(`.claude/projects/...`, `.codex/sessions/YYYY/MM/DD/...`, `.pi/agent/sessions/...`,
`.gemini/tmp/<hash>/chats/...`, `.qwen/projects/<p>/chats/...`, `.kimi-code/sessions/...`,
`.cline/data/sessions/<id>/...`, `.copilot/session-state/<id>/...`,
`.local/share/{opencode,kilo}/...`), with fresh identities (session, message, entry, response
and tool-call ids) and its times shifted by an amount no other copy shares: the parsers count a
call once per identity, so a copy that kept an id, or the times and usage of another copy,
would count once and the corpus would check nothing.

A copy is a whole sample unit (every file of one row of an EXPECTED.md, with one id map, so
the links inside it hold), which is why `EXPECTED.json` can be that row's figures times the
copies, taken from `../shared/samples/EXPECTED.md` and `../shared/agent-samples/EXPECTED.md`,
not from running sniff. Half the bytes are Claude Code and Codex (cloned by
`../shared/bench/gen_corpus.py`'s own `clone`), half the other agents, pi's long transcripts
first.

Usage:
    python bench/gen_agents_corpus.py TARGET_MB OUT_DIR [--shared DIR] [--seed 42]

OUT_DIR receives home/ (point HOME at it) and EXPECTED.json.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import random
import re
import sqlite3
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

from agent_units import UNITS, Unit  # bench/ is on the path when a script runs
from expected_md import Figures, read_expected
from fresh_ids import UUID_RE, Fresh, Ids, shift_of

REPO = Path(__file__).resolve().parent.parent
ROOTS = {
    "claude-code": (".claude",),
    "codex": (".codex",),
    "pi": (".pi",),
    "cline": (".cline",),
    "kimi": (".kimi-code",),
    "gemini-cli": (".gemini",),
    "opencode": (".local/share/opencode", ".local/share/kilo"),
    "qwen-code": (".qwen",),
    "copilot": (".copilot",),
}
"""Where each agent's copies are, under the home folder."""
SHARE = {
    "claude-code": 0.30,
    "codex": 0.20,
    "pi": 0.22,
    "cline": 0.07,
    "kimi": 0.06,
    "gemini-cli": 0.05,
    "opencode": 0.04,
    "qwen-code": 0.03,
    "copilot": 0.03,
}
"""Each agent's share of the corpus's bytes."""
PROJECTS = 20


def load_gen_corpus(shared: Path) -> ModuleType:
    """The Claude Code corpus generator, for its `clone` (ids, message ids, times, salted text)."""
    path = shared / "bench" / "gen_corpus.py"
    spec = importlib.util.spec_from_file_location("gen_corpus", path)
    if spec is None or spec.loader is None or not path.is_file():
        sys.exit(f"{path} is missing: pass --shared, the folder holding bench/ and samples/")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def first_json(text: str) -> dict[str, Any]:
    """The first JSON line of a log (or the whole document)."""
    try:
        value = json.loads(text)
    except ValueError:
        value = json.loads(text.split("\n", 1)[0])
    return value if isinstance(value, dict) else {}


def stamp(iso: str, separator: str = "-") -> str:
    """An ISO time as agents put it in file names (`2025-12-09T00-52-54-397Z`)."""
    when = datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC)
    return f"{when:%Y-%m-%dT%H{separator}%M{separator}%S}-{when.microsecond // 1000:03d}Z"


def project(number: int) -> str:
    return f"/home/dev/project{number % PROJECTS:03d}"


@dataclass
class Writer:
    """Lays copies out under a home folder and counts what it wrote."""

    home: Path
    shared: Path
    gen_corpus: ModuleType
    rng: random.Random
    used: set[str] = field(default_factory=set)
    copies: int = 0
    databases: dict[Path, sqlite3.Connection] = field(default_factory=dict)
    samples: dict[str, tuple[list[tuple[str, str]], Ids]] = field(default_factory=dict)

    def copy(self, unit: Unit) -> int:
        """Write one copy of `unit`; return about how many bytes it added."""
        self.copies += 1
        texts, ids = self.sample(unit)
        fresh = Fresh(self.rng, shift_of(self.copies), self.used, ids.as_uuid)
        written = 0
        for path, body in LAYOUTS[unit.agent](self, ids, fresh, texts):
            if isinstance(body, str):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(body, encoding="utf-8")
                written += len(body.encode())
            else:
                written += body
        return written

    def sample(self, unit: Unit) -> tuple[list[tuple[str, str]], Ids]:
        """The unit's files (name, text) and where their identities are, read once."""
        found = self.samples.get(unit.name)
        if found is None:
            paths = [p for pattern in unit.files for p in sorted(self.shared.glob(pattern))]
            if len(paths) < len(unit.files):
                sys.exit(f"{unit.name}: missing sample files under {self.shared} {unit.files}")
            texts = [(p.name, p.read_text(encoding="utf-8")) for p in paths]
            found = self.samples[unit.name] = (texts, Ids.of(unit, [t for _, t in texts]))
        return found

    def database(self, path: Path, script: str) -> tuple[sqlite3.Connection, bool]:
        """The database at `path`, and whether it was just created from `script` (its schema
        and the first copy's rows)."""
        connection = self.databases.get(path)
        if connection is not None:
            return connection, False
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = self.databases[path] = sqlite3.connect(path)
        connection.executescript(script)
        return connection, True

    def close(self) -> int:
        """Commit the databases; return their files' count."""
        for connection in self.databases.values():
            connection.commit()
            connection.close()
        return len(self.databases)


Written = Iterator[tuple[Path, str | int]]
"""A layout's files (path, text), or a database it added rows to (path, bytes of rows)."""
Layout = Callable[["Writer", Ids, Fresh, list[tuple[str, str]]], Written]


def claude_code(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    """gen_corpus's clone over the unit's files joined (one map for the unit), then the ids it
    leaves (the sub-agent's `agentId`, which names its file)."""
    joined = "".join(f"\n\x00{name}\x00\n{text}" for name, text in texts)
    cloned = fresh.text(w.gen_corpus.clone(joined, w.rng, fresh.shift), ids, False, False)
    folder = w.home / ".claude" / "projects" / f"-home-dev-project{w.copies % PROJECTS:03d}"
    for part in cloned.split("\n\x00")[1:]:
        name, body = part.split("\x00\n", 1)
        head = first_json(body)
        if UUID_RE.fullmatch(Path(name).stem):
            yield folder / name, body
        elif head.get("agentId"):
            yield folder / f"agent-{head['agentId']}.jsonl", body
        else:  # a transcript's first lines may be summaries, which name no session
            session = re.search(rf'"sessionId":"({UUID_RE.pattern})"', body)
            yield folder / f"{session.group(1) if session else fresh.of(name)}.jsonl", body


def codex(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    joined = "".join(f"\n\x00{name}\x00\n{text}" for name, text in texts)
    cloned = fresh.text(w.gen_corpus.clone(joined, w.rng, fresh.shift), ids, False, False)
    for part in cloned.split("\n\x00")[1:]:
        body = part.split("\x00\n", 1)[1]
        meta = first_json(body)["payload"]
        when = stamp(meta["timestamp"])[:19]
        day = w.home / ".codex" / "sessions" / when[:4] / when[5:7] / when[8:10]
        yield day / f"rollout-{when}-{meta['id']}.jsonl", body


def pi(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    folder = w.home / ".pi" / "agent" / "sessions" / f"--home-dev-project{w.copies % 20:03d}--"
    for _, text in texts:
        body = fresh.text(text, ids)
        head = first_json(body)
        yield folder / f"{stamp(head['timestamp'])}_{head['id']}.jsonl", body


def gemini(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    digest = hashlib.sha256(project(w.copies).encode()).hexdigest()
    folder = w.home / ".gemini" / "tmp" / digest / "chats"
    for name, text in texts:
        body = re.sub(r'("projectHash"\s*:\s*")[0-9a-f]{64}"', rf'\g<1>{digest}"', text)
        body = fresh.text(body, ids)
        head = first_json(body)
        when = stamp(head["startTime"])[:16]
        yield folder / f"session-{when}-{head['sessionId'][:8]}{Path(name).suffix}", body


def qwen(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    folder = w.home / ".qwen" / "projects" / project(w.copies).replace("/", "-") / "chats"
    for _, text in texts:
        body = fresh.text(text, ids)
        yield folder / f"{first_json(body)['sessionId']}.jsonl", body


def kimi(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    """Kimi Code's session folder: state.json and agents/<id>/wire.jsonl; the sample's
    workdir group is renamed to the copy's project."""
    number = w.copies % PROJECTS
    group = f"wd_project{number:03d}_{hashlib.sha256(project(number).encode()).hexdigest()[:12]}"
    by_name = {name: fresh.text(text.replace("wd_project_ac3bb318f98e", group), ids)
               for name, text in texts}  # fmt: skip
    state = by_name.pop("assistant_tools.state.json")
    homedir = json.loads(state)["agents"]["main"]["homedir"]
    session = re.search(r"session_[0-9a-f-]{36}", homedir)
    assert session is not None, homedir
    folder = w.home / ".kimi-code" / "sessions" / group / session.group(0)
    yield folder / "state.json", state
    yield folder / "agents" / "main" / "wire.jsonl", by_name["assistant_tools.jsonl"]
    yield folder / "agents" / "agent-0" / "wire.jsonl", by_name["subagent_agent-0.jsonl"]


def cline(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    for name, text in texts:
        body = fresh.text(text, ids)
        head = first_json(body)
        session = head.get("session_id") or head["sessionId"]
        suffix = ".messages.json" if name.endswith(".messages.json") else ".json"
        yield w.home / ".cline" / "data" / "sessions" / session / f"{session}{suffix}", body


def copilot(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    for _, text in texts:
        body = fresh.text(text, ids)
        session = first_json(body)["data"]["sessionId"]
        yield w.home / ".copilot" / "session-state" / session / "events.jsonl", body


def opencode(w: Writer, ids: Ids, fresh: Fresh, texts: list[tuple[str, str]]) -> Written:
    """The SQL dump's rows go into one shared database, OpenCode's and Kilo CLI's in turn;
    the legacy message file into OpenCode's storage tree."""
    for name, text in texts:
        body = fresh.text(text, ids)
        if name.endswith(".sql"):
            kilo = w.copies % 2 == 1
            base = w.home / ".local" / "share" / ("kilo" if kilo else "opencode")
            rows = [s for s in statements(body) if s.startswith("INSERT INTO")]
            connection, created = w.database(base / ("kilo.db" if kilo else "opencode.db"), body)
            if not created:
                for row in rows:
                    if not row.startswith("INSERT INTO migration"):
                        connection.execute(row)
            yield base, sum(map(len, rows))
        else:
            message = json.loads(body)
            storage = w.home / ".local" / "share" / "opencode" / "storage" / "message"
            yield storage / message["sessionID"] / f"{message['id']}.json", body


def statements(script: str) -> Iterator[str]:
    """A SQL script's statements (a statement may span lines: strings hold newlines)."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending.strip()
            pending = ""


LAYOUTS: dict[str, Layout] = {
    "claude-code": claude_code,
    "codex": codex,
    "pi": pi,
    "gemini-cli": gemini,
    "qwen-code": qwen,
    "kimi": kimi,
    "cline": cline,
    "copilot": copilot,
    "opencode": opencode,
}


def generate(
    target_mb: float, out: Path, shared: Path, seed: int = 42, minimum: int = 1
) -> dict[str, Any]:
    """Write the corpus under out/home (each agent its share of target_mb, at least `minimum`
    copies of each unit) and out/EXPECTED.json; return what it holds."""
    rows = read_expected(shared)
    home = out / "home"
    writer = Writer(home, shared, load_gen_corpus(shared), random.Random(seed))
    target = target_mb * 1024 * 1024
    copies = {agent: copy_agent(writer, agent, share * target, minimum)
              for agent, share in SHARE.items()}  # fmt: skip
    databases = writer.close()
    agents: dict[str, Any] = {}
    for agent, made in copies.items():
        units = [unit for unit in UNITS if unit.agent == agent]
        total = Figures()
        models: dict[str, Figures] = {}
        for unit in units:
            total += rows[unit.row].times(made[unit.name])
            for model, figures in rows.models(unit.row).items():
                models[model] = models.get(model, Figures()) + figures.times(made[unit.name])
        files = [path for root in ROOTS[agent] for path in (home / root).rglob("*")]
        agents[agent] = {
            "harnesses": list(units[0].harnesses),
            "copies": made,
            "bytes": sum(path.stat().st_size for path in files if path.is_file()),
            "files": sum(path.is_file() for path in files),
            **total.as_json(),
            "models": {model: figures.as_json() for model, figures in sorted(models.items())},
        }
    expected = {
        "target_mb": target_mb,
        "seed": seed,
        "bytes": sum(agent["bytes"] for agent in agents.values()),
        "files": sum(agent["files"] for agent in agents.values()),
        "databases": databases,
        "copies": writer.copies,
        "agents": agents,
    }
    (out / "EXPECTED.json").write_text(json.dumps(expected, indent=2) + "\n")
    return expected


def copy_agent(writer: Writer, agent: str, budget: float, minimum: int) -> dict[str, int]:
    """Copy the agent's units in turn until they fill `budget` bytes; return copies by unit."""
    units = [unit for unit in UNITS if unit.agent == agent]
    copies = dict.fromkeys((unit.name for unit in units), 0)
    written = 0
    while written < budget or min(copies.values()) < minimum:
        unit = units[sum(copies.values()) % len(units)]
        written += writer.copy(unit)
        copies[unit.name] += 1
    return copies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target_mb", type=float)
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--shared",
        type=Path,
        default=REPO.parent / "shared",
        help="folder holding samples/, agent-samples/ and bench/gen_corpus.py",
    )
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()  # fmt: skip
    if (args.out / "home").exists():
        sys.exit(f"{args.out / 'home'} exists: give a new folder")
    expected = generate(args.target_mb, args.out, args.shared, args.seed)
    summary = {k: v for k, v in expected.items() if k != "agents"}
    print(json.dumps({**summary, "agents": {a: v["bytes"] for a, v in expected["agents"].items()}}))


if __name__ == "__main__":
    main()
