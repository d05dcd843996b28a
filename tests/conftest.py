"""Shared fixtures: an isolated environment for every test, and builders of transcript lines.

Every test runs with its own price cache folder and its own empty home, so no test reads the
user's cache or real Claude Code logs, and no test leaves anything behind.

The line builders copy the shape of real Claude Code lines (`../shared/docs/log-formats.md`
§1.10 and the public samples): the same envelope fields, one content block per assistant line,
and the usage repeated on every streamed line of a response.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from sniff.ingest.files import locations

REPO = Path(__file__).resolve().parents[1]
SAMPLE_LOGS = REPO / "sample_logs"
FIRST_SAMPLES = tuple(
    str(SAMPLE_LOGS / name) for name in ("claude-code", "claude-trace", "codex", "request-logs")
)
"""The bundled logs of Claude Code, claude-trace, Codex and request logs: the folders whose
figures the tests written before the other agents' samples pin (those have golden tests of
their own)."""


def _shared() -> tuple[Path, Path]:
    """The shared material and its `samples/` folder, decided here for every test module.

    `SNIFF_TESTS_WITHOUT_SHARED=1` points both at a folder that does not exist, so the suite
    can be run as in a user's clone, where nothing sits beside the repository. Otherwise
    `SNIFF_SHARED` names the folder (`../shared` by default), and `SNIFF_SHARED_SAMPLES`, which
    predates it, still names the samples alone; the other folders are then its siblings.
    """
    if os.environ.get("SNIFF_TESTS_WITHOUT_SHARED", "") not in ("", "0"):
        absent = REPO / "tests" / "no-shared-material"  # never created: a clone's view
        return absent, absent / "samples"
    samples = os.environ.get("SNIFF_SHARED_SAMPLES")
    if os.environ.get("SNIFF_SHARED"):
        shared = Path(os.environ["SNIFF_SHARED"])
    elif samples:
        shared = Path(samples).parent
    else:
        shared = REPO.parent / "shared"
    return shared, Path(samples) if samples else shared / "samples"


SHARED, SHARED_SAMPLES = _shared()
"""The material beside the repository (`../shared`) and its real Claude Code and Codex logs,
`../shared/samples`: present in CI and in the authors' tree, absent from a user's clone."""
AGENT_SAMPLES = SHARED / "agent-samples"
"""The other agents' real logs, with their own EXPECTED.md."""

needs_shared = pytest.mark.skipif(
    not SHARED_SAMPLES.is_dir(),
    reason=f"shared samples not found at {SHARED_SAMPLES} (they sit beside the repository in "
    "CI; set SNIFF_SHARED or SNIFF_SHARED_SAMPLES to another copy)",
)
"""Skips a test that reads `SHARED_SAMPLES` where they are absent, as in a user's clone."""
needs_agent_samples = pytest.mark.skipif(
    not AGENT_SAMPLES.is_dir(),
    reason=f"shared agent samples not found at {AGENT_SAMPLES} (set SNIFF_SHARED to the folder "
    "that holds them)",
)
"""Skips a test that reads `AGENT_SAMPLES` where they are absent."""


def classes(row: dict[str, Any]) -> tuple[int, ...]:
    """A JSON row's requests, input, cache read, all cache writes, output and reasoning."""
    return (
        row["requests"],
        row["input_tokens"],
        row["cache_read_tokens"],
        row["cache_write_5m_tokens"] + row["cache_write_1h_tokens"],
        row["output_tokens"],
        row["reasoning_tokens"],
    )


