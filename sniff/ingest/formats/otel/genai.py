"""Provides `genai_signal`: the model call one OpenTelemetry signal of an agent other than
Claude Code stands for, as a sniff `Response`.

Three vocabularies, none checked against a real capture (docs/agents/otel-formats.md):
- The GenAI semantic conventions (open-telemetry/semantic-conventions-genai
  `model/gen-ai/spans.yaml`): one inference span (`gen_ai.operation.name` `chat`,
  `text_completion`, `generate_content`) is one call. `invoke_agent` spans sum the calls of a
  turn, and the `gen_ai.client.inference.operation.details` and `copilot_chat.agent.turn` logs
  repeat a call (Copilot writes all of them, ../shared/docs/agent-formats/copilot.md B): only
  the inference span is read.
- Codex's own events (openai/codex `codex-rs/otel/src/events/session_telemetry.rs`): the
  `codex.sse_event` of kind `response.completed` carries the token counts of one response.
- Gemini CLI's own events (google-gemini/gemini-cli `packages/core/src/telemetry/types.ts`):
  `gemini_cli.api_response` is one call, `gemini_cli.api_error` one failed call.
Codex and Gemini CLI also export GenAI spans or logs of the same calls: an agent whose own
events are read has its GenAI signals ignored, so that no call counts twice.

A count that is no plausible number of tokens (a word, a negative, a fraction, beyond
`PLAUSIBLE_TOKENS`) makes its signal unread; a time out of range or a hostile duration is left
unknown. Nothing an attribute says can raise.
"""

from __future__ import annotations

import math
from typing import Any

from sniff.ingest.formats.otel.signals import Kind, Signal
from sniff.ingest.gemini_wire import google_tokens
from sniff.ingest.plausible import EARLIEST, LATEST, PLAUSIBLE_TOKENS
from sniff.ingest.providers.openai import inclusive_tokens
from sniff.ingest.record import NO_TOKENS, TOP_LEVEL, Response, Tokens, epoch
from sniff.model import Agent, AgentEvent, Harness, ToolCall, ToolResult

SOURCE = "otel"
INFERENCE = frozenset({"chat", "text_completion", "generate_content"})
"""The operations of the GenAI conventions that are one call of a model (not `invoke_agent`,
`execute_tool`, `embeddings`, ...)."""
CODEX_EVENT = "codex.sse_event"
CODEX_COMPLETED = "response.completed"
GEMINI_RESPONSE = "gemini_cli.api_response"
GEMINI_ERROR = "gemini_cli.api_error"
GEMINI_SERVICE = "gemini-cli"
COPILOT_SERVICES = frozenset({"copilot-chat", "github-copilot", "copilot-cli", "copilot"})
"""`service.name` of Copilot's exports: VS Code's default `copilot-chat` (microsoft/vscode
`extensions/copilot/docs/monitoring/agent_monitoring.md`); the others are guesses, which the
`github.copilot.*` and `copilot_chat.*` attributes back up."""
COPILOT_PREFIXES = ("github.copilot.", "copilot_chat.")
MAX_SECONDS = 7 * 24 * 3600.0
"""The longest duration or time to first token believed (a week): beyond, it is unknown."""
MAX_TEXT = 512
"""Longest model name or id kept; a longer one is cut (an attribute may be hostile)."""

# The semantic conventions' names first, then the older or vendor names Copilot writes.
INPUT = ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens")
OUTPUT = ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens")
CACHE_READ = ("gen_ai.usage.cache_read.input_tokens",)
CACHE_WRITE = ("gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.cache_write.input_tokens")
REASONING = ("gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.reasoning_tokens")
SESSION = ("gen_ai.conversation.id", "copilot_chat.session_id", "session.id")
GEMINI_COUNTS = (
    "input_token_count",
    "cached_content_token_count",
    "output_token_count",
    "thoughts_token_count",
    "tool_token_count",
    "total_token_count",
)
GEMINI_ROLES = {"main": Agent.MAIN, "subagent": Agent.SUBAGENT}
"""Gemini CLI's `role` (its `LlmRole`) → the part of the agent that called; the compressor's
calls are compaction, every other `utility_*` role a background call."""

Found = Response | ToolCall | ToolResult | AgentEvent


def genai_signal(signal: Signal, path: str, project: str) -> Found | None:
    """The call one signal of another agent stands for; None for any other signal."""
    if signal.name == CODEX_EVENT:
        return _codex(signal, path, project)
    if signal.name in (GEMINI_RESPONSE, GEMINI_ERROR):
        return _gemini(signal, path, project)
    if signal.kind is not Kind.SPAN or _has_own_events(signal):
        return None  # GenAI logs repeat the spans' calls (module docstring)
    return _inference_span(signal, path, project)


def _has_own_events(signal: Signal) -> bool:
    """Whether the signal is of Codex or Gemini CLI, whose own events are what is read."""
    service = _text(signal.resource.get("service.name"))
    # Codex names its service codex-cli, codex_cli_rs, codex_exec, codex_tui, ... by front end
    return service.startswith("codex") or service == GEMINI_SERVICE


