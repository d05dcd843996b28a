"""Provides `ActivityLog`: the tool calls, tool results and user requests of one log file,
which every agent's reader fills as it reads the usage, and what the readers share about them
(`EXCERPT`, the texts a harness injects as a user turn, `typed_text`).

Why in the same pass: agent analytics (which tools ran, which failed and why, what each user
request led to) need the same lines a scan already decodes; reading them again would double
the cost. Only small facts are kept: ids, names, times, and short excerpts of user requests
and failures (full tool outputs are never decoded).
"""

from __future__ import annotations

import re

import msgspec

from sniff.ingest.plausible import epoch
from sniff.model import Activity, AgentEvent, ToolCall, ToolResult

EXCERPT = 240
"""Characters kept of a user request or a failure's text."""
INJECTED: tuple[tuple[str, str], ...] = (
    ("<task-notification>", "a background task or subagent ended (Claude Code 2.1; queued first)"),
    ("<local-command-stdout>", "the output of a local command (/model, /cost), after its line"),
    ("<local-command-stderr>", "the same, its error output"),
    ("<local-command-caveat>", "the caveat written before a local command's lines"),
    ("Caveat: The messages below", "the same caveat, untagged (Claude Code 2.0)"),
    ("<bash-stdout>", "the output of a shell command the user ran with `!`"),
    ("<bash-stderr>", "the same, its error output"),
    ("<user-prompt-submit-hook>", "the output of a UserPromptSubmit hook"),
    ("This session is being continued from a previous conversation", "a compaction summary"),
)
"""Texts the harness writes as a user turn, by how they start, and what each is. Seen in the
samples: local command output and caveats (a 2.0 transcript, the sample logs), compaction
summaries. Named by the log format notes: task notifications (which `queue-operation` lines
carry first), compaction summaries. The others are Claude Code's own tags for harness output."""
REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
"""Reminders the harness adds to a turn (seen in the text blocks of user turns of a claude-trace
capture, and in tool results): never typed, removed from a request's text."""


class ActivityLog(msgspec.Struct, gc=False):
    """The activity of one file so far (a struct: kept with its reader between runs)."""

    calls: dict[str, tuple[str, str, str, str | None]] = msgspec.field(default_factory=dict)
    """tool_use id → (name, response key, session, timestamp)."""
    results: dict[str, tuple[str, str | None, str | None]] = msgspec.field(default_factory=dict)
    """tool_use id → (session, timestamp, failure excerpt)."""
    events: list[tuple[str, str, str | None, str, str | None, str]] = msgspec.field(
        default_factory=list
    )
    """(kind, session, timestamp, text, command, uuid)."""
    details: dict[str, str] = msgspec.field(default_factory=dict)
    """tool_use id → what it was for (`tool_detail.detail`), for the tools that say."""
    heads: dict[str, str] = msgspec.field(default_factory=dict)
    """tool_use id → the start of a shell call's output."""
    launched: dict[str, str] = msgspec.field(default_factory=dict)
    """tool_use id → the subagent run a launch's result names (`toolUseResult.agentId`)."""
    awaited: dict[str, bool] = msgspec.field(default_factory=dict)
    """tool_use id → whether it is a shell call (else a subagent launch), for the calls whose
    result is read (`heads`, `launched`): one lookup per result tells the others apart."""

    def freeze(self, project: str) -> Activity:
        """The activity as records (`project`: the file's, known once its lines are read)."""
        return Activity(
            calls=tuple(
                ToolCall(tool_id, name, key, session, project, epoch(at), self.details.get(tool_id))
                for tool_id, (name, key, session, at) in self.calls.items()
            ),
            results=tuple(
                ToolResult(
                    tool_id,
                    session,
                    epoch(at),
                    error,
                    self.heads.get(tool_id),
                    self.launched.get(tool_id),
                )  # fmt: skip
                for tool_id, (session, at, error) in self.results.items()
            ),
            events=tuple(
                AgentEvent(kind, session, project, epoch(at), text, command, uuid)
                for kind, session, at, text, command, uuid in self.events
            ),
        )


def typed_text(text: str) -> str:
    """What of a user turn's text (a string, or one text block) the user typed: "" for a text
    the harness injected (`INJECTED`), and no reminders (`REMINDER`)."""
    if "<system-reminder>" in text:
        text = REMINDER.sub("", text)
    text = text.strip()
    return "" if text.startswith(_INJECTED_STARTS) else text


_INJECTED_STARTS = tuple(start for start, _ in INJECTED)