@pytest.fixture(autouse=True)
def isolated_environment(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A private price cache, config folder and an empty home; no Claude config folder."""
    monkeypatch.setenv("SNIFF_CACHE_DIR", str(tmp_path_factory.mktemp("sniff-cache")))
    monkeypatch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setenv("SNIFF_CONFIG_DIR", str(tmp_path_factory.mktemp("sniff-config")))
    for name in locations.ENVIRONMENT:  # no agent's logs but the ones a test writes
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("WSL_DISTRO_NAME", raising=False)
    monkeypatch.setattr(locations, "WINDOWS_HOMES", str(tmp_path_factory.mktemp("no-windows")))


class Lines:
    """Builders of realistic Claude Code transcript lines (dicts) and files."""

    CWD = "/home/dana/src/webshop"
    SESSION = "515c8333-3a04-4486-ba63-376f81227b4f"
    SONNET_4 = "claude-sonnet-4-20250514"

    @staticmethod
    def user(
        uuid: str,
        parent: str | None,
        timestamp: str,
        text: str = "Run the tests.",
        *,
        session: str = SESSION,
        cwd: str | None = CWD,
        sidechain: bool = False,
        **extra: Any,
    ) -> dict[str, Any]:
        line: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session,
            "version": "1.0.98",
            "gitBranch": "main",
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": uuid,
            "timestamp": timestamp,
        }
        if cwd is None:
            del line["cwd"]
        line.update(extra)
        return line

    @staticmethod
    def tool_result(
        uuid: str, parent: str, timestamp: str, tool_use_id: str, **extra: Any
    ) -> dict[str, Any]:
        content = [{"tool_use_id": tool_use_id, "type": "tool_result", "content": "ok"}]
        return Lines.user(uuid, parent, timestamp, content, **extra)  # type: ignore[arg-type]

    @staticmethod
    def usage(
        input: int = 4,
        read: int = 0,
        write: int = 0,
        output: int = 1,
        *,
        split: tuple[int, int] | None = None,
    ) -> dict[str, Any]:
        """Anthropic usage; `split` = (5m, 1h) adds the `cache_creation` object."""
        usage: dict[str, Any] = {
            "input_tokens": input,
            "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read,
            "output_tokens": output,
            "service_tier": "standard",
        }
        if split is not None:
            usage["cache_creation"] = {
                "ephemeral_5m_input_tokens": split[0],
                "ephemeral_1h_input_tokens": split[1],
            }
        return usage

    @staticmethod
    def assistant(
        message_id: str | None,
        uuid: str,
        parent: str | None,
        timestamp: str,
        usage: dict[str, Any],
        *,
        model: str = SONNET_4,
        request_id: str | None = "auto",
        session: str = SESSION,
        cwd: str | None = CWD,
        sidechain: bool = False,
        block: dict[str, Any] | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """One streamed line of a response: one content block and the response's usage."""
        message: dict[str, Any] = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [block or {"type": "text", "text": "I'll look at the failing test."}],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage,
        }
        if message_id is None:
            del message["id"]
        line: dict[str, Any] = {
            "parentUuid": parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session,
            "version": "1.0.98",
            "gitBranch": "main",
            "message": message,
            "requestId": ("req_" + (message_id or uuid)) if request_id == "auto" else request_id,
            "type": "assistant",
            "uuid": uuid,
            "timestamp": timestamp,
        }
        if line["requestId"] is None:
            del line["requestId"]
        if cwd is None:
            del line["cwd"]
        line.update(extra)
        return line

    @staticmethod
    def agent_progress(
        uuid: str,
        parent: str,
        timestamp: str,
        inner: dict[str, Any],
        agent_id: str,
        *,
        session: str = SESSION,
    ) -> dict[str, Any]:
        """A 2.1.x parent-file `progress` line embedding one line of a subagent."""
        embedded = {
            "type": inner["type"],
            "message": inner["message"],
            "uuid": inner["uuid"],
            "timestamp": inner["timestamp"],
        }
        if "requestId" in inner:
            embedded["requestId"] = inner["requestId"]
        return {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": Lines.CWD,
            "sessionId": session,
            "version": "2.1.38",
            "gitBranch": "main",
            "type": "progress",
            "data": {
                "message": embedded,
                "normalizedMessages": [],
                "type": "agent_progress",
                "prompt": "Find every cache on the request path.",
                "agentId": agent_id,
            },
            "toolUseID": "agent_msg_" + uuid,
            "parentToolUseID": "toolu_task",
            "uuid": uuid,
            "timestamp": timestamp,
        }

    @staticmethod
    def write(path: Path, lines: Iterable[dict[str, Any] | str | bytes]) -> Path:
        """Write a JSONL file: dicts as JSON, str/bytes verbatim; every line ends in a newline."""
        path.parent.mkdir(parents=True, exist_ok=True)
        data = b""
        for line in lines:
            if isinstance(line, dict):
                data += json.dumps(line).encode() + b"\n"
            elif isinstance(line, str):
                data += line.encode() + b"\n"
            else:
                data += line + b"\n"
        path.write_bytes(data)
        return path


@pytest.fixture
def cc() -> type[Lines]:
    """The transcript line builders."""
    return Lines
