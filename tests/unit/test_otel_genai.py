"""Other agents' OpenTelemetry (`otel.genai`): GenAI inference spans (Copilot's among them),
Codex's and Gemini CLI's own events, one call counted once, and hostile attributes.

The exports are built by hand from each agent's documentation and source (no real capture):
docs/agents/otel-formats.md says which.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from sniff.ingest.formats.otel.reader import parse_data
from sniff.ingest.record import Prompts, Response, Tokens
from sniff.model import Agent, Harness

T0 = 1_780_000_000  # epoch seconds of the calls below
NS = 1_000_000_000


def value(item: Any) -> dict[str, Any]:
    """An OTLP/JSON `AnyValue` (64-bit integers as text, as the specification writes them)."""
    if isinstance(item, bool):
        return {"boolValue": item}
    if isinstance(item, int):
        return {"intValue": str(item)}
    if isinstance(item, float):
        return {"doubleValue": item}
    if isinstance(item, list):
        return {"arrayValue": {"values": [value(element) for element in item]}}
    if isinstance(item, dict):
        return {"kvlistValue": {"values": attributes(item)}}
    return {"stringValue": item}


def attributes(items: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": key, "value": value(item)} for key, item in items.items()]


def resource(service: str, version: str = "1.0.0") -> dict[str, Any]:
    return {"attributes": attributes({"service.name": service, "service.version": version})}


def span(name: str, span_id: str, start: float, end: float, **attrs: Any) -> dict[str, Any]:
    return {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": span_id,
        "name": name,
        "kind": 3,
        "startTimeUnixNano": str(int(start * NS)),
        "endTimeUnixNano": str(int(end * NS)),
        "attributes": attributes(attrs),
    }


def log(event: str, when: float, **attrs: Any) -> dict[str, Any]:
    return {
        "timeUnixNano": str(int(when * NS)),
        "body": {"stringValue": event},
        "attributes": attributes({"event.name": event, **attrs}),
    }


def spans_export(service: str, *spans: dict[str, Any]) -> dict[str, Any]:
    scope = {"scope": {"name": service}, "spans": list(spans)}
    return {"resourceSpans": [{"resource": resource(service), "scopeSpans": [scope]}]}


def logs_export(service: str, *records: dict[str, Any]) -> dict[str, Any]:
    scope = {"scope": {"name": service}, "logRecords": list(records)}
    return {"resourceLogs": [{"resource": resource(service), "scopeLogs": [scope]}]}


def read(*exports: dict[str, Any]) -> list[Response]:
    data = b"\n".join(orjson.dumps(export) for export in exports) + b"\n"
    result = parse_data("/otel/export.jsonl", data, "proj", Prompts.NONE)
    assert result.issues == []
    return result.responses


# Copilot (copilot.md B; microsoft/vscode extensions/copilot/docs/monitoring/agent_monitoring.md)
CHAT = dict(
    **{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "github"},
    **{"gen_ai.request.model": "claude-sonnet-4.5", "gen_ai.response.model": "claude-sonnet-4.5"},
    **{"gen_ai.response.id": "chatcmpl-1", "gen_ai.conversation.id": "conv-1"},
    **{"gen_ai.usage.input_tokens": 1500, "gen_ai.usage.output_tokens": 250},
    **{"gen_ai.usage.cache_read.input_tokens": 1200},
    **{"gen_ai.usage.cache_creation.input_tokens": 100},
    **{"gen_ai.usage.reasoning.output_tokens": 100},
    **{"gen_ai.response.time_to_first_chunk": 0.45},
)
AGENT: dict[str, Any] = {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.provider.name": "github",
    "gen_ai.agent.name": "copilot",
    "gen_ai.conversation.id": "conv-1",
    "gen_ai.usage.input_tokens": 1500,
    "gen_ai.usage.output_tokens": 250,
}
DETAILS: dict[str, Any] = {
    "gen_ai.operation.name": "chat",
    "gen_ai.response.id": "chatcmpl-1",
    "gen_ai.usage.input_tokens": 1500,
    "gen_ai.usage.output_tokens": 250,
}


def test_copilot_counts_each_call_once_from_its_chat_span() -> None:
    responses = read(
        spans_export(
            "github-copilot",
            span("invoke_agent copilot", "00f067aa0ba902b7", T0, T0 + 10, **AGENT),
            span("chat claude-sonnet-4.5", "00f067aa0ba902b8", T0 + 1, T0 + 4, **CHAT),
            span(
                "execute_tool bash",
                "00f067aa0ba902b9",
                T0 + 4,
                T0 + 5,
                **AGENT | {"gen_ai.operation.name": "execute_tool"},
            ),
        ),
        logs_export(
            "github-copilot",
            log("gen_ai.client.inference.operation.details", T0 + 4, **DETAILS),
            log("copilot_chat.agent.turn", T0 + 4, **{"turn.index": 0} | DETAILS),
        ),
    )
    assert len(responses) == 1
    call = responses[0]
    assert call.key == "otel:chatcmpl-1"
    # input includes the cache reads and writes; reasoning is inside the output
    assert call.usage == Tokens(200, 1200, 100, 0, 250, 100)
    assert call.ttl_assumed
    assert (call.model, call.provider, call.session_id) == (
        "claude-sonnet-4.5",
        "github-copilot",
        "conv-1",
    )
    assert call.harness is Harness.COPILOT
    assert call.started_at == pytest.approx(T0 + 1)
    assert call.last_at == pytest.approx(T0 + 4)
    assert call.first_at == pytest.approx(T0 + 1.45)
    assert call.version == "1.0.0"
    assert call.thinks and not call.reasoning_apart


def test_a_generic_genai_span_is_a_call_of_the_api() -> None:
    attrs = {
        "gen_ai.operation.name": "text_completion",
        "gen_ai.system": "openai",  # the older name of gen_ai.provider.name
        "gen_ai.request.model": "gpt-5",
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.cache_read.input_tokens": 100,  # more than the input: a disjoint count
        "gen_ai.usage.output_tokens": 7,
    }
    (call,) = read(spans_export("my-app", span("text_completion gpt-5", "a1", T0, T0 + 2, **attrs)))
    assert call.key.startswith("otel:/otel/export.jsonl:1:")  # no response id, no valid span id
    assert call.usage == Tokens(40, 100, 0, 0, 7, 0)
    assert (call.harness, call.provider, call.model) == (Harness.API, "openai", "gpt-5")
    assert not call.ttl_assumed and call.first_at is None


def test_a_genai_span_is_keyed_by_its_span_id_without_a_response_id() -> None:
    attrs = {"gen_ai.operation.name": "generate_content", "gen_ai.usage.input_tokens": 5}
    (call,) = read(
        spans_export("my-app", span("generate_content m", "00f067aa0ba902b7", T0, T0 + 1, **attrs))
    )
    assert call.key == "otel:span:00f067aa0ba902b7"
    assert call.model == "(unknown)"


def test_a_failed_chat_span_is_a_failed_call() -> None:
    attrs = {"gen_ai.operation.name": "chat", "error.type": "TimeoutError"}
    (call,) = read(spans_export("my-app", span("chat m", "00f067aa0ba902b7", T0, T0 + 30, **attrs)))
    assert call.error == "TimeoutError"
    assert call.total == 0


def test_spans_that_are_no_call_are_not_read() -> None:
    other = {"gen_ai.usage.input_tokens": 5, "gen_ai.usage.output_tokens": 5}
    embeddings = {"gen_ai.operation.name": "embeddings"} | other
    assert (
        read(
            spans_export(
                "my-app",
                span("embeddings m", "b1", T0, T0 + 1, **embeddings),
                span("chat m", "b2", T0, T0 + 1, **{"gen_ai.operation.name": "chat"}),  # no usage
                span("http get", "b3", T0, T0 + 1, **other),
            )
        )
        == []
    )


# Codex (openai/codex codex-rs/otel/src/events/session_telemetry.rs, shared/log.rs)
CODEX_COMMON: dict[str, Any] = {
    "conversation.id": "0199a213-81c0-7800-8aa1-bbab2a035a53",
    "app.version": "0.50.0",
    "terminal.type": "xterm",
    "model": "gpt-5-codex",
    "slug": "gpt-5-codex",
}


def codex_completed(when: float, **counts: Any) -> dict[str, Any]:
    return log(
        "codex.sse_event",
        when,
        **CODEX_COMMON,
        **{"event.kind": "response.completed", "event.timestamp": "2026-05-28T20:26:40.000Z"},
        **counts,
    )


def test_codex_response_completed_is_one_call() -> None:
    # codex-rs logs its counts with `%` (Display): they arrive as text
    counts = {"input_token_count": "100", "output_token_count": "10", "cached_token_count": 40}
    counts |= {"reasoning_token_count": 5, "tool_token_count": "110"}
    responses = read(
        logs_export(
            "codex_exec",
            log("codex.sse_event", T0 + 1, **CODEX_COMMON, **{"event.kind": "response.created"}),
            codex_completed(T0 + 2, **counts),
            log("codex.api_request", T0, **CODEX_COMMON, duration_ms="800"),
        ),
        # its trace spans record the same usage: not counted again
        spans_export(
            "codex_exec",
            span(
                "handle_responses",
                "c1",
                T0,
                T0 + 2,
                **{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 100},
            ),
        ),
    )
    (call,) = responses
    assert call.usage == Tokens(60, 40, 0, 0, 10, 5)  # input held the cached input
    assert call.harness is Harness.CODEX
    assert (call.model, call.provider) == ("gpt-5-codex", "openai")
    assert call.session_id == CODEX_COMMON["conversation.id"]
    assert call.last_at == pytest.approx(T0 + 2)
    assert call.started_at is None and call.first_at is None
    assert call.version == "0.50.0"
    assert call.key.startswith("otel:codex:0199a213")


def test_codex_event_without_its_record_time_takes_its_timestamp() -> None:
    record = codex_completed(0, input_token_count=3, output_token_count=1)
    del record["timeUnixNano"]
    (call,) = read(logs_export("codex-cli", record))
    assert call.last_at is not None and call.last_at > 1.7e9


# Gemini CLI (google-gemini/gemini-cli packages/core/src/telemetry/types.ts, telemetryAttributes.ts)
GEMINI_COMMON: dict[str, Any] = {
    "session.id": "sess-9",
    "installation.id": "inst",
    "interactive": True,
}


def test_gemini_api_response_is_one_call() -> None:
    attrs = GEMINI_COMMON | {
        "model": "gemini-2.5-pro",
        "duration_ms": 1500,
        "input_token_count": 1000,
        "output_token_count": 50,
        "cached_content_token_count": 600,
        "thoughts_token_count": 20,
        "tool_token_count": 0,
        "total_token_count": 1070,
        "prompt_id": "p-1",
        "status_code": 200,
        "role": "subagent",
    }
    semantic = GEMINI_COMMON | {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.usage.input_tokens": 1000,
    }
    (call,) = read(
        logs_export(
            "gemini-cli",
            log("gemini_cli.api_response", T0 + 5, **attrs),
            log("gen_ai.client.inference.operation.details", T0 + 5, **semantic),
        ),
        spans_export(
            "gemini-cli", span("generate_content gemini-2.5-pro", "d1", T0, T0 + 5, **semantic)
        ),
    )
    assert call.usage == Tokens(400, 600, 0, 0, 50, 20)  # cached inside the prompt
    assert call.reasoning_apart  # thoughts beside the candidates
    assert (call.harness, call.provider, call.model) == (
        Harness.GEMINI_CLI,
        "google",
        "gemini-2.5-pro",
    )
    assert call.session_id == "sess-9"
    assert (call.agent, call.agent_id) == (Agent.SUBAGENT, "subagent")
    assert call.last_at == pytest.approx(T0 + 5)
    assert call.started_at == pytest.approx(T0 + 3.5)


def test_gemini_api_error_is_a_failed_call() -> None:
    attrs = GEMINI_COMMON | {
        "model": "gemini-2.5-pro",
        "error": "quota",
        "status_code": 429,
        "duration_ms": 200,
        "prompt_id": "p-2",
    }
    (call,) = read(logs_export("gemini-cli", log("gemini_cli.api_error", T0, **attrs)))
    assert call.error == "429: quota"
    assert call.total == 0
    assert call.harness is Harness.GEMINI_CLI


# Hostile values: never an exception; a signal with a count that is no count is not read
HOSTILE_COUNTS: list[Any] = ["lots", -5, 1.5, 10**12, True, [1, 2], {"a": 1}, "", "١٢", "1e3"]


@pytest.mark.parametrize("bad", HOSTILE_COUNTS)
def test_a_hostile_count_drops_its_signal_and_nothing_else(bad: Any) -> None:
    good = read(
        spans_export(
            "my-app",
            span(
                "chat m",
                "e1",
                T0,
                T0 + 1,
                **{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": bad},
            ),
            span(
                "chat m",
                "e2",
                T0,
                T0 + 1,
                **{"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 9},
            ),
        ),
        logs_export("codex_exec", codex_completed(T0, input_token_count=bad)),
        logs_export(
            "gemini-cli",
            log(
                "gemini_cli.api_response",
                T0,
                **GEMINI_COMMON,
                input_token_count=5,
                output_token_count=bad,
            ),
        ),
    )
    assert [call.usage.input for call in good] == [9]


@pytest.mark.parametrize("bad", ["soon", -10, 10**400, float("nan"), "1e999", [3], None])
def test_hostile_times_are_left_unknown(bad: Any) -> None:
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.response.time_to_first_chunk": bad,
    }
    (call,) = read(spans_export("my-app", span("chat m", "f1", T0, T0 + 1, **attrs)))
    assert call.first_at is None
    gemini = GEMINI_COMMON | {"input_token_count": 5, "duration_ms": bad}
    (gemini_call,) = read(logs_export("gemini-cli", log("gemini_cli.api_response", T0, **gemini)))
    assert gemini_call.started_at is None and gemini_call.last_at == pytest.approx(T0)


def test_missing_and_odd_attributes_do_not_raise() -> None:
    responses = read(
        spans_export(
            "my-app",
            span(
                "chat",
                "",
                0,
                0,
                **{
                    "gen_ai.operation.name": "chat",
                    "gen_ai.usage.output_tokens": 1,
                    "gen_ai.request.model": {"x": [1]},
                    "gen_ai.conversation.id": ["a"],
                },
            ),
        ),
        logs_export(
            "codex_exec", log("codex.sse_event", T0, **{"event.kind": "response.completed"})
        ),
        logs_export("gemini-cli", log("gemini_cli.api_response", T0)),  # no counts at all
        logs_export("gemini-cli", log("gemini_cli.api_error", T0)),
        {"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": "nope"}, "x", None]}]}]},
        {"resourceLogs": [{"resource": [], "scopeLogs": [{"logRecords": [{"body": 5}]}]}]},
    )
    by_key = {call.key.split(":")[1]: call for call in responses}
    assert by_key["gemini"].error == "API error"
    assert any(call.model == "(unknown)" and call.session_id == "" for call in responses)
    assert all(call.last_at is None or call.last_at > 0 for call in responses)