def _inference_span(signal: Signal, path: str, project: str) -> Response | None:
    """One call, from a span of the GenAI conventions."""
    attributes = signal.attributes
    operation = _text(attributes.get("gen_ai.operation.name")) or signal.name.partition(" ")[0]
    if operation not in INFERENCE:
        return None
    counts = [_first_count(attributes, names) for names in (INPUT, CACHE_READ, CACHE_WRITE)]
    counts += [_first_count(attributes, names) for names in (OUTPUT, REASONING)]
    failed = _text(attributes.get("error.type"))
    if any(count is None for count in counts):
        return None
    given, read, written, output, reasoning = (count or 0 for count in counts)
    if not failed and not _any_present(attributes, INPUT + OUTPUT + CACHE_READ):
        return None  # neither usage nor failure: nothing to count
    copilot = _is_copilot(signal)
    start, end = _moment(signal.start), _moment(signal.end)
    first = _first_token(attributes, start)
    response_id = _text(attributes.get("gen_ai.response.id"))
    provider = _text(attributes.get("gen_ai.provider.name") or attributes.get("gen_ai.system"))
    model = _text(attributes.get("gen_ai.response.model") or attributes.get("gen_ai.request.model"))
    return _response(
        _span_key(signal, response_id, path),
        _semconv_tokens(given, read, written, output, reasoning),
        ttl_assumed=written > 0,  # the conventions say no lifetime: 5 minutes assumed
        model=model,
        provider="github-copilot" if copilot else provider,
        session=_first_text(attributes, SESSION),
        times=(first, end, start),
        signal=signal,
        path=path,
        project=project,
        error=failed or None,
        harness=Harness.COPILOT if copilot else Harness.API,
    )


def _semconv_tokens(given: int, read: int, written: int, output: int, reasoning: int) -> Tokens:
    """The conventions' counts in sniff's classes. Their `input_tokens` SHOULD include cache
    reads and writes and `output_tokens` reasoning (spans.yaml, registry notes); Copilot's do
    (copilot.md B: "OTEL reports input_tokens inclusive of cache reads", tokscale). An input
    smaller than the cache it would include can only be a disjoint count, and is kept whole."""
    reasoning = min(reasoning, output)
    if given >= read + written:
        return inclusive_tokens(given, read, written, output, reasoning)
    return Tokens(given, read, written, 0, output, reasoning)


def _first_token(attributes: dict[str, Any], start: float | None) -> float | None:
    """When the first chunk came: the conventions' `gen_ai.response.time_to_first_chunk`
    (seconds), else Copilot's `copilot_chat.time_to_first_token` (milliseconds)."""
    if start is None:
        return None
    wait = _duration(attributes.get("gen_ai.response.time_to_first_chunk"), 1.0)
    if wait is None:
        wait = _duration(attributes.get("copilot_chat.time_to_first_token"), 1000.0)
    return start + wait if wait is not None else None


def _span_key(signal: Signal, response_id: str, path: str) -> str:
    """A call's identity: its response id, else its span's id, else its place in the file."""
    if response_id:
        return f"otel:{response_id}"
    if signal.span_id:
        return f"otel:span:{signal.span_id}"
    return f"otel:{path}:{signal.line}:{signal.name}:{signal.end}"


def _is_copilot(signal: Signal) -> bool:
    if _text(signal.resource.get("service.name")) in COPILOT_SERVICES:
        return True
    if signal.attributes.get("gen_ai.provider.name") == "github":
        return True
    return any(key.startswith(COPILOT_PREFIXES) for key in signal.attributes)


def _codex(signal: Signal, path: str, project: str) -> Response | None:
    """One response, from Codex's `codex.sse_event` of kind `response.completed`.

    Its counts are the Responses API's usage (codex-rs passes `usage.input_tokens`,
    `input_tokens_details.cached_tokens`, `output_tokens_details.reasoning_tokens`): input
    includes the cached input, output the reasoning. `tool_token_count` is the usage's
    `total_tokens` (codex-rs passes it there), not a class of its own: not read.
    """
    attributes = signal.attributes
    if attributes.get("event.kind") != CODEX_COMPLETED or "input_token_count" not in attributes:
        return None  # the other kinds, and a failed completion, carry no tokens
    names = ("input_token_count", "cached_token_count", "output_token_count")
    counts = [_count(attributes.get(name)) for name in (*names, "reasoning_token_count")]
    if any(count is None for count in counts):
        return None
    given, cached, output, reasoning = (count or 0 for count in counts)
    end = _moment(signal.end) or _moment(epoch(_text(attributes.get("event.timestamp"))))
    session = _text(attributes.get("conversation.id"))
    # No response id is logged: the conversation, time and counts name the event in any file
    key = f"otel:codex:{session}:{end}:{given}:{output}"
    return _response(
        key,
        inclusive_tokens(given, cached, 0, output, min(reasoning, output)),
        ttl_assumed=False,
        model=_text(attributes.get("model") or attributes.get("slug")),
        provider="openai",
        session=session,
        times=(None, end, None),
        signal=signal,
        path=path,
        project=project,
        error=None,
        harness=Harness.CODEX,
        version=_text(attributes.get("app.version")) or None,
    )


