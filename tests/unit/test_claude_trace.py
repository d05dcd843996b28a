"""claude-trace logs: which call each request continues, and which call summarises.

A log holds whole request bodies but no link between calls. Each pair here is built like the
lines of `../shared/samples/claude-trace-dev` (a request body, a JSON response with usage), with
Claude Code's rolling cache-control marks on the last messages.
"""

from __future__ import annotations

import json
from typing import Any

from sniff.ingest.formats.claude_trace import reader as claude_trace
from sniff.model import Agent

SONNET = "claude-sonnet-4-20250514"
HAIKU = "claude-3-5-haiku-20241022"
MARK = {"type": "ephemeral"}
TOOLS = [{"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}]
SYSTEM = [{"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."}]


def text(words: str, marked: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": words}
    if marked:
        block["cache_control"] = MARK
    return block


def pair(
    message_id: str,
    at: float,
    messages: list[dict[str, Any]],
    *,
    model: str = SONNET,
    system: list[dict[str, Any]] | None = None,
    tools: list[dict[str, Any]] | None = None,
    status: int = 200,
    content: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": messages, "max_tokens": 32000}
    body["system"] = SYSTEM if system is None else system
    body["tools"] = TOOLS if tools is None else tools
    usage = {"input_tokens": 4, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 100}
    answer = {"id": message_id, "model": model, "usage": usage, "content": content or []}
    return {
        "request": {
            "timestamp": at,
            "method": "POST",
            "url": "https://api.anthropic.com/v1/messages?beta=true",
            "headers": {"user-agent": "claude-cli/1.0.6 (external, cli)"},
            "body": body,
        },
        "response": {
            "timestamp": at + 2,
            "status_code": status,
            "headers": {"request-id": "req_" + message_id},
            "body": answer if status < 400 else {"error": {"type": "overloaded_error"}},
        },
        "logged_at": "2025-05-29T21:38:30.000Z",
    }


def parse(*pairs: dict[str, Any]) -> dict[str, Any]:
    data = b"".join(json.dumps(item).encode() + b"\n" for item in pairs)
    return {r.key: r for r in claude_trace.parse_data("log.jsonl", data, "demo").responses}


U1 = {"role": "user", "content": "Create a weather page."}
A1 = {"role": "assistant", "content": [text("I'll read the folder.")]}
U2 = {"role": "user", "content": [text("Now make it blue.")]}


def test_a_request_continues_the_latest_call_whose_messages_it_extends() -> None:
    found = parse(
        pair("m1", 100.0, [{"role": "user", "content": [text("Create a weather page.", True)]}]),
        # the same first message, its mark moved to the last message; and as a plain string
        pair("m2", 110.0, [U1, {**A1, "content": [text("I'll read the folder.", True)]}, U2]),
        pair("m3", 120.0, [U1, A1, U2, {"role": "assistant", "content": [text("Done.")]}, U1]),
    )
    assert (found["m1"].previous, found["m2"].previous, found["m3"].previous) == (
        None,
        "m1",
        "m2",
    )
    assert [found[key].opens_turn for key in ("m1", "m2", "m3")] == [True, True, True]


def test_other_models_failed_calls_and_later_calls_are_not_continued() -> None:
    found = parse(
        pair("m1", 100.0, [U1]),
        pair("q1", 105.0, [U1], model=HAIKU, tools=[]),  # a background call
        pair("e1", 106.0, [U1, A1, U2], status=529),  # overloaded: its retry continues m1
        pair("m2", 112.0, [U1, A1, U2]),
        pair("m0", 90.0, [U1, A1, U2, A1]),  # logged last, started first: continues nothing
    )
    assert found["q1"].previous is None
    assert found["q1"].agent == Agent.OTHER.value
    assert found["m2"].previous == "m1"
    assert found["m0"].previous is None


def test_the_summarising_call_is_a_compaction_of_its_own() -> None:
    summariser = [
        *SYSTEM,
        {
            "type": "text",
            "text": "You are a helpful AI assistant tasked with summarizing conversations.",
        },
    ]
    ask = {"role": "user", "content": [text("Your task is to create a detailed summary of it.")]}
    found = parse(
        pair("m1", 100.0, [U1]),
        pair("c1", 200.0, [U1, A1, ask], system=summariser),
        # a system prompt that summarises, asked for no summary: an ordinary call
        pair("m2", 210.0, [U1, A1, U2], system=summariser),
    )
    assert (found["c1"].agent, found["c1"].agent_id[:9]) == (Agent.COMPACTION.value, "acompact-")
    assert found["m2"].agent == Agent.MAIN.value


def test_a_response_that_thought_is_marked() -> None:
    thinking = [{"type": "thinking", "thinking": "Hmm.", "signature": "s"}, text("Blue.")]
    found = parse(pair("m1", 100.0, [U1], content=thinking), pair("m2", 110.0, [U1]))
    assert (found["m1"].thinks, found["m2"].thinks) == (True, False)
    stream = (
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        '"content_block":{"type":"thinking","thinking":"","signature":""}}\n\n'
    )
    assert claude_trace.anthropic_api.streams_thinking(stream)
    assert not claude_trace.anthropic_api.streams_thinking(stream.replace("thinking", "text"))


def _delta(kind: str, field: str, piece: str, index: int) -> str:
    payload = {"type": "content_block_delta", "index": index, "delta": {"type": kind, field: piece}}
    return f"event: content_block_delta\ndata: {json.dumps(payload)}\n\n"


def _block(kind: str, index: int) -> str:
    payload = {"type": "content_block_start", "index": index, "content_block": {"type": kind}}
    return f"event: content_block_start\ndata: {json.dumps(payload)}\n\n"


THOUGHT = "The user wants the page blue; the stylesheet sets the background colour."
SAID = "I'll make the page blue."
TOOL_INPUT = '{"file_path": "style.css"}'


def streamed(message_id: str, at: float, stream: str) -> dict[str, Any]:
    """A pair whose response was streamed: the SSE text, no JSON body."""
    found = pair(message_id, at, [U1])
    usage = {"input_tokens": 4, "output_tokens": 90}
    start = {
        "type": "message_start",
        "message": {"id": message_id, "model": SONNET, "usage": usage},
    }
    head = f"event: message_start\ndata: {json.dumps(start)}\n\n"
    found["response"] = {**found["response"], "body": None, "body_raw": head + stream}
    return found


def test_the_thinking_share_of_output_is_counted_from_the_streamed_deltas() -> None:
    from sniff.tokens import count

    stream = (
        _block("thinking", 0)
        + _delta("thinking_delta", "thinking", THOUGHT[:30], 0)
        + _delta("thinking_delta", "thinking", THOUGHT[30:], 0)
        + _delta("signature_delta", "signature", "c2lnbmF0dXJl" * 20, 0)  # not generated text
        + _block("text", 1)
        + _delta("text_delta", "text", SAID, 1)
        + _block("tool_use", 2)
        + _delta("input_json_delta", "partial_json", TOOL_INPUT[:9], 2)
        + _delta("input_json_delta", "partial_json", TOOL_INPUT[9:], 2)
    )
    plain = _block("text", 0) + _delta("text_delta", "text", SAID, 0)
    redacted = (
        _block("redacted_thinking", 0) + _block("text", 1) + _delta("text_delta", "text", SAID, 1)
    )
    found = parse(
        streamed("s1", 100.0, stream), streamed("s2", 110.0, plain), streamed("s3", 120.0, redacted)
    )
    thought, shown = count(THOUGHT), count(SAID + TOOL_INPUT)
    assert found["s1"].thinks and found["s1"].thinking_share == thought / (thought + shown)
    assert 0 < found["s1"].thinking_share < 1
    assert found["s2"].thinking_share is None  # no thinking
    assert found["s3"].thinks and found["s3"].thinking_share is None  # redacted: no text to count


def test_the_thinking_share_of_a_json_body_is_counted_from_its_blocks() -> None:
    from sniff.tokens import count

    content = [
        {"type": "thinking", "thinking": THOUGHT, "signature": "s"},
        text(SAID),
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "style.css"}},
    ]
    found = parse(pair("m1", 100.0, [U1], content=content))
    thought, shown = count(THOUGHT), count(SAID + TOOL_INPUT)
    assert found["m1"].thinking_share == thought / (thought + shown)
