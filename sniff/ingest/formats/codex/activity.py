"""Provides `RolloutActivity`: the tool calls, their outcomes and the user requests of a rollout.

Why in the parser's pass: agent analytics need the same lines a scan already decodes (see
`claude_code_activity`). Only small facts are kept, and an output's text is decoded only when
the call failed: its head and tail are searched as raw JSON.

What counts, each once:
- A tool call: a `function_call`, `custom_tool_call` or `local_shell_call` response item, by
  its `call_id` (a forked rollout's copy of a call is the same call: the merge keeps one). The
  response that asked for it is the next one the rollout counts: Codex writes a response's
  output items first, then the usage event that counts it.
- Its outcome, where the log states one: an exit code ("Exit code: N" or "Process exited with
  code N" at the head of the output, `metadata.exit_code` of a structured output, or an
  `exec_command_end` event), or one of Codex's own failure messages (`FAILURES`). A rollout
  does not keep a call's success flag, so an output that states neither (a command still
  running, an MCP tool's text, a redacted output) gives no result: that call's outcome is
  unknown, and reported as such, never as a success.
- A user request: a `user_message` event of a main rollout. The `response_item` user message
  repeats it, and the instructions and environment Codex injects are response items only. A
  subagent's messages come from the agent that spawned it, so none of them is a user request.
- An interruption: a `turn_aborted` event whose reason is `interrupted`.
"""

from __future__ import annotations

import hashlib
import re
import sys

import msgspec

from sniff.ingest.activity import EXCERPT
from sniff.ingest.plausible import epoch
from sniff.ingest.tool_detail import SHELL_TOOLS, keeps_output, output_text
from sniff.ingest.tool_detail import head as output_head
from sniff.model import Activity, AgentEvent, ToolCall, ToolResult

CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
RESULT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})
HEAD, TAIL = 256, 160
"""Bytes of an output's raw JSON searched for its exit code: the header of a command's output,
and the end of a structured output, where its `metadata` is."""

_HEADER_EXIT = re.compile(rb'(?:^"|\\n)(?:Exit code:|Process exited with code) (-?\d+)\\n')
_METADATA_EXIT = re.compile(rb'\\"exit_code\\": ?(-?\d+)')
_STRUCTURED = b'"{\\"output\\":'

FAILURES: tuple[tuple[bytes, str], ...] = (
    (b"exec command rejected by user", "the user declined the command at the approval prompt"),
    (b"patch rejected by user", "the user declined the patch at the approval prompt"),
    (b'aborted"', "the whole output: the turn was interrupted before the call ended"),
    (b"execution error:", "the command could not be started (sandbox, spawn)"),
    (b"apply_patch verification failed", "the patch does not fit the files"),
    (b"failed to parse function arguments", "the model's arguments do not fit the tool"),
    (b"unsupported call:", "the model called a tool Codex does not have"),
    (b"unsupported custom tool call:", "the same, for a custom (freeform) tool"),
)
"""Codex's own messages for a call that failed without an exit code, as the start of the
output's raw JSON text, with why each means a failure. Each then gets a class from its text
(`analyses.agents.tool_errors`)."""
_FAILURE = re.compile(b'^"(?:' + b"|".join(re.escape(start) for start, _ in FAILURES) + b")")

_OUTPUT = msgspec.json.Decoder(str)