def _gemini(signal: Signal, path: str, project: str) -> Response | None:
    """One call, from Gemini CLI's `gemini_cli.api_response` (or a failed one, `api_error`).

    Its counts are the API's `usageMetadata` (types.ts `ApiResponseEvent`): cached content
    inside the prompt, thoughts and tool-use prompts beside (`google_tokens` settles both, as
    for Gemini CLI's transcripts). The event is logged when the call ended, `duration_ms` after
    it began.
    """
    attributes = signal.attributes
    failed = signal.name == GEMINI_ERROR
    tokens = NO_TOKENS
    if not failed:
        counts = [_count(attributes.get(name)) for name in GEMINI_COUNTS]
        if any(count is None for count in counts):
            return None
        tokens = google_tokens(*(count or 0 for count in counts))
        if not any(tokens):
            return None
    end = _moment(signal.end) or _moment(epoch(_text(attributes.get("event.timestamp"))))
    duration = _duration(attributes.get("duration_ms"), 1000.0)
    start = end - duration if end is not None and duration is not None else None
    session = _text(attributes.get("session.id"))
    prompt = _text(attributes.get("prompt_id"))
    role = _text(attributes.get("role")) or "main"
    agent = GEMINI_ROLES.get(role) or (
        Agent.COMPACTION if role == "utility_compressor" else Agent.OTHER
    )
    return _response(
        f"otel:gemini:{session}:{prompt}:{end}",
        tokens,
        ttl_assumed=False,
        model=_text(attributes.get("model")),
        provider="google",
        session=session,
        times=(None, end, start),
        signal=signal,
        path=path,
        project=project,
        error=_gemini_error(attributes) if failed else None,
        harness=Harness.GEMINI_CLI,
        agent=(agent, role),
        reasoning_apart=True,  # thoughts are counted beside the candidates
    )


def _gemini_error(attributes: dict[str, Any]) -> str:
    status = _text(attributes.get("status_code"))
    text = _text(attributes.get("error") or attributes.get("error.message")) or "API error"
    return f"{status}: {text}" if status else text


def _response(
    key: str,
    tokens: Tokens,
    *,
    ttl_assumed: bool,
    model: str,
    provider: str,
    session: str,
    times: tuple[float | None, float | None, float | None],
    signal: Signal,
    path: str,
    project: str,
    error: str | None,
    harness: Harness,
    version: str | None = None,
    agent: tuple[Agent, str] = (Agent.MAIN, "main"),
    reasoning_apart: bool = False,
) -> Response:
    """A `Response` of the fields the three vocabularies share; `times` is (first token, end,
    start)."""
    first, end, start = times
    return Response(
        SOURCE, key, TOP_LEVEL, tokens, ttl_assumed, model or "(unknown)", provider, session,
        agent[0], agent[1], project, first, end, start,
        version or _text(signal.resource.get("service.version")) or None, path, signal.line,
        error=error, thinks=tokens.reasoning > 0, harness=harness,
        reasoning_apart=reasoning_apart,
    )  # fmt: skip


def _first_count(attributes: dict[str, Any], names: tuple[str, ...]) -> int | None:
    """The first of `names` present, as a count (0 when none is); None when implausible."""
    for name in names:
        if attributes.get(name) is not None:
            return _count(attributes[name])
    return 0


def _any_present(attributes: dict[str, Any], names: tuple[str, ...]) -> bool:
    return any(attributes.get(name) is not None for name in names)


def _count(value: object) -> int | None:
    """A token count: an integer, a whole float or a decimal text (Codex logs its counts as
    text), from 0 to `PLAUSIBLE_TOKENS`; 0 when absent; None when anything else."""
    if value is None:
        return 0
    if isinstance(value, str):
        text = value.strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 10):
            return None
        value = int(text)
    if isinstance(value, float):
        value = int(value) if value.is_integer() else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= PLAUSIBLE_TOKENS:
        return value
    return None


def _duration(value: object, per_second: float) -> float | None:
    """A duration in seconds from a count of `per_second` units (a number or a decimal text);
    None when absent, negative, not finite or longer than `MAX_SECONDS`."""
    if isinstance(value, str):
        try:
            value = float(value) if len(value) <= 32 else None
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        seconds = value / per_second
    except OverflowError:  # an integer too large for a float
        return None
    return seconds if math.isfinite(seconds) and 0 <= seconds <= MAX_SECONDS else None


def _moment(when: float | None) -> float | None:
    """A time in epoch seconds, or None when out of the years sniff reads."""
    return when if when is not None and EARLIEST <= when < LATEST else None


def _first_text(attributes: dict[str, Any], names: tuple[str, ...]) -> str:
    return next((text for name in names if (text := _text(attributes.get(name)))), "")


def _text(value: object) -> str:
    """An attribute as text: a string (cut to `MAX_TEXT`), a number's decimal form, else ""."""
    if isinstance(value, str):
        return value[:MAX_TEXT]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)[:MAX_TEXT]
    return ""
