"""A planted Claude Code session for the commit and attribution tests: each step is one API
call (an assistant line with known usage), optionally asking for one tool whose result follows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"
SESSION = "5e551011-0000-4000-8000-000000000001"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Step:
    """One API call: its tokens, the tool it asks for (name, input) and what that printed."""

    input_tokens: int = 10
    output_tokens: int = 100
    cache_read: int = 1000
    cache_write: int = 0
    tool: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)
    output: str | None = None
    is_error: bool = False
    tool_use_result: dict[str, Any] | None = None


def bash(command: str, output: str, *, is_error: bool = False, **usage: int) -> Step:
    """A call asking for one Bash command, and what it printed."""
    return Step(
        tool="Bash", tool_input={"command": command}, output=output, is_error=is_error, **usage
    )


def write_session(
    folder: Path,
    steps: list[Step],
    *,
    session: str = SESSION,
    agent: str | None = None,
    start: datetime = START,
    prompt: str = "build the feature",
    gap: timedelta = timedelta(minutes=1),
    sidechain: str | None = None,
) -> Path:
    """The transcript of `steps`, `gap` apart from `start`: the session's, or a subagent's
    (`agent-<agent>.jsonl` under the session's `subagents` folder, when `agent` is given), or
    a 1.0-style inline sidechain's (`isSidechain`, no `agentId`: file `<sidechain>.jsonl`)."""
    if sidechain is not None:
        path = folder / "-home-dev-planted" / f"{sidechain}.jsonl"
    elif agent is None:
        path = folder / "-home-dev-planted" / f"{session}.jsonl"
    else:
        path = folder / "-home-dev-planted" / session / "subagents" / f"agent-{agent}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = []
    common: dict[str, Any] = {"sessionId": session, "cwd": "/home/dev/planted", "version": "2.1.30"}
    if agent is not None:
        common |= {"agentId": agent, "isSidechain": True}
    elif sidechain is not None:
        common |= {"isSidechain": True}
    prefix = agent or sidechain or "main"
    parent = f"{prefix}-u0"
    lines.append(
        {
            **common,
            "type": "user",
            "uuid": parent,
            "parentUuid": None,
            "timestamp": _at(start),
            "message": {"role": "user", "content": prompt},
        }
    )
    for number, step in enumerate(steps, 1):
        at = start + gap * number
        content: list[dict[str, Any]] = [{"type": "text", "text": f"step {number}"}]
        tool_id = f"toolu_{prefix}_{number}"
        if step.tool:
            content.append(
                {"type": "tool_use", "id": tool_id, "name": step.tool, "input": step.tool_input}
            )
        usage = {
            "input_tokens": step.input_tokens,
            "output_tokens": step.output_tokens,
            "cache_read_input_tokens": step.cache_read,
            "cache_creation_input_tokens": step.cache_write,
        }
        uuid = f"{prefix}-a{number}"
        lines.append(
            {
                **common,
                "type": "assistant",
                "uuid": uuid,
                "parentUuid": parent,
                "timestamp": _at(at),
                "requestId": f"req_{prefix}_{number}",
                "message": {
                    "id": f"msg_{prefix}_{number}",
                    "model": MODEL,
                    "role": "assistant",
                    "content": content,
                    "usage": usage,
                },
            }
        )
        parent = uuid
        if step.tool:
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": tool_id,
                "content": step.output or "",
                "is_error": step.is_error,
            }
            line = {
                **common,
                "type": "user",
                "uuid": f"{prefix}-r{number}",
                "parentUuid": parent,
                "timestamp": _at(at + timedelta(seconds=20)),
                "message": {"role": "user", "content": [result]},
            }
            if step.tool_use_result is not None:
                line["toolUseResult"] = step.tool_use_result
            lines.append(line)
            parent = line["uuid"]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _at(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