class RolloutActivity:
    """The activity of one rollout so far (plain values only: a reader's state is pickled)."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[str, str, int, int]] = {}
        """call_id → (name, timestamp, index of the asking response in each response family)."""
        self.results: dict[str, tuple[str, str | None]] = {}
        """call_id → (timestamp, failure excerpt), for the calls whose outcome is stated."""
        self.exits: dict[str, tuple[str, int]] = {}
        """call_id → (timestamp, exit code) of `exec_command_end` events."""
        self.events: list[tuple[str, str, str, str]] = []
        """(kind, timestamp, text, identity) of user requests and interruptions."""
        self.details: dict[str, str] = {}
        """call_id → what it was for (a shell call's command)."""
        self.heads: dict[str, str] = {}
        """call_id → the start of a shell call's output."""

    def call(
        self,
        call_id: str,
        name: str | None,
        timestamp: str,
        asking: tuple[int, int],
        purpose: str | None = None,
    ) -> None:
        """A tool call; `asking`: how many responses each family counted before it; `purpose`:
        what it was for (`tool_detail.codex_detail`)."""
        if call_id not in self.calls:
            self.calls[call_id] = (sys.intern(name or "(unnamed)"), timestamp, *asking)
            if purpose:
                self.details[call_id] = purpose

    def output(self, call_id: str, raw: msgspec.Raw, timestamp: str) -> None:
        """A call's output item (its raw JSON): its outcome, where the output states one."""
        call = self.calls.get(call_id)
        shell = call is not None and call[0] in SHELL_TOOLS
        if shell and call_id not in self.heads and keeps_output(self.details.get(call_id)):
            printed = output_head(output_text(_text(raw)))
            if printed:
                self.heads[call_id] = printed
        if call_id in self.results:
            return
        view = memoryview(raw)  # outputs can be large: only their ends are copied
        head = bytes(view[:HEAD])
        found = _HEADER_EXIT.search(head)
        if found is None and head.startswith(_STRUCTURED):
            found = _last(_METADATA_EXIT, bytes(view[-TAIL:]))
        if found is not None:
            code = int(found.group(1))
            self.results[call_id] = (timestamp, _failure(code, raw) if code else None)
        elif _FAILURE.match(head):
            self.results[call_id] = (timestamp, _text(raw)[:EXCERPT])

    def exit(self, call_id: str, code: int, timestamp: str) -> None:
        """An `exec_command_end` event: the exit code of a call whose output may state none."""
        self.exits.setdefault(call_id, (timestamp, code))

    def user_message(self, raw: msgspec.Raw, timestamp: str) -> None:
        """A user's request (a `user_message` event of a main rollout)."""
        text = _text(raw).strip()
        if not text:
            return
        # a copied rollout (a branch, a fork) repeats the message with its time: the same one
        identity = hashlib.blake2b(f"{timestamp}\n{text}".encode(), digest_size=8).hexdigest()
        self.events.append(("instruction", timestamp, text[:EXCERPT], f"codex:{identity}"))

    def aborted(self, reason: msgspec.Raw, timestamp: str) -> None:
        """A turn ended early (`turn_aborted`): by the user when its reason is `interrupted`
        (not `replaced` by a new message, nor `review_ended`)."""
        if bytes(reason) == b'"interrupted"':
            self.events.append(("interrupt", timestamp, "", ""))

    def freeze(self, session: str, project: str, responses: list[str], family: int) -> Activity:
        """The activity as records. `responses`: the keys of the responses the rollout counts,
        of the family at index `family` of each call's `asking`."""
        results = dict(self.results)
        for call_id in (self.calls.keys() & self.exits.keys()) - results.keys():
            at, code = self.exits[call_id]
            results[call_id] = (at, f"Exit code {code}" if code else None)
        return Activity(
            calls=tuple(
                ToolCall(
                    call_id,
                    name,
                    _key(responses, asking[family]),
                    session,
                    project,
                    epoch(at),
                    self.details.get(call_id),
                )  # fmt: skip
                for call_id, (name, at, *asking) in self.calls.items()
            ),
            results=tuple(
                ToolResult(call_id, session, epoch(at), error, self.heads.get(call_id))
                for call_id, (at, error) in results.items()
            ),
            events=tuple(
                AgentEvent(kind, session, project, epoch(at), text, None, identity)
                for kind, at, text, identity in self.events
            ),
        )


def _key(keys: list[str], index: int) -> str:
    """The key of the response at `index`; "" when the rollout ends before it is counted."""
    return keys[index] if index < len(keys) else ""


def _last(pattern: re.Pattern[bytes], data: bytes) -> re.Match[bytes] | None:
    """The last match: a structured output's `metadata` follows any text its output quotes."""
    matches = list(pattern.finditer(data))
    return matches[-1] if matches else None


def _failure(code: int, raw: msgspec.Raw) -> str:
    """A failed command's excerpt, in the shape Claude Code writes: "Exit code N", its output."""
    return f"Exit code {code}\n{output_text(_text(raw))}".strip()[:EXCERPT]


def _text(raw: msgspec.Raw) -> str:
    """A raw JSON string's text; "" when it is no string (a list of content items)."""
    try:
        return _OUTPUT.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return ""
