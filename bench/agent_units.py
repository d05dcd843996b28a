"""The sample units the mixed-agent corpus copies: which shared files make one copy, which
EXPECTED.md row counts them, and which of their fields hold identities.

A unit is every file one row of an EXPECTED.md counts, except files that row counts as
nothing and that no agent writes where sniff looks: pi's lone message object
(`assistant-message-with-thinking-code.json`), Qwen's value-blanked telemetry fixture,
Cline's compaction fixtures and captured provider payloads, Kimi's manifest of a session whose
wire file is not in the samples, and VS Code Copilot Chat's `copilot.json` (no token counts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

AGENTS = "agent-samples"
SAMPLES = "samples"
AGTRACE = f"{SAMPLES}/agtrace/crates/agtrace-providers/tests/samples"
STAGE0 = "agent-sessions/Resources/Fixtures/stage0/agents"
CLAUDE_KEYS = ("agentId", "id", "tool_use_id")
"""What gen_corpus's clone leaves as it was: sub-agent ids, server tools' and todos' ids."""
CODEX_CALL = re.compile(r"\bcall_[A-Za-z0-9]{10,}\b")
"""Codex's tool-call ids (gen_corpus's clone renews the session and turn ids)."""


@dataclass(frozen=True)
class Unit:
    """One copyable sample."""

    name: str
    agent: str
    """The agent (format family) whose totals it adds to in EXPECTED.json."""
    harnesses: tuple[str, ...]
    """The harnesses sniff may name for its requests (`by_harness`)."""
    row: str
    """Its row in `expected_md.read_expected`."""
    files: tuple[str, ...]
    """Glob patterns under the shared folder, in the order the layout wants them."""
    keys: tuple[str, ...] = ()
    """JSON keys whose string values are identities (replaced wherever they occur)."""
    prefixed: re.Pattern[str] | None = None
    """Identities found by their shape wherever they are (SQL columns as well as JSON)."""
    uuid_keys: tuple[str, ...] = ()
    """Of `keys`, those the agent fills with a UUID (a fixture may hold a readable name)."""


UNITS = (
    Unit("sniffly", "claude-code", ("claude-code",), "claude-code:sniffly",
         (f"{SAMPLES}/sniffly/**/*.jsonl",), CLAUDE_KEYS),
    Unit("claude-code-viewer", "claude-code", ("claude-code",), "claude-code:claude-code-viewer",
         (f"{SAMPLES}/claude-code-viewer/**/*.jsonl",), CLAUDE_KEYS),
    Unit("agtrace-claude", "claude-code", ("claude-code",), "claude-code:agtrace",
         (f"{AGTRACE}/claude_session.jsonl", f"{AGTRACE}/claude_agent.jsonl"), CLAUDE_KEYS),
    Unit("agtrace-codex", "codex", ("codex",), "codex:agtrace",
         (f"{AGTRACE}/codex_session.jsonl",), prefixed=CODEX_CALL),
    Unit("localpush", "codex", ("codex",), "codex:localpush",
         (f"{SAMPLES}/localpush/src-tauri/tests/fixtures/codex/*/raw/sessions/*.jsonl",),
         prefixed=CODEX_CALL),
    Unit("pi", "pi", ("pi", "openclaw"), "pi-agent",
         (f"{AGENTS}/pi-agent/pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
          f"{AGENTS}/pi-agent/{STAGE0}/pi/small.jsonl"),
         ("id", "parentId", "firstKeptEntryId", "responseId")),
    Unit("gemini-cli", "gemini-cli", ("gemini-cli",), "gemini-cli",
         (f"{AGENTS}/gemini-cli/agtrace/**/gemini_session.json",
          f"{AGENTS}/gemini-cli/{STAGE0}/gemini/jsonl_v040.jsonl"),
         ("sessionId", "id"), uuid_keys=("sessionId",)),
    Unit("qwen-code", "qwen-code", ("qwen-code",), "qwen-code",
         (f"{AGENTS}/qwen-code/splitrail/**/qwen_code.jsonl",),
         ("uuid", "parentUuid", "sessionId", "response_id", "id", "callId")),
    Unit("kimi", "kimi", ("kimi",), "kimi",
         tuple(f"{AGENTS}/kimi/{STAGE0}/kimi/{name}" for name in
               ("assistant_tools.state.json", "assistant_tools.jsonl", "subagent_agent-0.jsonl")),
         ("uuid", "stepUuid", "toolCallId", "messageId", "id")),
    Unit("cline", "cline", ("cline", "roo-code", "kilo-code"), "cline",
         (f"{AGENTS}/cline/cline/sdk/packages/core/fixtures/session/session.json",
          f"{AGENTS}/cline/cline/sdk/packages/core/fixtures/session/session.messages.json"),
         ("session_id", "sessionId", "forkedFromSessionId", "id", "tool_use_id",
          "hubCapabilityOwnerClientId")),
    Unit("copilot", "copilot", ("copilot",), "copilot",
         (f"{AGENTS}/copilot/{STAGE0}/copilot/small.jsonl",
          f"{AGENTS}/copilot/{STAGE0}/copilot/schema_drift.jsonl",
          f"{AGENTS}/copilot/{STAGE0}/copilot/subdir_v1/*/events.jsonl"),
         ("sessionId", "id", "parentId", "messageId", "apiCallId", "clientRequestId",
          "requestId", "serviceRequestId", "providerCallId", "interactionId", "toolCallId",
          "parentToolCallId", "hookInvocationId", "reasoningId", "turnId"),
         uuid_keys=("sessionId",)),
    Unit("opencode", "opencode", ("opencode", "kilo"), "opencode",
         (f"{AGENTS}/opencode/kilocode/**/kilo.db.sql",
          f"{AGENTS}/opencode/tokscale/**/storage/message/*/*.json"),
         prefixed=re.compile(r"\b(?:ses|msg|prt|evt|prj)_[A-Za-z0-9_]+")),
)  # fmt: skip
